import type { TeardownPlan } from '../plan/build-plan.js';
import { keptByHelm } from '../helm/manifest.js';
import { groupOf } from '../kube/api-version.js';
import { helmDriverOf, namespacesDeleted, plannedRemovals } from './dry-run.js';
import type { ResourceIndex } from './resource-index.js';
import type { BlastRadius, BlastRadiusObject } from '../model/dry-run.js';

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
