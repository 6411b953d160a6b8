/**
 * The prediction of a teardown, computed once from the snapshot taken before any change: what
 * each object, namespace and release the teardown would touch is expected to do (go, wait on a
 * running controller, hang, or stay), with the evidence. `mode: plan`, `teardown --dry-run` and
 * the teardown's report show the same model; after a teardown, `surprisesOf` names what
 * happened that the prediction did not say, and the teardown does not spend its budget on
 * objects predicted to hang that have not changed since (`knownHangs`).
 * It reads the dry run's decisions (dry-run.ts: skipped releases, manifests' objects, kept ones)
 * and the deletion outlook (rules/deletion-forecast.ts), so the three never disagree.
 */
import { groupOf } from '../kube/api-version.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import {
  isProtected,
  isProtectedNamespace,
  nameProtectionOnly,
  protectionReason,
} from '../plan/protected-namespaces.js';
import type { DeletionOutlook } from '../rules/deletion-forecast.js';
import { deleteObject, stripFinalizerPatches } from '../rules/kubectl.js';
import type { DryRunSkip, DryRunStage, DryRunSummary } from '../model/dry-run.js';
import {
  predictedId,
  type Expected,
  type PredictedNamespace,
  type PredictedObject,
  type PredictedRef,
  type PredictedRelease,
  type Prediction,
  type Surprise,
} from '../model/prediction.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import { hookObjects, objectsToAwait } from './release-objects.js';
import type { ResourceIndex } from './resource-index.js';

export type {
  Expected,
  PredictedNamespace,
  PredictedObject,
  PredictedRef,
  PredictedRelease,
  Prediction,
  Surprise,
} from '../model/prediction.js';

/** What the prediction reads besides the plan, its dry run and the resource index. */
export interface PredictionInputs {
  /** `dryRunOf` of the same plan, with the same forecast (`outlivesDeletion` from `outlook`). */
  readonly dryRun: DryRunSummary;
  /** Group-versions whose discovery failed in the inventory. */
  readonly failedGroupVersions: ReadonlySet<string>;
  /** The snapshot's object of that group, kind, namespace and name, if it holds one. */
  readonly liveObject: (
    group: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ) => ObjectMetadata | undefined;
  /** What deleting an object of the snapshot would lead to (rules/deletion-forecast.ts `deletionOutlook`). */
  readonly outlook: (o: ObjectMetadata) => DeletionOutlook | undefined;
}

/** Pure: an object's identity in a prediction (model/prediction.ts, where report/ reads it too). */
export { predictedId };

const order: Record<Expected, number> = { hangs: 0, stays: 1, waits: 2, goes: 3 };

const refOf = (o: { apiVersion: string; kind: string; namespace?: string; name: string }): PredictedRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
  name: o.name,
});

/** Pure: the remedy of an object foreseen to hang, to apply before the teardown. */
function hangRemedy(live: ObjectMetadata, why: DeletionOutlook): string {
  if (why.outcome === 'hangs' && why.finalizer) {
    const patch = stripFinalizerPatches([live], why.finalizer)[0];
    return (
      `before the teardown, bring back the controller that removes ${why.finalizer}` +
      (patch
        ? `; or, once you know it is gone for good and nothing outside the cluster needs its cleanup, remove the finalizer: ${patch}`
        : '')
    );
  }
  return 'find what should remove its finalizers before the teardown; kube-sweep does not wait for it';
}

/**
 * Pure: the prediction of a teardown of `plan`, from the snapshot and the plan's dry run:
 * - each CRD instance and manifest object of a release that is removed: `hangs` when the outlook
 *   says so (a finalizer whose controller does not run, a deletion already stuck), `waits` when
 *   a live controller must remove its finalizer, else `goes`;
 * - objects of a release the dry run skips (`DryRunStage.skipped`): `stays` (the release keeps
 *   its controller, its objects and its namespace), its CRD instances as the outlook says;
 * - objects Helm keeps (`helm.sh/resource-policy: keep`): `stays`, unless namespaced in a
 *   namespace the teardown deletes (then `goes` with it);
 * - objects the releases' hooks made that the snapshot holds: `stays` (helm uninstall never
 *   deletes a hook's objects), unless in a namespace the teardown deletes;
 * - namespaces: `hangs` when an object foreseen to hang is in it, `stays` when the teardown keeps
 *   it (a skipped release's, a protected one), else `goes`; releases: `stays` when skipped.
 * An object is listed once (a CRD instance that is also a manifest object: its first step).
 */
