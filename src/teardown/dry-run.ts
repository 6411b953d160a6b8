import type { ObjectMetadata } from '../inventory/types.js';
import type { PlannedStage, TeardownPlan } from '../plan/build-plan.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import { isProtected, isProtectedNamespace, nameProtectionOnly } from '../plan/protected-namespaces.js';
import { planNamespaceRemovals, type NamespaceRemoval } from './remove-with-namespace.js';
import type { ResourceIndex } from './resource-index.js';
import type { Blocker, PlannedRemoval } from '../model/teardown-result.js';
import { lastStageTouching, objectsToAwait } from './release-objects.js';
import { strandedReason } from './stage-custom-resources.js';
import { Inputs, inputSet } from '../words/input-words.js';
import type { DryRunObject, DryRunSkip, DryRunStage, DryRunSummary } from '../model/dry-run.js';
import type { HelmRelease } from '../helm/release-storage.js';

/** What the dry run reads besides the plan and the resource index. */
export interface DryRunInputs {
  /** Group-versions whose discovery failed in the inventory (their objects cannot be checked). */
  readonly failedGroupVersions: ReadonlySet<string>;
  /** The snapshot's objects of a kind of a group (a CRD's instances). */
  readonly instancesOf: (group: string, kind: string) => readonly ObjectMetadata[];
  readonly uninstallMode?: 'auto' | 'helm';
  /**
   * Why deleting an object would not end within the wait (rules/deletion-forecast.ts), or
   * undefined. Absent: every instance is foreseen to go, and no release is skipped.
   */
  readonly outlivesDeletion?: (o: ObjectMetadata) => string | undefined;
}

