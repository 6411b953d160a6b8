/**
 * Progress you can watch while a teardown waits: a line at least every `progressEveryMs` (10 s)
 * for as long as a wait lasts, whether or not anything changed (a watch can sit silent for its
 * whole 60 s window). Each line says what is awaited, how many are left of how many, the
 * slowest one (the oldest deletion) with its finalizers, and the time spent of the budget:
 *
 *   waiting on the stage's objects: 1 of 3 left; slowest Widget pr-1/w1, finalizers
 *   [example.com/cleanup], deleting since 2026-01-01T00:00:00Z; 20s of 300s
 *
 * The lines go to the teardown's log port: core.info in the action, stderr in the CLI. Real
 * time (setInterval), not the wait's injected clock: the line is for a person watching.
 */
import { showInvisible } from '../util/show-invisible.js';

/** How often a waiting teardown says where it is (ms). */
export const progressEveryMs = 10_000;

/** One awaited thing as a progress line names it. */
export interface WaitingOn {
  /** `Widget pr-1/w1`, `namespace pr-1`. */
  readonly label: string;
  readonly finalizers: readonly string[];
  /** RFC 3339; absent when its deletion was not (yet) seen. */
  readonly deletionTimestamp?: string;
  /**
   * What holds it, as the cluster says (a namespace's NamespaceFinalizersRemaining condition:
   * "Some content in the namespace has finalizers remaining: example.com/cleanup in 1 resource
   * instances"); absent when nothing says.
   */
  readonly heldBy?: string;
}

/** What a wait reports to its heartbeat: the things still awaited, out of how many. */
export interface WaitState {
  readonly left: readonly WaitingOn[];
  readonly total: number;
}

/**
 * Pure: the slowest of what is left: the oldest deletionTimestamp (the one waited on longest),
 * else the first. Undefined when nothing is left.
 */
export function slowestOf(left: readonly WaitingOn[]): WaitingOn | undefined {
  const deleting = left.filter((o) => o.deletionTimestamp !== undefined);
  if (deleting.length === 0) return left[0];
  return deleting.reduce((a, b) =>
    Date.parse(b.deletionTimestamp!) < Date.parse(a.deletionTimestamp!) ? b : a,
  );
}

/**
 * Pure: one progress line (see the module comment). Values read from the cluster (names,
 * finalizers) pass `showInvisible`, so none can break the line or forge another.
 */
export function progressLine(what: string, state: WaitState, elapsedMs: number, budgetMs: number): string {
  const slowest = slowestOf(state.left);
  const about = slowest
    ? `; slowest ${slowest.label}` +
      (slowest.finalizers.length ? `, finalizers [${slowest.finalizers.join(', ')}]` : ', no finalizers') +
      (slowest.deletionTimestamp ? `, deleting since ${slowest.deletionTimestamp}` : '') +
      (slowest.heldBy ? ` (${slowest.heldBy})` : '')
    : '';
  const secs = (ms: number) => `${Math.round(ms / 1000)}s`;
  return showInvisible(
    `waiting on ${what}: ${state.left.length} of ${state.total} left${about}; ${secs(elapsedMs)} of ${secs(budgetMs)}`,
  );
}

/**
 * Starts a heartbeat: every `everyMs` (default `progressEveryMs`) logs `progressLine` of
 * `read()`, unless nothing is left. The timer does not keep the process alive.
 * @returns stop(): ends the heartbeat (call it in a finally).
 */
export function startHeartbeat(options: {
  readonly what: string;
  readonly budgetMs: number;
  readonly log: (line: string) => void;
  readonly read: () => WaitState;
  readonly everyMs?: number;
}): () => void {
  const started = Date.now();
  const timer = setInterval(() => {
    const state = options.read();
    if (state.left.length > 0)
      options.log(progressLine(options.what, state, Date.now() - started, options.budgetMs));
  }, options.everyMs ?? progressEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Pure: a Blocker-shaped object (kind, namespace, name, finalizers) as a `WaitingOn`. */
export function waitingOnObject(o: {
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly finalizers: readonly string[];
  readonly deletionTimestamp?: string;
}): WaitingOn {
  return {
    label: `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`,
    finalizers: o.finalizers,
    ...(o.deletionTimestamp ? { deletionTimestamp: o.deletionTimestamp } : {}),
  };
}