export function predictTeardown(
  plan: TeardownPlan,
  resources: ResourceIndex,
  inputs: PredictionInputs,
): Prediction {
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const p = predictionBuilder(inputs);
  for (const stage of inputs.dryRun.stages) predictStage(stage, byKey, resources, inputs, p);
  for (const stage of inputs.dryRun.stages) predictLeftInPlace(stage, byKey, resources, p);
  const objects = [...p.seen.values()].sort(
    (a, b) =>
      order[a.expected] - order[b.expected] ||
      a.object.kind.localeCompare(b.object.kind) ||
      (a.object.namespace ?? '').localeCompare(b.object.namespace ?? '') ||
      a.object.name.localeCompare(b.object.name),
  );
  const skipped = new Map(inputs.dryRun.stages.flatMap((s) => s.skipped.map((k) => [k.release, k] as const)));
  const namespaces = predictNamespaces(plan, inputs.dryRun, objects, skipped);
  const releases = plan.releases.map((r): PredictedRelease => {
    const s = skipped.get(r.key);
    return s
      ? { release: r.key, expected: 'stays', evidence: s.reason }
      : { release: r.key, expected: 'goes', evidence: 'uninstalled in its stage' };
  });
  const counts = { goes: 0, waits: 0, hangs: 0, stays: 0 };
  for (const o of objects) counts[o.expected]++;
  return { objects, namespaces, releases, counts };
}

/** What the parts of `predictTeardown` share: the objects predicted so far, and how to add and judge one. */
interface PredictionBuilder {
  /** By `predictedId`: the first prediction of each object wins. */
  readonly seen: Map<string, PredictedObject>;
  readonly add: (p: PredictedObject) => void;
  /** The snapshot's object, if it holds one. */
  readonly live: (o: PredictedRef) => ObjectMetadata | undefined;
  /** Adds an object the teardown deletes: `hangs`, `waits` or `goes`, as the outlook says. */
  readonly judge: (o: PredictedRef, release?: string) => void;
  /** Whether the object is namespaced in a namespace the teardown deletes. */
  readonly inDeletedNamespace: (o: PredictedRef) => boolean;
}

/** Pure: a `PredictionBuilder` over the inputs. */
function predictionBuilder(inputs: PredictionInputs): PredictionBuilder {
  const deleted = new Set(inputs.dryRun.namespaces);
  const seen = new Map<string, PredictedObject>();
  const add = (p: PredictedObject) => {
    if (!seen.has(predictedId(p.object))) seen.set(predictedId(p.object), p);
  };
  const live = (o: PredictedRef) => inputs.liveObject(groupOf(o.apiVersion), o.kind, o.namespace, o.name);
  const judge = (o: PredictedRef, release?: string) => {
    const l = live(o);
    const base = {
      object: refOf(o),
      ...(release ? { release } : {}),
      ...(l?.finalizers?.length ? { finalizers: l.finalizers } : {}),
    };
    if (!l)
      return add({
        ...base,
        expected: 'goes',
        evidence: 'not in the snapshot (already gone, or made since)',
      });
    const why = inputs.outlook(l);
    if (why?.outcome === 'hangs')
      return add({ ...base, expected: 'hangs', evidence: why.why, remedy: hangRemedy(l, why) });
    if (why?.outcome === 'waits') return add({ ...base, expected: 'waits', evidence: why.why });
    add({
      ...base,
      expected: 'goes',
      evidence: l.finalizers?.length
        ? `finalizers ${l.finalizers.join(', ')}: removed by Kubernetes, or whether their controller runs is unknown`
        : 'no finalizer',
    });
  };
  return {
    seen,
    add,
    live,
    judge,
    inDeletedNamespace: (o) => o.namespace !== undefined && deleted.has(o.namespace),
  };
}