const byName = (a: DryRunObject, b: DryRunObject) =>
  a.kind.localeCompare(b.kind) ||
  (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
  a.name.localeCompare(b.name);

/** Pure: the instances in scope of the stage's namespaced CRDs, with what the forecast says of each. */
function stageInstances(stage: PlannedStage, scoped: ReadonlySet<string>, inputs: DryRunInputs) {
  return stage.crdInstancesFirst
    .filter((crd) => crd.namespaced)
    .map((crd) => ({
      crd,
      instances: inputs
        .instancesOf(crd.group, crd.kind)
        .filter((i) => i.namespace !== undefined && scoped.has(i.namespace))
        .map((i) => {
          const object = {
            apiVersion: `${crd.group}/${crd.versions[0] ?? ''}`,
            kind: crd.kind,
            namespace: i.namespace!,
            name: i.name,
          };
          const blocker: Blocker = {
            ...object,
            finalizers: i.finalizers ?? [],
            ...(i.deletionTimestamp ? { deletionTimestamp: i.deletionTimestamp } : {}),
          };
          return { object, blocker, why: inputs.outlivesDeletion?.(i) };
        }),
    }));
}

/**
 * Pure: the releases of the stage the real run would skip, by key: `strandedReason` (the real
 * run's decision) over the foreseen outcome of step 1, the instances the forecast says stay.
 */
function foreseenSkips(
  stage: PlannedStage,
  byKey: ReadonlyMap<string, ReleaseFacts>,
  instances: ReturnType<typeof stageInstances>,
  scope: readonly string[],
): Map<string, DryRunSkip> {
  const staying = instances.map(({ crd, instances: all }) => ({
    crd: crd.name,
    stay: all.filter((i) => i.why !== undefined),
  }));
  const foreseen = {
    crdInstances: staying.map((x) => ({
      crd: x.crd,
      namespaces: scope,
      remaining: x.stay.map((i) => i.blocker),
    })),
    unchecked: new Set<string>(),
  };
  const skips = new Map<string, DryRunSkip>();
  for (const key of stage.releases) {
    const facts = byKey.get(key)!;
    const reason = strandedReason(facts, foreseen);
    if (!reason) continue;
    const held = staying
      .filter((x) => facts.crds.some((crd) => crd.name === x.crd))
      .flatMap((x) => x.stay.map((i) => ({ object: i.object, why: i.why! })));
    skips.set(key, { release: key, reason, instances: held });
  }
  return skips;
}

/**
 * Pure: what `runTeardown` would do for this plan, read from the plan and the snapshot (no
 * request): per stage the CRD instances in scope (the snapshot's objects of that kind), the
 * releases it would skip (`strandedReason`, the real run's decision, over the instances that
 * `outlivesDeletion` foretells would still be there after their wait), the other releases and
 * their manifests' objects (`objectsToAwait`, the same selection the real wait uses), then the
 * namespaces (protected ones and those of skipped releases left out, as `runTeardown` does).
 */
export function dryRunOf(plan: TeardownPlan, resources: ResourceIndex, inputs: DryRunInputs): DryRunSummary {
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const scoped = new Set(plan.scope.namespaces);
  const instances = new Map(plan.stages.map((s) => [s.index, stageInstances(s, scoped, inputs)]));
  const skips = new Map(
    plan.stages.flatMap((s) => [...foreseenSkips(s, byKey, instances.get(s.index)!, plan.scope.namespaces)]),
  );
  const planned = plannedRemovals(plan, resources, inputs.uninstallMode ?? 'auto', new Set(skips.keys()));
  const stages = plan.stages.map((stage): DryRunStage => {
    const removed = stage.releases.filter((k) => !skips.has(k));
    const objects: DryRunObject[] = [];
    const kept: DryRunObject[] = [];
    for (const key of removed) {
      const o = objectsToAwait(byKey.get(key)!, resources, inputs.failedGroupVersions);
      objects.push(...o.awaited.map(({ address: _address, ...ref }) => ref));
      kept.push(...o.kept);
    }
    return {
      index: stage.index,
      releases: removed,
      removals: removed.map((release) => {
        const r = planned.get(release)!;
        const driver = helmDriverOf(byKey.get(release)!.release);
        return r.ok
          ? { release, method: 'namespace', ...driver }
          : { release, method: 'helm', ...driver, reason: r.reason };
      }),
      skipped: stage.releases.flatMap((k) => (skips.has(k) ? [skips.get(k)!] : [])),
      crdInstances: instances
        .get(stage.index)!
        .flatMap((x) => x.instances.map((i) => i.object))
        .sort(byName),
      objects: objects.sort(byName),
      kept: kept.sort(byName),
    };
  });
  const namespaces = namespacesDeleted(plan, keptFor(skips.keys(), byKey));
  return {
    stages,
    namespaces,
    objectCount: stages.reduce((n, s) => n + s.crdInstances.length + s.objects.length, 0) + namespaces.length,
  };
}

/** Pure: the namespaces the real run keeps for releases it does not uninstall (their home namespace). */
function keptFor(releases: Iterable<string>, byKey: ReadonlyMap<string, ReleaseFacts>): Set<string> {
  return new Set([...releases].map((k) => byKey.get(k)!.release.namespace));
}

/**
 * Pure: the plan's namespaces to delete, protected ones left out (as `runTeardown` leaves them),
 * and `kept` ones (the namespaces of releases that would not be uninstalled).
 */
export function namespacesDeleted(plan: TeardownPlan, kept: ReadonlySet<string> = new Set()): string[] {
  const protection = plan.scope.protection ?? nameProtectionOnly;
  return plan.namespacesToDelete.filter(
    (n) => !isProtectedNamespace(n) && !isProtected(n, protection) && !kept.has(n),
  );
}

/**
 * Pure: how `runTeardown` would remove each release of the plan, by release key: `ok` with the
 * namespaces and the objects kube-sweep deletes itself (`removalWithNamespaces`), or `ok: false`
 * with why Helm does it (`uninstall-mode: helm` gives that reason to every release). `stays`:
 * the releases it would skip (default none): as in the real run, they keep their namespace
 * and the releases beside them there go through Helm.
 */
export function plannedRemovals(
  plan: TeardownPlan,
  resources: ResourceIndex,
  uninstallMode: 'auto' | 'helm',
  stays: ReadonlySet<string> = new Set(),
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
      new Set(stage.releases.filter((k) => stays.has(k))),
      plan.scope.protection,
    );
    for (const [key, removal] of removals) out.set(key, removal);
  }
  return out;
}

/** Pure: `helmDriver` of a release's removal: `configmap` for a ConfigMap record, absent for a Secret. */
export function helmDriverOf(release: HelmRelease): Pick<PlannedRemoval, 'helmDriver'> {
  return release.storage.kind === 'ConfigMap' ? { helmDriver: 'configmap' } : {};
}
