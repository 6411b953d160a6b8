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
 * The risky last resort, preceded by its warning line: one JSON patch per object that removes
 * `finalizer` (default: every finalizer the snapshot saw on the object), each at the index the
 * snapshot saw and guarded by a `test` op, so that the patch fails instead of removing another
 * finalizer if the list changed (RFC 6902: ops apply in order, the removes from the highest
 * index down). Never a merge patch that clears `metadata.finalizers` whatever it holds. An
 * object without the finalizer (or without any) gets no line.
 */
export function stripFinalizers(objects: readonly ObjectMetadata[], finalizer?: string): string[] {
  const patches = objects.flatMap((o) => {
    const named = (o.finalizers ?? [])
      .map((name, index) => ({ name, index }))
      .filter((x) => finalizer === undefined || x.name === finalizer)
      .reverse();
    if (named.length === 0) return [];
    const path = (i: number) => `/metadata/finalizers/${i}`;
    const ops = [
      ...named.map((x) => `{"op":"test","path":"${path(x.index)}","value":"${x.name}"}`),
      ...named.map((x) => `{"op":"remove","path":"${path(x.index)}"}`),
    ];
    return [
      `kubectl patch ${typeNameOf(o)} ${o.name}${namespaceFlag(o.namespace)} --type json -p '[${ops.join(',')}]'`,
    ];
  });
  return patches.length ? [stripFinalizersWarning, ...patches] : [];
}

/** The line that forbids the worst fix of a stuck namespace (it strands objects in etcd, scenario S10). */
export const neverFinalizeNamespace =
  '# Do NOT clear spec.finalizers of the namespace or PUT /api/v1/namespaces/<ns>/finalize: its objects would stay in etcd, unreachable';