/**
 * Pure: one stage's objects that the teardown deletes (CRD instances first, then the manifests'
 * objects of the releases it removes), judged; and the objects of the releases it skips, which stay.
 */
function predictStage(
  stage: DryRunStage,
  byKey: ReadonlyMap<string, ReleaseFacts>,
  resources: ResourceIndex,
  inputs: PredictionInputs,
  p: PredictionBuilder,
): void {
  for (const i of stage.crdInstances) p.judge(i);
  for (const skip of stage.skipped) for (const i of skip.instances) p.judge(i.object);
  for (const skip of stage.skipped)
    for (const o of objectsToAwait(byKey.get(skip.release)!, resources, inputs.failedGroupVersions).awaited)
      if (p.live(o))
        p.add({
          object: refOf(o),
          expected: 'stays',
          release: skip.release,
          evidence: `release ${skip.release} is ${skip.reason}`,
          remedy: 'make its custom resources go first (see what hangs); the release is then uninstalled',
        });
  for (const key of stage.releases)
    for (const o of objectsToAwait(byKey.get(key)!, resources, inputs.failedGroupVersions).awaited)
      p.judge(o, key);
}

/**
 * Pure: one stage's objects that Helm leaves in place: those it keeps (`helm.sh/resource-policy:
 * keep`) and those its releases' hooks made (in the snapshot): `stays`, or `goes` when
 * namespaced in a namespace the teardown deletes.
 */
function predictLeftInPlace(
  stage: DryRunStage,
  byKey: ReadonlyMap<string, ReleaseFacts>,
  resources: ResourceIndex,
  p: PredictionBuilder,
): void {
  for (const k of stage.kept) {
    const release = stage.releases.find((key) =>
      byKey.get(key)!.objects.some((o) => o.kind === k.kind && o.name === k.name),
    );
    const base = { object: refOf(k), ...(release ? { release } : {}) };
    const l = p.live(k);
    if (p.inDeletedNamespace(k))
      p.add({
        ...base,
        expected: 'goes',
        evidence: `helm.sh/resource-policy: keep, but namespace ${k.namespace} is deleted, which deletes it`,
      });
    else if (l)
      p.add({
        ...base,
        expected: 'stays',
        evidence: 'helm.sh/resource-policy: keep: helm uninstall leaves it in place',
        remedy: `if it is no longer needed, remove the annotation before the teardown, or delete it after: ${deleteObject(l)}`,
      });
  }
  for (const key of stage.releases) {
    const facts = byKey.get(key)!;
    for (const hook of facts.release.hooks) {
      const made = `made by a ${hook.events.join('/')} hook of ${key} (${hook.path})`;
      for (const o of hookObjects({ ...facts, release: { ...facts.release, hooks: [hook] } }, resources)) {
        const l = p.live(o);
        if (!l) continue;
        if (p.inDeletedNamespace(o))
          p.add({
            object: refOf(o),
            expected: 'goes',
            release: key,
            evidence: `${made}; namespace ${o.namespace} is deleted, which deletes it`,
          });
        else
          p.add({
            object: refOf(o),
            expected: 'stays',
            release: key,
            evidence: `${made}: helm uninstall never deletes a hook's objects`,
            remedy: `give the hook a helm.sh/hook-delete-policy, or delete it after the teardown: ${deleteObject(l)}`,
          });
      }
    }
  }
}

/**
 * Pure: each namespace the plan would delete: `stays` when protected or kept for a skipped
 * release, `hangs` when an object foreseen to hang is in it, else `goes`.
 */
