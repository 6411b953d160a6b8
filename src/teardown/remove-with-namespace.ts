import { groupOf } from '../kube/api-version.js';
import { keptByHelm } from '../helm/manifest.js';
import { deleteHooks } from '../helm/release-storage.js';
import { isProtected, nameProtectionOnly, type NamespaceProtection } from '../plan/protected-namespaces.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import type { ResourceIndex } from './resource-index.js';
import type { AwaitedObject } from './wait-gone.js';

/**
 * Helm's uninstall order by kind: earlier kinds are deleted first, kinds not in the list last
 * (helm.sh/helm/v4 pkg/release/v1/util/kind_sorter.go, `UninstallOrder`; the same list in Helm 3).
 */
export const helmUninstallOrder: readonly string[] = [
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'Ingress',
  'IngressClass',
  'Service',
  'CronJob',
  'Job',
  'StatefulSet',
  'HorizontalPodAutoscaler',
  'Deployment',
  'ReplicaSet',
  'ReplicationController',
  'Pod',
  'DaemonSet',
  'RoleBindingList',
  'RoleBinding',
  'RoleList',
  'Role',
  'ClusterRoleBindingList',
  'ClusterRoleBinding',
  'ClusterRoleList',
  'ClusterRole',
  'CustomResourceDefinition',
  'PersistentVolumeClaim',
  'PersistentVolume',
  'StorageClass',
  'ConfigMap',
  'SecretList',
  'Secret',
  'ServiceAccount',
  'PodDisruptionBudget',
  'PodSecurityPolicy',
  'LimitRange',
  'ResourceQuota',
  'NetworkPolicy',
  'Namespace',
  'PriorityClass',
];

/**
 * Pure: objects grouped into batches in Helm's uninstall order (`helmUninstallOrder`; unknown
 * kinds after the known ones, by kind name, as Helm sorts them). Each batch is one kind; a
 * batch is deleted only after the one before it.
 */
export function uninstallBatches<T extends { kind: string }>(objects: readonly T[]): T[][] {
  const rank = (kind: string) => {
    const i = helmUninstallOrder.indexOf(kind);
    return i < 0 ? helmUninstallOrder.length : i;
  };
  const byKind = new Map<string, T[]>();
  for (const o of objects) (byKind.get(o.kind) ?? byKind.set(o.kind, []).get(o.kind)!).push(o);
  return [...byKind.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([, batch]) => batch);
}

/** How a release can be removed without `helm uninstall`, or why it cannot. */
export type NamespaceRemoval =
  | {
      readonly ok: true;
      /** The namespaces whose deletion removes the release's record and namespaced objects. */
      readonly namespaces: readonly string[];
      /**
       * Objects outside those namespaces (cluster-scoped ones, and namespaced ones elsewhere)
       * that kube-sweep deletes itself, in `uninstallBatches` order; objects annotated
       * `helm.sh/resource-policy: keep` are not among them, as Helm keeps them too.
       */
      readonly direct: readonly AwaitedObject[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Pure: whether deleting namespaces removes `release` the way `helm uninstall` would, and what
 * kube-sweep must then delete itself. It can when the release has no `pre-delete` or
 * `post-delete` hook (nothing must run before or after its objects go), its record's namespace
 * is among `deletedNow` (the namespaces deleted as soon as this stage's releases are done: the
 * record, all revisions of it, goes with the namespace), and every kind of its manifest is
 * served (an object kube-sweep cannot address is left to Helm, which reports it).
 * Namespaced objects in `deletedNow` go with their namespace; kept ones there too, as they
 * would when Helm kept them and the namespace was deleted afterwards.
 * An object in a protected namespace (`protection`) is never among those kube-sweep deletes: the
 * release is then left to Helm (the plan refuses such a release before any change: build-plan.ts).
 * @param deletedNow namespaces that this stage's end deletes (never a protected one)
 */
export function removalWithNamespaces(
  release: ReleaseFacts,
  resources: ResourceIndex,
  deletedNow: ReadonlySet<string>,
  protection: NamespaceProtection = nameProtectionOnly,
): NamespaceRemoval {
  const hooks = deleteHooks(release.release.hooks);
  if (hooks.length > 0)
    return { ok: false, reason: `it has delete hooks (${hooks.map((h) => h.path).join(', ')})` };
  const home = release.release.namespace;
  if (!deletedNow.has(home))
    return { ok: false, reason: `its namespace ${home} is not deleted at the end of this stage` };
  const namespaces = new Set([home]);
  const direct: AwaitedObject[] = [];
  for (const o of release.objects) {
    const group = groupOf(o.apiVersion);
    const address = resources(group, o.kind, o.apiVersion.slice(group ? group.length + 1 : 0));
    if (!address) return { ok: false, reason: `${o.kind} ${o.apiVersion} is not served` };
    const namespace = address.namespaced ? (o.namespace ?? home) : undefined;
    if (namespace && deletedNow.has(namespace)) {
      namespaces.add(namespace);
      continue;
    }
    if (keptByHelm(o.annotations)) continue;
    if (namespace && isProtected(namespace, protection))
      return { ok: false, reason: `its ${o.kind} ${namespace}/${o.name} is in a protected namespace` };
    direct.push({
      apiVersion: o.apiVersion,
      kind: o.kind,
      ...(namespace ? { namespace } : {}),
      name: o.name,
      address,
    });
  }
  return { ok: true, namespaces: [...namespaces].sort(), direct };
}

/**
 * Pure: which of a stage's releases are removed with their namespaces (`removalWithNamespaces`)
 * and which go through `helm uninstall`. `candidates` are the namespaces the stage's end may
 * delete (their last stage is this one; not protected, not kept for a release that failed).
 * A candidate is dropped when a release touching it (`touching`: this stage's releases with
 * their record, an object or a hook object there) must go through Helm, since that
 * uninstall may fail and keep the namespace, or `stays` (it is skipped: its custom resources
 * are still there), which keeps the namespace; this repeats until nothing changes. `protection`:
 * see `removalWithNamespaces`.
 * @returns every release of `releases` with its removal (`ok: false` with the reason: Helm).
 */
export function planNamespaceRemovals(
  releases: readonly ReleaseFacts[],
  touching: ReadonlyMap<string, readonly string[]>,
  candidates: ReadonlySet<string>,
  resources: ResourceIndex,
  stays: ReadonlySet<string> = new Set(),
  protection: NamespaceProtection = nameProtectionOnly,
): Map<string, NamespaceRemoval> {
  const deletedNow = new Set(candidates);
  const staying: NamespaceRemoval = { ok: false, reason: 'it stays (its custom resources are still there)' };
  for (;;) {
    const removals = new Map(
      releases.map(
        (r) =>
          [
            r.key,
            stays.has(r.key) ? staying : removalWithNamespaces(r, resources, deletedNow, protection),
          ] as const,
      ),
    );
    const dropped = [...deletedNow].filter((ns) =>
      (touching.get(ns) ?? []).some((key) => removals.get(key)?.ok === false),
    );
    if (dropped.length === 0) return removals;
    dropped.forEach((ns) => deletedNow.delete(ns));
  }
}
