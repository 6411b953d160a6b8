/**
 * The teardown: stage after stage (run-stage.ts), each namespace deleted as soon as it is free
 * (namespace-phase.ts), then the wait for the namespaces and the look for what Helm hooks left.
 */
import { describeRefusal, type RefusedRequest } from '../kube/refusal.js';
import type { HelmPort } from '../helm/helm-cli.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import { inFlight } from '../util/in-flight.js';
import { systemClock, type Clock } from '../util/wait.js';
import { findHookLeftovers, hookId } from './hook-leftovers.js';
import { namespaceScheduler, namespaceWaitOf } from './namespace-phase.js';
import { awaitNamespacesGone } from './namespaces.js';
import { runStage } from './run-stage.js';
import type { StageContext, TeardownOptions, TeardownPorts } from './teardown-context.js';
import type {
  NamespaceOutcome,
  ReleaseOutcome,
  StageResult,
  TeardownResult,
} from '../model/teardown-result.js';
import type { NamespaceDeletion } from './namespaces.js';

/**
 * Thrown by `runTeardown` when something stops it after it began (the cluster stopped
 * answering, a programming error): `partial` is what it had done by then (every stage
 * finished, the releases of the stage under way that had an outcome, each namespace whose
 * deletion was asked, every refusal), so the report still says what was deleted. `cause` is
 * the error that stopped it; the message is its message.
 */
export class TeardownInterruptedError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly partial: TeardownResult,
  ) {
    super((cause as Error)?.message || String(cause));
    this.name = 'TeardownInterruptedError';
  }
}

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
 * A request the API server refuses (RBAC, admission, quota) is recorded in `refusals` (and in
 * the namespace's or release's outcome) and the teardown goes on. Every `helm uninstall` it
 * started has ended when it returns or throws (`helmProcesses`).
 * Protected namespaces are never touched; nothing outside the plan is deleted.
 * @throws TeardownInterruptedError, with what was done by then, when anything stops it (a
 *   ClusterAccessError: the cluster stopped answering, unreachable or TLS, is its `cause`)
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

/**
 * What a teardown has done so far, updated as it goes: what `TeardownInterruptedError` carries
 * when something stops it.
 */
interface TeardownProgress {
  readonly plan: TeardownPlan;
  readonly options: TeardownOptions;
  /** The ports, with `onReleaseDone` also recording into `current`. */
  readonly ports: TeardownPorts;
  readonly clock: Clock;
  readonly started: number;
  readonly deadline: number;
  readonly refusals: RefusedRequest[];
  readonly namespaces: ReturnType<typeof namespaceScheduler>;
  readonly stages: StageResult[];
  /** The stage under way (one at most): the releases with an outcome, and its failed requests. */
  readonly current: Map<number, { startedAt: number; releases: ReleaseOutcome[]; errors: string[] }>;
  /** Each namespace's outcome, once the namespace wait has ended (one list at most). */
  readonly waited: NamespaceOutcome[][];
  readonly errors: string[];
}

/** `runTeardown` with its helm processes tracked. */
async function tearDown(
  plan: TeardownPlan,
  options: TeardownOptions,
  ports: TeardownPorts,
): Promise<TeardownResult> {
  const clock = ports.clock ?? systemClock;
  const started = clock.now();
  const refusals: RefusedRequest[] = [];
  const recording: TeardownPorts = {
    ...ports,
    onReleaseDone: (r) => {
      for (const stage of p.current.values()) stage.releases.push(r);
      ports.onReleaseDone?.(r);
    },
  };
  const p: TeardownProgress = {
    plan,
    options,
    ports: recording,
    clock,
    started,
    deadline: started + options.timeoutMs,
    refusals,
    namespaces: namespaceScheduler(plan, recording, clock, refusals),
    stages: [],
    current: new Map(),
    waited: [],
    errors: [],
  };
  try {
    return await stagesThenNamespaces(p);
  } catch (error) {
    throw new TeardownInterruptedError(error, resultSoFar(p, error));
  }
}

