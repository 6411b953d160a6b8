import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command, getYaml, stripFinalizers } from './kubectl.js';
import {
  conditionOf,
  fullObjectsOf,
  refOfWhole,
  type CustomResourceDefinitionObject,
} from './kubernetes-objects.js';
import { describeCondition } from './namespace-conditions.js';
import type { Rule } from './rule.js';
import { capLines, formatDuration, stuckDeletionAge, typeName, wasListed } from './snapshot-views.js';

const rule = 'crd-stuck';

/** The listed instances of a CRD: objects of its group and plural, any version. */
export function instancesOf(inventory: Inventory, crd: CustomResourceDefinitionObject): ObjectMetadata[] {
  const group = crd.spec?.group ?? '';
  const plural = crd.spec?.names?.plural ?? '';
  return inventory.objects.filter((o) => o.resource === plural && groupOf(o.apiVersion) === group);
}

/**
 * crd-stuck: a CustomResourceDefinition whose deletionTimestamp is at least `stuckAfterSeconds`
 * old. kube-apiserver's CRD finalizer (apiextensions-apiserver pkg/controller/finalizer) deletes
 * every instance and keeps `customresourcecleanup.apiextensions.k8s.io` until none remains;
 * instances that wait for their own finalizers hold it (scenario S06; the `Terminating`
 * condition reads InstanceDeletionInProgress, InstanceDeletionFailed or InstanceDeletionCheck).
 * While it is Terminating, creating its objects fails with 405 and recreating the CRD with 409.
 * The finding lists the remaining instances with their finalizers.
 */
export const crdStuckRule: Rule = {
  name: rule,
  title: 'CustomResourceDefinitions Terminating past the threshold',
  codes: ['CRDStuckTerminating'],
  check(inventory, context) {
    const findings: Finding[] = [];
    for (const crd of fullObjectsOf(inventory, 'customresourcedefinitions')) {
      const age = stuckDeletionAge(crd.metadata?.deletionTimestamp, context);
      if (age === undefined) continue;
      const name = crd.metadata?.name ?? '';
      const type = typeName(crd.spec?.names?.plural ?? '', crd.spec?.group ?? '');
      const listed = wasListed(inventory, crd.spec?.group ?? '', crd.spec?.names?.plural ?? '');
      const instances = instancesOf(inventory, crd);
      const holders = instances.filter((o) => o.finalizers?.length);
      const finalizers = [...new Set(holders.flatMap((o) => o.finalizers!))].sort();
      const terminating = conditionOf(crd.status?.conditions, 'Terminating');
      findings.push(
        buildFinding(
          rule,
          'CRDStuckTerminating',
          {
            object: refOfWhole('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd.metadata),
            namespaces: instances.map((o) => o.namespace),
            message:
              `CustomResourceDefinition ${name} has been Terminating for ${formatDuration(age)}: ` +
              (listed
                ? `${instances.length} instance${instances.length === 1 ? ' remains' : 's remain'}` +
                  (finalizers.length ? `, waiting for finalizer ${finalizers.join(', ')}` : '')
                : 'its instances could not be listed'),
            evidence: [
              ...(terminating ? [describeCondition(terminating)] : []),
              `finalizers of the CRD: ${(crd.metadata?.finalizers ?? []).join(', ') || 'none'}`,
              ...capLines(
                instances.map(
                  (o) =>
                    `instance ${o.namespace !== undefined ? `${o.namespace}/` : ''}${o.name}` +
                    ` [${(o.finalizers ?? []).join(', ')}]` +
                    (o.deletionTimestamp ? ` (deletionTimestamp ${o.deletionTimestamp})` : ''),
                ),
              ),
              ...(listed ? [] : [`${type} could not be listed: see coverage`]),
            ],
            remediation: {
              summary:
                'Restore the controller that owns the finalizers of the remaining instances and let it finish; the ' +
                "CRD goes once its instances are gone. Never remove the CRD's own finalizer " +
                'customresourcecleanup.apiextensions.k8s.io: the instances would stay in etcd and come back when ' +
                'the CRD is recreated. For the next teardown: custom resources, then their controller, then CRDs.',
              commands: [
                command('kubectl', 'get', type, '-A'),
                ...holders.map(getYaml),
                '# Do NOT remove customresourcecleanup.apiextensions.k8s.io from the CRD (its instances would stay in etcd)',
                ...stripFinalizers(holders),
              ],
            },
          },
          context,
        ),
      );
    }
    return findings;
  },
};