function predictNamespaces(
  plan: TeardownPlan,
  dryRun: DryRunSummary,
  objects: readonly PredictedObject[],
  skipped: ReadonlyMap<string, DryRunSkip>,
): PredictedNamespace[] {
  const deleted = new Set(dryRun.namespaces);
  const protection = plan.scope.protection ?? nameProtectionOnly;
  const homeOf = new Map(plan.releases.map((r) => [r.key, r.release.namespace]));
  return plan.namespacesToDelete.map((name): PredictedNamespace => {
    if (isProtectedNamespace(name) || isProtected(name, protection))
      return {
        name,
        expected: 'stays',
        evidence: `protected (${protectionReason(name, protection) ?? 'a system namespace'}): never deleted`,
      };
    if (!deleted.has(name)) {
      const holders = [...skipped.keys()].filter((k) => homeOf.get(k) === name);
      return {
        name,
        expected: 'stays',
        evidence: `kept for release${holders.length === 1 ? '' : 's'} ${holders.join(', ')}, not uninstalled`,
      };
    }
    const hanging = objects.filter((o) => o.expected === 'hangs' && o.object.namespace === name);
    if (hanging.length > 0)
      return {
        name,
        expected: 'hangs',
        evidence: `held by ${hanging.map((o) => `${o.object.kind} ${o.object.name}`).join(', ')}, foreseen to hang`,
        remedy: 'remove what holds those objects before the teardown',
      };
    return { name, expected: 'goes', evidence: 'nothing in it is foreseen to hang' };
  });
}

/**
 * Pure: what a teardown did that its prediction did not say: each object it left (`leftovers`,
 * engine/scan.ts `leftoversOf`, that `stillThere` does not say is gone since) that the prediction
 * expected to go or wait, or did not name at all;
 * each namespace left that was expected to go; and each object expected to hang or stay that is
 * gone (`stillThere` tells, from the snapshot after the teardown). A surprise is a defect of
 * the prediction.
 */
export function surprisesOf(
  prediction: Prediction,
  leftovers: readonly { readonly object: PredictedRef }[],
  stillThere: (o: PredictedRef) => boolean | undefined,
): Surprise[] {
  const byId = new Map(prediction.objects.map((p) => [predictedId(p.object), p]));
  const namespaces = new Map(prediction.namespaces.map((n) => [n.name, n]));
  const out: Surprise[] = [];
  const left = new Set<string>();
  for (const l of leftovers) {
    const id = predictedId(l.object);
    if (left.has(id) || stillThere(l.object) === false) continue;
    left.add(id);
    const what = `${l.object.kind} ${l.object.namespace ? `${l.object.namespace}/` : ''}${l.object.name}`;
    if (l.object.kind === 'Namespace' && groupOf(l.object.apiVersion) === '') {
      const n = namespaces.get(l.object.name);
      if (n?.expected === 'hangs' || n?.expected === 'stays') continue;
      out.push({
        object: refOf(l.object),
        expected: n ? 'goes' : 'unpredicted',
        actual: 'left',
        message: `${what} was left, but the prediction said it would ${n ? 'go' : 'not be touched'}`,
      });
      continue;
    }
    const p = byId.get(id);
    if (p?.expected === 'hangs' || p?.expected === 'stays') continue;
    out.push({
      object: refOf(l.object),
      expected: p?.expected ?? 'unpredicted',
      actual: 'left',
      message: p
        ? `${what} was left, but the prediction said it ${p.expected === 'goes' ? 'would go' : 'would wait, then go'} (${p.evidence})`
        : `${what} was left, and the prediction did not name it`,
    });
  }
  for (const p of prediction.objects) {
    if ((p.expected !== 'hangs' && p.expected !== 'stays') || left.has(predictedId(p.object))) continue;
    if (stillThere(p.object) !== false) continue;
    const what = `${p.object.kind} ${p.object.namespace ? `${p.object.namespace}/` : ''}${p.object.name}`;
    out.push({
      object: p.object,
      expected: p.expected,
      actual: 'gone',
      message: `${what} is gone, but the prediction said it would ${p.expected === 'hangs' ? 'hang' : 'stay'} (${p.evidence})`,
    });
  }
  return out;
}

/**
 * Pure: the objects a teardown need not wait for, by `predictedId`: those the prediction says
 * hang, with the finalizers the snapshot saw. A wait looks at them once; one whose finalizers
 * differ from these (something changed since the snapshot) is awaited as usual.
 */
export function knownHangs(
  prediction: Prediction,
): Map<string, { readonly finalizers: readonly string[]; readonly evidence: string }> {
  return new Map(
    prediction.objects
      .filter((p) => p.expected === 'hangs')
      .map((p) => [predictedId(p.object), { finalizers: p.finalizers ?? [], evidence: p.evidence }]),
  );
}
