import type { ObjectRef } from '../inventory/types.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import { isProtected, isProtectedNamespace, nameProtectionOnly } from '../plan/protected-namespaces.js';
import { planNamespaceRemovals, type NamespaceRemoval } from './remove-with-namespace.js';
import type { ResourceIndex } from './resource-index.js';
import { lastStageTouching, objectsToAwait } from './run-teardown.js';
import { Inputs, inputSet } from '../config/inputs.js';

/** An object a teardown would delete (or leave on purpose). */
export type DryRunObject = ObjectRef;

/** What one stage of the teardown would do. */
export interface DryRunStage {
  readonly index: number;
  /** Releases the stage would remove (keys `namespace/name`). */
  readonly releases: readonly string[];
  /**
   * How each release would be removed (`uninstall-mode`): `namespace`, with the namespaces the
   * stage's end deletes, or `helm` (`helm uninstall`), with why not by namespace. A release
   * whose custom resources are still there when its stage comes is skipped instead.
   */
  readonly removals: readonly { release: string; method: 'helm' | 'namespace'; reason?: string }[];
  /** Instances of the stage's CRDs in the scoped namespaces, deleted first (from the snapshot). */
  readonly crdInstances: readonly DryRunObject[];
  /** Objects of the releases' manifests that go with the uninstall. */
  readonly objects: readonly DryRunObject[];
  /** Objects with `helm.sh/resource-policy: keep`, which Helm leaves in place. */
  readonly kept: readonly DryRunObject[];
}

/** `dry-run: true` with `mode: teardown`: what the teardown would delete, and that it deleted nothing. */
export interface DryRunSummary {
  readonly stages: readonly DryRunStage[];
  /** Namespaces that would be deleted after the last stage (never a protected one). */
  readonly namespaces: readonly string[];
  /** Total objects named above (CRD instances, manifest objects and namespaces; kept ones excluded). */
  readonly objectCount: number;
}

const byName = (a: DryRunObject, b: DryRunObject) =>
  a.kind.localeCompare(b.kind) ||
  (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
  a.name.localeCompare(b.name);

/**
 * Pure: what `runTeardown` would delete for this plan, read from the plan and the snapshot
 * (no request): per stage the CRD instances in scope (`instancesOf`, the snapshot's objects
 * of that kind), the releases and their manifests' objects (`objectsToAwait`, the same
 * selection the real wait uses), then the namespaces (protected ones left out, as
 * `runTeardown` does).
 */
export function dryRunOf(
  plan: TeardownPlan,
  resources: ResourceIndex,
  failedGroupVersions: ReadonlySet<string>,
  instancesOf: (group: string, kind: string) => readonly { namespace?: string; name: string }[],
  uninstallMode: 'auto' | 'helm' = 'auto',
): DryRunSummary {
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const scoped = new Set(plan.scope.namespaces);
  const planned = plannedRemovals(plan, resources, uninstallMode);
  const removalsOf = (releases: readonly string[]): DryRunStage['removals'] =>
    releases.map((release) => {
      const r = planned.get(release)!;
      return r.ok ? { release, method: 'namespace' } : { release, method: 'helm', reason: r.reason };
    });
  const stages = plan.stages.map((stage): DryRunStage => {
    const crdInstances = stage.crdInstancesFirst
      .filter((crd) => crd.namespaced)
      .flatMap((crd) =>
        instancesOf(crd.group, crd.kind)
          .filter((i) => i.namespace !== undefined && scoped.has(i.namespace))
          .map((i) => ({
            apiVersion: `${crd.group}/${crd.versions[0] ?? ''}`,
            kind: crd.kind,
            namespace: i.namespace!,
            name: i.name,
          })),
      );
    const objects: DryRunObject[] = [];
    const kept: DryRunObject[] = [];
    for (const key of stage.releases) {
      const o = objectsToAwait(byKey.get(key)!, resources, failedGroupVersions);
      objects.push(...o.awaited.map(({ address: _address, ...ref }) => ref));
      kept.push(...o.kept);
    }
    return {
      index: stage.index,
      releases: stage.releases,
      removals: removalsOf(stage.releases),
      crdInstances: crdInstances.sort(byName),
      objects: objects.sort(byName),
      kept: kept.sort(byName),
    };
  });
  const namespaces = namespacesDeleted(plan);
  return {
    stages,
    namespaces,
    objectCount: stages.reduce((n, s) => n + s.crdInstances.length + s.objects.length, 0) + namespaces.length,
  };
}

/** Pure: the plan's namespaces to delete, protected ones left out (as `runTeardown` leaves them). */
export function namespacesDeleted(plan: TeardownPlan): string[] {
  const protection = plan.scope.protection ?? nameProtectionOnly;
  return plan.namespacesToDelete.filter((n) => !isProtectedNamespace(n) && !isProtected(n, protection));
}

/**
 * Pure: how `runTeardown` would remove each release of the plan when nothing is skipped, by
 * release key: `ok` with the namespaces and the objects kube-sweep deletes itself
 * (`removalWithNamespaces`), or `ok: false` with why Helm does it (`uninstall-mode: helm`
 * gives that reason to every release).
 */
export function plannedRemovals(
  plan: TeardownPlan,
  resources: ResourceIndex,
  uninstallMode: 'auto' | 'helm',
): Map<string, NamespaceRemoval> {
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const out = new Map<string, NamespaceRemoval>();
  if (uninstallMode === 'helm') {
    for (const r of plan.releases)
      out.set(r.key, { ok: false, reason: inputSet(Inputs.uninstallMode, 'helm') });
    return out;
  }
  const freeAfter = lastStageTouching(plan, resources);
  const deleted = new Set(namespacesDeleted(plan));
  for (const stage of plan.stages) {
    const touching = new Map<string, readonly string[]>();
    for (const n of plan.namespacesToDelete) {
      const f = freeAfter.get(n)!;
      if (f.stage === stage.index && deleted.has(n)) touching.set(n, f.releases);
    }
    const removals = planNamespaceRemovals(
      stage.releases.map((k) => byKey.get(k)!),
      touching,
      new Set(touching.keys()),
      resources,
      new Set(),
      plan.scope.protection,
    );
    for (const [key, removal] of removals) out.set(key, removal);
  }
  return out;
}
