/**
 * The stage runner: one stage of the plan, its three steps in order (stage-custom-resources.ts,
 * stage-removal.ts, stage-wait.ts), with the namespaces its end frees (namespace-phase.ts).
 */
import type { PlannedStage } from '../plan/build-plan.js';
import { keptNamespaceOutcome, type namespaceScheduler } from './namespace-phase.js';
import { planNamespaceRemovals, type NamespaceRemoval } from './remove-with-namespace.js';
import { deleteCustomResourcesFirst, strandedReason } from './stage-custom-resources.js';
import { uninstallStage } from './stage-removal.js';
import { awaitStageObjects } from './stage-wait.js';
import type { StageContext } from './teardown-context.js';
import type { StageResult } from '../model/teardown-result.js';

/** Runs one stage: custom resources first (step 1), removal (step 2), the wait (step 3). */
export async function runStage(
  stage: PlannedStage,
  c: StageContext,
  namespaces: ReturnType<typeof namespaceScheduler>,
): Promise<StageResult> {
  const stageStart = c.clock.now();
  const first = await deleteCustomResourcesFirst(stage, c);
  const touching = namespaces.candidates(stage.index);
  const removals =
    c.options.uninstallMode === 'auto'
      ? planNamespaceRemovals(
          stage.releases.map((k) => c.byKey.get(k)!),
          touching,
          new Set(touching.keys()),
          c.ports.resources,
          new Set(stage.releases.filter((k) => strandedReason(c.byKey.get(k)!, first) !== undefined)),
          c.plan.scope.protection,
        )
      : new Map<string, NamespaceRemoval>();
  const uninstallStart = c.clock.now();
  const removed = await uninstallStage(stage, c, first, removals, namespaces.onReleaseDone(stage.index));
  const waitStart = c.clock.now();
  await namespaces.deleteFree(stage.index, true);
  const releases = removed.map((r) => keptNamespaceOutcome(r, removals.get(r.release), namespaces));
  const objects = await awaitStageObjects(stage, c, releases);
  for (const e of c.errors) c.ports.log(`could not check: ${e}`);
  const ended = c.clock.now();
  return {
    index: stage.index,
    releases,
    crdInstances: first.crdInstances,
    ...objects,
    errors: c.errors,
    startedAt: new Date(stageStart).toISOString(),
    endedAt: new Date(ended).toISOString(),
    durationMs: ended - stageStart,
    stepsMs: {
      crdInstances: uninstallStart - stageStart,
      uninstall: waitStart - uninstallStart,
      wait: ended - waitStart,
    },
  };
}
