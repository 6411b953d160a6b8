/**
 * The teardown: stage after stage (run-stage.ts), each namespace deleted as soon as it is free
 * (namespace-phase.ts), then the wait for the namespaces and the look for what Helm hooks left.
 */
import type { RefusedRequest } from '../cluster/refusal.js';
import type { HelmPort } from '../helm/helm-cli.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import { inFlight } from '../util/in-flight.js';
import { systemClock } from '../util/wait.js';
import { findHookLeftovers, hookId } from './hook-leftovers.js';
import { namespaceScheduler, namespaceWaitOf } from './namespace-phase.js';
import { awaitNamespacesGone } from './namespaces.js';
import { runStage } from './run-stage.js';
import type { StageContext, TeardownOptions, TeardownPorts } from './teardown-context.js';
import type { StageResult, TeardownResult } from './teardown-result.js';
import { namespacesHeldByKnownBlockers, type KnownBlocker } from './known-blockers.js';
import type { Blocker } from './wait-gone.js';

/** Pure: what a stage's waits left (its CRD instances and its manifests' objects still there). */
const waitedOut = (s: StageResult): Blocker[] =>
  [...s.crdInstances.flatMap((x) => x.remaining), ...s.remaining].filter(
    (b) => b.deletionTimestamp !== undefined && b.finalizers.length > 0,
  );

/**
 * Executes a teardown plan, stage by stage: custom resources first while their controller
 * still runs (step 1); each release removed (step 2): with its namespaces when it has no
 * delete hooks and its record and namespaced objects are in namespaces this stage's end
 * deletes (`uninstallMode: auto`, `removalWithNamespaces`), else by `helm uninstall`; then a
 * wait until the manifests' objects are gone (step 3). A namespace is deleted as soon as
 * nothing in it waits on the rest, and emptied at once (`deleteNamespaceContent`). A stage
 * that times out or cannot check something is recorded (which object, which finalizer, which
 * request) and the next stage still runs, so as much as possible is cleaned. Then the
 * namespaces are awaited (namespaces.ts), and objects left by Helm hooks are looked for.
 * Known blockers (`options.knownHangs`, and what a wait waited out) are awaited once, never
 * once per stage: a wait looks at one whose finalizers have not changed and goes on
 * (known-blockers.ts), and a namespace that holds one is looked at, not awaited.
 * A request the API server refuses (RBAC, admission, quota) is recorded in `refusals` (and in
 * the namespace's or release's outcome) and the teardown goes on. Every `helm uninstall` it
 * started has ended when it returns or throws (`helmProcesses`).
 * Protected namespaces are never touched; nothing outside the plan is deleted.
 * @throws ClusterAccessError when the cluster stops answering (unreachable, TLS)
 */
export async function runTeardown(
  plan: TeardownPlan,
  options: TeardownOptions,
  ports: TeardownPorts,
): Promise<TeardownResult> {
  const helmProcesses = ports.helmProcesses ?? inFlight();
  const helm: HelmPort = {
    uninstall: (release, o) => helmProcesses.track(ports.helm.uninstall(release, o)),
    version: () => ports.helm.version(),
  };
  try {
    return await tearDown(plan, options, { ...ports, helm });
  } finally {
    // Also when a stage threw: no helm process outlives the teardown (nor the kubeconfig it reads).
    if (helmProcesses.size > 0) ports.log(`waiting for ${helmProcesses.size} helm process(es) to end`);
    await helmProcesses.settle();
  }
}

/** `runTeardown` with its helm processes tracked. */
async function tearDown(
  plan: TeardownPlan,
  options: TeardownOptions,
  ports: TeardownPorts,
): Promise<TeardownResult> {
  const clock = ports.clock ?? systemClock;
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const budgetFrom = (start: number) => () =>
    Math.max(0, Math.min(start + options.stageTimeoutMs, deadline) - clock.now());
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const refusals: RefusedRequest[] = [];
  const namespaces = namespaceScheduler(plan, ports, clock, refusals);
  const stages: StageResult[] = [];
  // Known blockers (known-blockers.ts): the predicted hangs, then what each wait waited out.
  const known = new Map<string, KnownBlocker>(
    [...(options.knownHangs ?? [])].map(([id, k]) => [
      id,
      { finalizers: k.finalizers, reason: `predicted to hang (${k.evidence})` },
    ]),
  );
  await namespaces.deleteFree(-1, true);
  for (const stage of plan.stages) {
    const title = `Stage ${stage.index + 1}/${plan.stages.length}: ${stage.releases.join(', ')}`;
    const budget = budgetFrom(clock.now());
    const c: StageContext = {
      plan,
      options,
      ports,
      clock,
      budget,
      byKey,
      errors: [],
      refusals,
      stageIndex: stage.index,
      known,
      skippedWaits: [],
    };
    stages.push(await ports.group(title, () => runStage(stage, c, namespaces)));
  }
  for (const [ns, release] of namespaces.keepFor) {
    if (plan.namespacesToDelete.includes(ns))
      ports.log(`not deleting namespace ${ns}: release ${release} was not uninstalled`);
  }
  const toDelete = namespaces.deletions.flatMap((d) => d.names);
  const namespaceWait = namespaceWaitOf(clock.now(), options.stageTimeoutMs, deadline);
  const outcomes =
    toDelete.length === 0
      ? []
      : await ports.group(`Deleting namespaces: ${toDelete.join(', ')}`, () =>
          awaitNamespacesGone(ports.api, namespaces.deletions, {
            lookOnce: namespacesHeldByKnownBlockers(
              stages.flatMap((s) => [...(s.waitsSkipped ?? []), ...waitedOut(s)]),
              options.awaitKnownHangs === true,
            ),
            timeoutMs: Math.max(0, namespaceWait.endsAt - clock.now()),
            cutShort: namespaceWait.cutShort,
            clock,
            log: ports.log,
          }),
        );
  const errors: string[] = [...namespaces.hookErrors];
  const later = await ports.group('Checking for objects left by Helm hooks', () =>
    findHookLeftovers(plan.releases, ports, clock, errors),
  );
  const seen = new Set(namespaces.hookLeftovers.map(hookId));
  const hookLeftovers = [...namespaces.hookLeftovers, ...later.filter((b) => !seen.has(hookId(b)))];
  return {
    stages,
    namespaces: outcomes,
    hookLeftovers,
    errors,
    refusals,
    durationMs: clock.now() - started,
    timedOut: clock.now() >= deadline,
  };
}
