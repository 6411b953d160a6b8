import type { TeardownPlan } from '../plan/build-plan.js';
import { keptByHelm } from '../helm/manifest.js';
import { groupOf } from '../kube/api-version.js';
import { namespacesDeleted, plannedRemovals } from './dry-run.js';
import { helmDriverOf, type PlannedRemoval } from './teardown-result.js';
import type { ResourceIndex } from './resource-index.js';

/** An object a teardown deletes outside the namespaces it deletes, and who deletes it. */
export interface BlastRadiusObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent for a cluster-scoped object. */
  readonly namespace?: string;
  readonly name: string;
  /** The release (`namespace/name`) whose manifest holds it. */
  readonly release: string;
  /**
   * `helm`: `helm uninstall` deletes it; `kube-sweep`: kube-sweep deletes it itself, with its own
   * identity (`uninstall-mode: auto`, the release removed with its namespaces).
   */
  readonly by: 'helm' | 'kube-sweep';
}

/**
 * Everything a teardown of the plan deletes, named, shown first by the plan and the dry run
 * (issue 21): the namespaces (with all they hold), the releases (and how each goes), the
 * cluster-scoped objects of their manifests, and their namespaced objects outside the namespaces
 * in scope. Objects kept by `helm.sh/resource-policy: keep` are not in it.
 */
export interface BlastRadius {
  readonly namespaces: readonly string[];
  readonly releases: readonly PlannedRemoval[];
  readonly clusterScoped: readonly BlastRadiusObject[];
  /** Namespaced objects of the releases outside the namespaces in scope. */
  readonly otherNamespaces: readonly BlastRadiusObject[];
}

const byIdentity = (a: BlastRadiusObject, b: BlastRadiusObject) =>
  a.kind.localeCompare(b.kind) ||
  (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
  a.name.localeCompare(b.name) ||
  a.release.localeCompare(b.release);

/**
 * Pure: the blast radius of a plan, from the plan and discovery (`resources`: which kinds are
 * served and cluster-scoped), as `runTeardown` would act when nothing is skipped
 * (`plannedRemovals`). A kind that is not served is left out (nobody can delete it).
 */
export function blastRadiusOf(
  plan: TeardownPlan,
  resources: ResourceIndex,
  uninstallMode: 'auto' | 'helm',
): BlastRadius {
  const removals = plannedRemovals(plan, resources, uninstallMode);
  const namespaces = namespacesDeleted(plan);
  const scoped = new Set(plan.scope.namespaces);
  const clusterScoped: BlastRadiusObject[] = [];
  const otherNamespaces: BlastRadiusObject[] = [];
  for (const r of plan.releases) {
    const by = removals.get(r.key)?.ok ? 'kube-sweep' : 'helm';
    for (const o of r.objects) {
      if (keptByHelm(o.annotations)) continue;
      const group = groupOf(o.apiVersion);
      const address = resources(group, o.kind, o.apiVersion.slice(group ? group.length + 1 : 0));
      if (!address) continue;
      const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.name, release: r.key, by } as const;
      if (!address.namespaced) clusterScoped.push(ref);
      else {
        const namespace = o.namespace ?? r.release.namespace;
        if (!scoped.has(namespace)) otherNamespaces.push({ ...ref, namespace });
      }
    }
  }
  return {
    namespaces,
    releases: plan.releases.map((r) => ({
      release: r.key,
      method: removals.get(r.key)?.ok ? 'namespace' : 'helm',
      ...helmDriverOf(r.release),
    })),
    clusterScoped: clusterScoped.sort(byIdentity),
    otherNamespaces: otherNamespaces.sort(byIdentity),
  };
}