/** The steps of a teardown in order: the stages, then the namespace wait, then the hooks' objects. */
async function stagesThenNamespaces(p: TeardownProgress): Promise<TeardownResult> {
  const { plan, options, ports, clock, namespaces, refusals, errors } = p;
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  await namespaces.deleteFree(-1, true);
  for (const stage of plan.stages) {
    const title = `Stage ${stage.index + 1}/${plan.stages.length}: ${stage.releases.join(', ')}`;
    const start = clock.now();
    const budget = () => Math.max(0, Math.min(start + options.stageTimeoutMs, p.deadline) - clock.now());
    const c: StageContext = { plan, options, ports, clock, budget, byKey, errors: [], refusals };
    p.current.set(stage.index, { startedAt: start, releases: [], errors: c.errors });
    p.stages.push(await ports.group(title, () => runStage(stage, c, namespaces)));
    p.current.delete(stage.index);
  }
  for (const [ns, release] of namespaces.keepFor) {
    if (plan.namespacesToDelete.includes(ns))
      ports.log(`not deleting namespace ${ns}: release ${release} was not uninstalled`);
  }
  const toDelete = namespaces.deletions.flatMap((d) => d.names);
  const namespaceWait = namespaceWaitOf(clock.now(), options.stageTimeoutMs, p.deadline);
  const outcomes =
    toDelete.length === 0
      ? []
      : await ports.group(`Deleting namespaces: ${toDelete.join(', ')}`, () =>
          awaitNamespacesGone(ports.api, namespaces.deletions, {
            timeoutMs: Math.max(0, namespaceWait.endsAt - clock.now()),
            cutShort: namespaceWait.cutShort,
            clock,
            log: ports.log,
          }),
        );
  p.waited.push(outcomes);
  errors.push(...namespaces.hookErrors.splice(0));
  const later = await ports.group('Checking for objects left by Helm hooks', () =>
    findHookLeftovers(plan.releases, ports, clock, errors),
  );
  const seen = new Set(namespaces.hookLeftovers.map(hookId));
  const hookLeftovers = [...namespaces.hookLeftovers, ...later.filter((b) => !seen.has(hookId(b)))];
  return {
    stages: p.stages,
    namespaces: outcomes,
    hookLeftovers,
    errors,
    refusals,
    durationMs: clock.now() - p.started,
    timedOut: clock.now() >= p.deadline,
  };
}

/** What a teardown that `error` stopped had done (`TeardownInterruptedError.partial`). */
function resultSoFar(p: TeardownProgress, error: unknown): TeardownResult {
  const ended = p.clock.now();
  return {
    stages: [...p.stages, ...[...p.current].map(([index, s]) => stageSoFar({ index, ...s }, ended))],
    namespaces: p.waited[0] ?? namespacesSoFar(p.namespaces.deletions),
    hookLeftovers: p.namespaces.hookLeftovers,
    errors: [
      ...p.namespaces.hookErrors,
      ...p.errors,
      `stopped: ${(error as Error)?.message || String(error)}`,
    ],
    refusals: p.refusals,
    durationMs: ended - p.started,
    timedOut: ended >= p.deadline,
  };
}

/** Pure: the result of a stage that was stopped in its course: the releases with an outcome by then. */
function stageSoFar(
  s: { index: number; startedAt: number; releases: readonly ReleaseOutcome[]; errors: readonly string[] },
  ended: number,
): StageResult {
  return {
    index: s.index,
    releases: [...s.releases],
    crdInstances: [],
    remaining: [],
    kept: [],
    unservedKinds: [],
    unverifiableKinds: [],
    errors: [...s.errors, 'stopped before the stage ended: its objects were not checked'],
    startedAt: new Date(s.startedAt).toISOString(),
    endedAt: new Date(ended).toISOString(),
    durationMs: ended - s.startedAt,
    stepsMs: { crdInstances: 0, uninstall: 0, wait: 0 },
  };
}

/**
 * Pure: each namespace whose deletion was asked, when the teardown stopped before its wait
 * ended: `absent`, `refused` (with the server's words), `protected` (the guard), else `not-waited` with a message
 * saying its deletion was asked and never confirmed.
 */
function namespacesSoFar(deletions: readonly NamespaceDeletion[]): NamespaceOutcome[] {
  const none = { durationMs: 0, blockingConditions: [], finalizers: [], metadataFinalizers: [] };
  return deletions.flatMap((d) =>
    d.names.map((name): NamespaceOutcome => {
      if (d.absent.has(name)) return { name, status: 'absent', ...none };
      const refused = d.refused.get(name);
      if (refused) return { name, status: 'refused', message: describeRefusal(refused), ...none };
      const guarded = d.guarded.get(name);
      if (guarded !== undefined)
        return {
          name,
          status: 'protected',
          message: `protected (${guarded}) when read just before its DELETE`,
          ...none,
        };
      return {
        name,
        status: 'not-waited',
        message: 'deletion requested; the run stopped before it was seen gone',
        ...none,
      };
    }),
  );
}
