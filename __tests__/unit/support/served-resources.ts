import type { ServedResource } from '../../../src/inventory/types.js';
import { resourceIndex } from '../../../src/teardown/resource-index.js';

/** A served resource as discovery reports it, with the verbs a teardown uses. */
export const served = (group: string, version: string, resource: string, kind: string, namespaced: boolean) =>
  ({
    group,
    version,
    resource,
    kind,
    namespaced,
    verbs: ['list', 'delete', 'deletecollection'],
  }) as ServedResource;

/** Discovery of the kinds in the recorded helm4 fixtures (operator and app). */
export const helm4Resources = resourceIndex([
  served('', 'v1', 'configmaps', 'ConfigMap', true),
  served('apps', 'v1', 'deployments', 'Deployment', true),
  served('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
  served(
    'admissionregistration.k8s.io',
    'v1',
    'validatingwebhookconfigurations',
    'ValidatingWebhookConfiguration',
    false,
  ),
  served('fixture4.kube-sweep.test', 'v1', 'widgets', 'Widget', true),
]);
