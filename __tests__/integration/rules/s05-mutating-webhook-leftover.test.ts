/**
 * S05: a MutatingWebhookConfiguration for pods, failurePolicy Fail, whose Service namespace no
 * longer exists (the add-on was removed). Built for real, with a namespaceSelector so that it
 * only intercepts this test's namespace (the cluster is shared); a Deployment there gets no
 * pods. Plus S04's cousin for CRDs: a conversion webhook whose Service is gone.
 */
import { createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  createCrd,
  createDeployment,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S05: WebhookBackendMissing when the webhook Service namespace is gone; ConversionWebhookBackendMissing', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s05');
  const ns = `${id}-apps`;
  const gone = `${id}-istio-system`;
  const configuration = `${id}-sidecar-injector`;
  const group = `${id}.example.com`;
  const crd = `gadgets.${group}`;
  const configurationPath = `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${configuration}`;
  try {
    await createNamespace(api, ns, { 'kube-sweep-test': id });
    await api.request({
      method: 'POST',
      path: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: configuration },
        webhooks: [
          {
            name: `sidecar-injector.${id}.example.com`,
            rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            namespaceSelector: { matchLabels: { 'kube-sweep-test': id } },
            clientConfig: { service: { namespace: gone, name: 'istiod', path: '/inject', port: 443 } },
          },
        ],
      },
    });
    await createDeployment(api, ns, 'web', 1);
    await createCrd(api, {
      group,
      plural: 'gadgets',
      kind: 'Gadget',
      versions: ['v1', 'v2'],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: {
            service: { namespace: gone, name: 'gadget-converter', path: '/convert', port: 443 },
          },
        },
      },
    });
    // The ReplicaSet controller cannot create the pod: the webhook rejects it.
    await waitForCondition(api, `/apis/apps/v1/namespaces/${ns}/deployments/web`, 'ReplicaFailure');

    const inventory = await snapshot(api);
    recordFixture('s05-mutating-webhook-leftover', inventory, {
      scenario: 'S05 Leftover mutating webhook (and CRD conversion webhook) whose Service namespace is gone',
      names: { namespace: ns, missingNamespace: gone, configuration, crd },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [configuration, crd] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.severity, f.scope])).toEqual([
      ['ConversionWebhookBackendMissing', 'CustomResourceDefinition', crd, 'error', 'cluster'],
      ['WebhookBackendMissing', 'MutatingWebhookConfiguration', configuration, 'error', 'cluster'],
    ]);
    const [conversion, mutating] = mine;
    expect(mutating!.evidence).toEqual([
      `webhook sidecar-injector.${id}.example.com → service ${gone}/istiod port 443 path /inject: namespace ${gone} does not exist`,
      `webhook sidecar-injector.${id}.example.com failurePolicy: Fail`,
      `webhook sidecar-injector.${id}.example.com rule: apiGroups [] apiVersions [v1] resources [pods] operations [CREATE]`,
      `webhook sidecar-injector.${id}.example.com namespaceSelector: kube-sweep-test=${id}`,
    ]);
    expect(conversion!.evidence).toEqual([
      `conversion strategy Webhook → service ${gone}/gadget-converter port 443 path /convert: namespace ${gone} does not exist`,
      'versions: v1 served, v2 served storage',
    ]);
  } finally {
    await deleteIfPresent(api, configurationPath);
    await waitGone(api, configurationPath);
    await deleteNamespaceAndWait(api, ns);
    await deleteCrdAndWait(api, crd);
  }
});
