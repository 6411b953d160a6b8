import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command, getYaml, stripFinalizers } from './kubectl.js';
import type { Rule } from './rule.js';
import { describeObject, refOf, wasListed } from './snapshot-views.js';

const rule = 'object-in-missing-namespace';

/**
 * object-in-missing-namespace: a namespaced object the API still serves although its namespace
 * does not exist, the trace of a namespace force-finalized through `/finalize` (scenario S10,
 * seed 002; kubernetes/kubernetes#127977). Nothing will ever delete it: the namespace controller
 * only cleans namespaces that exist. NamespaceLifecycle admission refuses only creates there:
 * on v1.37.2 an UPDATE or PATCH of such an object (a label, its finalizers) is accepted
 * (checked with kubectl against the local control plane), so it can be cleaned up in place.
 * Namespace names are compared exactly, never by prefix (`kb-system` is missing even
 * while `kb-system-2` exists: the prefix match of `etcdctl get --prefix /registry/pods/kb-system`
 * is the trap of seed 002).
 *
 * Not judged when Namespaces could not be listed. Objects created after the snapshot started
 * are skipped (their namespace may have been created after the Namespace list was read). A
 * namespace that finished deleting while the snapshot was being read can still show its last
 * objects once; a second scan tells the two apart.
 */
export const objectInMissingNamespaceRule: Rule = {
  name: rule,
  title: 'Objects whose namespace does not exist',
  codes: ['OrphanInMissingNamespace'],
  check(inventory, context) {
    if (!wasListed(inventory, '', 'namespaces')) return [];
    const started = Date.parse(inventory.takenAt);
    const findings: Finding[] = [];
    for (const o of inventory.objects) {
      if (o.namespace === undefined || inventory.namespaceNames.has(o.namespace)) continue;
      if (o.creationTimestamp && Date.parse(o.creationTimestamp) > started) continue;
      const ns = o.namespace;
      findings.push(
        buildFinding(
          rule,
          'OrphanInMissingNamespace',
          {
            object: refOf(o),
            message:
              `${describeObject(o)} is stored in namespace ${ns}, which does not exist: ` +
              'no namespace controller will ever delete it',
            evidence: [
              `namespace ${ns} is not among the ${inventory.namespaceNames.size} namespaces listed`,
              ...(o.finalizers?.length ? [`finalizers: ${o.finalizers.join(', ')}`] : []),
              ...(o.deletionTimestamp ? [`deletionTimestamp: ${o.deletionTimestamp}`] : []),
              ...(o.creationTimestamp ? [`creationTimestamp: ${o.creationTimestamp}`] : []),
            ],
            remediation: {
              summary:
                `Recreate namespace ${ns} and delete it normally, so that the namespace controller deletes what it ` +
                "stores and each finalizer's controller can finish; or delete the object (removing its finalizers " +
                'only after confirming their controller is gone).',
              commands: [
                command('kubectl', 'create', 'namespace', ns),
                getYaml(o),
                command('kubectl', 'delete', 'namespace', ns, '--wait=false'),
                ...stripFinalizers(o.finalizers?.length ? [o] : []),
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
