/**
 * Remediation command lines (kubectl). Names come from the cluster and are valid Kubernetes
 * names (DNS labels/subdomains, qualified finalizer names), so they need no shell quoting.
 */
import type { ObjectMetadata } from '../inventory/types.js';
import { typeNameOf } from './snapshot-views.js';

/** `-n <ns>` when namespaced. */
function namespaceFlag(namespace: string | undefined): string {
  return namespace !== undefined ? ` -n ${namespace}` : '';
}

/** `kubectl get <type> <name> [-n ns] -o yaml`. */
export function getYaml(o: ObjectMetadata): string {
  return `kubectl get ${typeNameOf(o)} ${o.name}${namespaceFlag(o.namespace)} -o yaml`;
}

/** The warning that precedes every command that strips finalizers. */
export const stripFinalizersWarning =
  '# WARNING: removing finalizers skips the cleanup their controller would do (external resources, data); ' +
  'only after confirming that controller is gone for good and nothing outside the cluster needs cleaning up:';

/**
 * The risky last resort, preceded by its warning line. With `finalizer`, one JSON patch per
 * object removes just that finalizer at the index the snapshot saw, guarded by a `test` op so
 * that it fails instead of removing another finalizer if the list changed; without, a merge
 * patch sets `metadata.finalizers` to null.
 */
export function stripFinalizers(objects: readonly ObjectMetadata[], finalizer?: string): string[] {
  if (objects.length === 0) return [];
  const patch = (o: ObjectMetadata) => {
    const index = finalizer === undefined ? -1 : (o.finalizers ?? []).indexOf(finalizer);
    if (index < 0) return `--type merge -p '{"metadata":{"finalizers":null}}'`;
    const path = `/metadata/finalizers/${index}`;
    return `--type json -p '[{"op":"test","path":"${path}","value":"${finalizer}"},{"op":"remove","path":"${path}"}]'`;
  };
  return [
    stripFinalizersWarning,
    ...objects.map(
      (o) => `kubectl patch ${typeNameOf(o)} ${o.name}${namespaceFlag(o.namespace)} ${patch(o)}`,
    ),
  ];
}

/** The line that forbids the worst fix of a stuck namespace (it strands objects in etcd, scenario S10). */
export const neverFinalizeNamespace =
  '# Do NOT clear spec.finalizers of the namespace or PUT /api/v1/namespaces/<ns>/finalize: its objects would stay in etcd, unreachable';
