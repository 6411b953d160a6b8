/*
 * Cancellation by SIGINT/SIGTERM, timed for a GitHub Actions runner: a cancelled (or timed
 * out) step gets SIGINT, then SIGTERM 7.5 s later, then SIGKILL 2.5 s after that (the
 * runner's process invoker). Generic: knows no cluster and no Helm; the callers decide what
 * "no new work" means (cluster/cancellable-api.ts, util/command.ts `cancellableRunner`).
 */

/** The signals that cancel a run. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Which signal cancelled the run, and when (ms since the epoch). */
export interface CancelCause {
  readonly signal: StopSignal;
  readonly at: number;
}

/** Thrown (or returned as a reason) for work refused because the run was cancelled. */
export class CancelledError extends Error {
  constructor(readonly cancelCause: CancelCause) {
    super(`not started: kube-sweep was cancelled (${cancelCause.signal})`);
    this.name = 'CancelledError';
  }
}

/**
 * The timing, in ms. Defaults (`runnerTiming`): running processes (helm) may go on for 5 s
 * after SIGINT, then get SIGTERM; 1 s after that the report is written whatever still runs:
 * 6 s after SIGINT, before the runner's SIGTERM at 7.5 s. A SIGTERM (first or second) stops
 * the processes at once, and the report follows 1 s later, within the 2.5 s before SIGKILL.
 */
export interface CancellationTiming {
  /** After SIGINT, how long running processes may go on before they are stopped. */
  readonly processGraceMs: number;
  /** After the processes were stopped, how long the run may take to unwind before the report is written anyway. */
  readonly unwindMs: number;
}

/** The timing for a GitHub runner (SIGINT, SIGTERM 7.5 s later, SIGKILL 2.5 s after that). */
export const runnerTiming: CancellationTiming = { processGraceMs: 5000, unwindMs: 1000 };

/** A run's cancellation state; one per process. */
export interface Cancellation {
  /** Aborted (reason: a CancelledError) at the first SIGINT or SIGTERM: start nothing new. */
  readonly signal: AbortSignal;
  /** Aborted when running processes must stop: at SIGTERM, or `processGraceMs` after SIGINT. */
  readonly stopProcesses: AbortSignal;
  /** Resolves `unwindMs` after `stopProcesses`: the report must be written now. Never rejects. */
  readonly writeNow: Promise<void>;
  /** The signal that cancelled the run, or undefined. */
  cause(): CancelCause | undefined;
  /** Removes the signal handlers and timers (the run ended). */
  dispose(): void;
}

/**
 * Installs SIGINT and SIGTERM handlers on `target` (the process) that cancel the run instead
 * of ending the process: the first signal aborts `signal`; SIGTERM, or `processGraceMs` after
 * SIGINT, aborts `stopProcesses`; `unwindMs` later `writeNow` resolves. A repeated SIGINT (a
 * terminal's Ctrl-C reaches the relaunched process twice: directly and through the launcher)
 * changes nothing. The timers are not unref'd: the process lives until the report is written.
 * @param log told each step, e.g. `SIGINT: cancelling (...)`.
 */
export function cancelOnSignals(
  log: (line: string) => void,
  timing: CancellationTiming = runnerTiming,
  target: Pick<NodeJS.Process, 'on' | 'off'> = process,
  now: () => number = Date.now,
): Cancellation {
  const first = new AbortController();
  const stop = new AbortController();
  let cause: CancelCause | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let writeTimer: NodeJS.Timeout | undefined;
  let resolveWrite: () => void = () => {};
  const writeNow = new Promise<void>((resolve) => (resolveWrite = resolve));
  const stopNow = (why: string) => {
    if (stop.signal.aborted) return;
    clearTimeout(graceTimer);
    log(
      `${why}: stopping the processes still running; the report is written in ${timing.unwindMs / 1000} s at the latest`,
    );
    stop.abort(first.signal.reason);
    writeTimer = setTimeout(resolveWrite, timing.unwindMs);
  };
  const onSignal = (signal: StopSignal) => {
    if (!cause) {
      cause = { signal, at: now() };
      log(
        `${signal}: cancelling: nothing new is started (no delete, no helm)` +
          (signal === 'SIGINT'
            ? `; running helm processes may finish for ${timing.processGraceMs / 1000} s`
            : ''),
      );
      first.abort(new CancelledError(cause));
      if (signal === 'SIGINT')
        graceTimer = setTimeout(
          () => stopNow(`${timing.processGraceMs / 1000} s after SIGINT`),
          timing.processGraceMs,
        );
    }
    if (signal === 'SIGTERM') stopNow('SIGTERM');
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  target.on('SIGINT', onInt);
  target.on('SIGTERM', onTerm);
  return {
    signal: first.signal,
    stopProcesses: stop.signal,
    writeNow,
    cause: () => cause,
    dispose: () => {
      target.off('SIGINT', onInt);
      target.off('SIGTERM', onTerm);
      clearTimeout(graceTimer);
      clearTimeout(writeTimer);
    },
  };
}
