/**
 * Blockers a teardown knows before it waits: objects the prediction says hang (prediction.ts
 * `knownHangs`), and objects an earlier wait of the same teardown already waited out. A wait
 * looks at each of them once and does not spend its budget on one whose finalizers are those
 * known (nothing changed since): it goes on with what can still go. `await-predicted-hangs:
 * true` (TeardownOptions.awaitKnownHangs) keeps the old patience.
 */
import type { StageContext } from './teardown-context.js';
import { objectId as predictedId, waitUntilGone, type AwaitedObject } from './wait-gone.js';
import type { Blocker, KnownBlocker, SkippedWait } from '../model/teardown-result.js';

export type { KnownBlocker, SkippedWait };

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/**
 * Before a wait: looks once at the awaited objects that are known blockers (`c.known`). One
 * still there with the known finalizers is not awaited (returned in `skipped`, with why, and
 * logged); one whose finalizers changed, and every other object, is awaited (`awaited`). One
 * already gone is neither. With `awaitKnownHangs`, or no known blocker among them, nothing is
 * looked at and every object is awaited.
 * @throws what the one look throws (the caller records it as it records a failed wait).
 */
export async function lookBeforeWaiting(
  objects: readonly AwaitedObject[],
  c: StageContext,
): Promise<{ awaited: AwaitedObject[]; skipped: SkippedWait[] }> {
  const known = c.known;
  if (c.options.awaitKnownHangs || !known || known.size === 0) return { awaited: [...objects], skipped: [] };
  const candidates = objects.filter((o) => known.has(predictedId(o)));
  if (candidates.length === 0) return { awaited: [...objects], skipped: [] };
  const present = await waitUntilGone(c.ports.api, candidates, { timeoutMs: 0, clock: c.clock });
  const skipped: SkippedWait[] = [];
  const changed = new Set<string>();
  for (const b of present) {
    const k = known.get(predictedId(b))!;
    if (sameSet(k.finalizers, b.finalizers)) {
      const reason = `${k.reason}; unchanged since (finalizers [${b.finalizers.join(', ')}]): not awaited`;
      c.ports.log(`not waiting for ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}: ${reason}`);
      skipped.push({ ...b, reason });
    } else changed.add(predictedId(b));
  }
  const skippedIds = new Set(skipped.map(predictedId));
  const candidateIds = new Set(candidates.map(predictedId));
  return {
    // Gone ones are not awaited again; changed ones and the rest are.
    awaited: objects.filter(
      (o) =>
        !candidateIds.has(predictedId(o)) || (changed.has(predictedId(o)) && !skippedIds.has(predictedId(o))),
    ),
    skipped,
  };
}

/**
 * After a wait that used its whole budget: what it left that is being deleted and held by
 * finalizers becomes known, so that no later wait
 * of the teardown (a later stage, the namespace wait) spends its budget on the same objects.
 */
export function rememberWaitedOut(remaining: readonly Blocker[], c: StageContext): void {
  if (!c.known) return;
  for (const b of remaining)
    if (b.deletionTimestamp !== undefined && b.finalizers.length > 0 && !c.known.has(predictedId(b)))
      c.known.set(predictedId(b), {
        finalizers: b.finalizers,
        reason: `already awaited for a whole stage budget in stage ${c.stageIndex + 1}`,
      });
}

/**
 * Pure: the namespaces the namespace wait need not wait for: those holding an object a wait
 * skipped or waited out (`blockers`) that was still there, each with why. A namespace holding
 * such an object is not gone before it is.
 */
export function namespacesHeldByKnownBlockers(
  blockers: readonly (Blocker & { readonly reason?: string })[],
  awaitKnownHangs: boolean,
): Map<string, string> {
  const out = new Map<string, string>();
  if (awaitKnownHangs) return out;
  for (const b of blockers) {
    if (!b.namespace) continue;
    const what = `${b.kind} ${b.name}`;
    out.set(b.namespace, out.has(b.namespace) ? `${out.get(b.namespace)}, ${what}` : `holds ${what}`);
  }
  for (const [n, why] of out) out.set(n, `${why}, known not to go: not awaited`);
  return out;
}
