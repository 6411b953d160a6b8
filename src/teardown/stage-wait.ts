/**
 * Step 3 of a stage: the wait until every object of the stage's manifests is gone (one look at
 * the objects of a release that was not removed), naming what is left.
 */
import type { PlannedStage } from '../plan/build-plan.js';
import { objectsToAwait } from './release-objects.js';
import { describeError, isFatal, type StageContext } from './teardown-context.js';
import type { Blocker, ReleaseOutcome, StageResult } from '../model/teardown-result.js';
import { waitUntilGone, type AwaitedObject } from './wait-gone.js';
import { lookBeforeWaiting, rememberWaitedOut } from './known-blockers.js';

/**
 * Step 3: wait until every object of the stage's manifests is gone; name what is left. Known
 * blockers unchanged since are looked at once, not awaited (known-blockers.ts); what the wait
 * leaves becomes known, so no later wait spends its budget on it again.
 */
export async function awaitStageObjects(
  stage: PlannedStage,
  c: StageContext,
  releases: readonly ReleaseOutcome[],
) {
  // Objects of a release that was not uninstalled will not go: look once, do not wait for them.
  const notGoing = new Set(releases.filter((r) => r.status !== 'uninstalled').map((r) => r.release));
  const awaited: AwaitedObject[] = [];
  const checkedOnce: AwaitedObject[] = [];
  const kept: StageResult['kept'][number][] = [];
  const unserved = new Set<string>();
  const unverifiable = new Set<string>();
  for (const key of stage.releases) {
    const o = objectsToAwait(c.byKey.get(key)!, c.ports.resources, c.options.failedGroupVersions);
    (notGoing.has(key) ? checkedOnce : awaited).push(...o.awaited);
    kept.push(...o.kept);
    o.unserved.forEach((k) => unserved.add(k));
    o.unverifiable.forEach((k) => unverifiable.add(k));
  }
  for (const k of unserved)
    c.ports.log(`${k} is no longer served (its CRD went before this stage); not awaited`);
  for (const k of unverifiable) c.ports.log(`${k} cannot be checked: its group-version failed discovery`);
  let remaining: Blocker[] = [];
  // A progress line when the count changes, else every 10 s: long waits stay readable.
  let lastLeft = -1;
  let lastLogged = 0;
  try {
    const look = await lookBeforeWaiting(awaited, c);
    c.skippedWaits?.push(...look.skipped);
    remaining = await waitUntilGone(c.ports.api, look.awaited, {
      timeoutMs: c.budget(),
      clock: c.clock,
      onWatchFailed: c.ports.log,
      heartbeat: { what: "the stage's objects", log: c.ports.log },
      onProgress: (left) => {
        const now = c.clock.now();
        if (left === 0 || (left === lastLeft && now - lastLogged < 10_000)) return;
        lastLeft = left;
        lastLogged = now;
        c.ports.log(`waiting for ${left} of ${look.awaited.length} objects to be gone`);
      },
    });
    rememberWaitedOut(remaining, c);
    if (look.awaited.length > 0 && remaining.length === 0)
      c.ports.log(`all ${look.awaited.length} awaited objects of the stage are gone`);
    remaining = [
      ...remaining,
      ...look.skipped.map(({ reason: _reason, ...b }) => b),
      ...(await waitUntilGone(c.ports.api, checkedOnce, { timeoutMs: 0, clock: c.clock })),
    ];
  } catch (error) {
    if (isFatal(error)) throw error;
    c.errors.push(`waiting for the stage's objects to be gone: ${describeError(error)}`);
  }
  for (const b of remaining) {
    c.ports.log(
      `still there after the stage: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}` +
        (b.finalizers.length ? ` finalizers [${b.finalizers.join(', ')}]` : '') +
        (b.deletionTimestamp ? ` deleting since ${b.deletionTimestamp}` : ' (not being deleted)'),
    );
  }
  return {
    remaining,
    kept,
    unservedKinds: [...unserved].sort(),
    unverifiableKinds: [...unverifiable].sort(),
  };
}
