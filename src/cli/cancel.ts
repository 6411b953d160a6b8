/**
 * Ctrl-C in the CLI, as the action's cancelled step (action/main.ts `sweep`): SIGINT or
 * SIGTERM stops starting work (no delete, no helm), stops running helm processes after their
 * grace (util/cancellation.ts), and the run ends with a report whose verdict is `error`, whose
 * `cancelled` section says what was done, and whose `error` says it in words
 * (report/cancelled.ts `cancelledMessage`); the process exits 130 (SIGINT) or 143 (SIGTERM).
 * The clean-ups of util/signal-cleanup.ts (the kubeconfig copy, a kind cluster) are held while
 * this runs: the run's normal path does them.
 */
import type { Report } from '../report/report.js';
import { cancelledMessage, progressRecorder, type ProgressRecorder } from '../report/cancelled.js';
import { cancelOnSignals, runnerTiming, type Cancellation } from '../util/cancellation.js';
import { holdSignalExit } from '../util/signal-cleanup.js';
import { reportHead } from '../execute.js';

/** What a cancellable run gets: the cancellation and the recorder to hand to `execute`. */
export interface CancellableRun {
  readonly cancellation: Cancellation;
  readonly progress: ProgressRecorder;
}

/**
 * Runs `run` with SIGINT/SIGTERM handled (see the module comment); `log` is told each step of
 * the cancellation. The report is the run's, or, when cancelled, the run's (if it ended within
 * the cancellation's unwind time) with verdict `error`, `cancelled` and `error` set.
 */
export async function runCancellable(
  mode: Report['mode'],
  log: (line: string) => void,
  run: (c: CancellableRun) => Promise<Report>,
): Promise<Report> {
  const started = Date.now();
  const progress = progressRecorder();
  const cancellation = cancelOnSignals(log, runnerTiming);
  const release = holdSignalExit();
  try {
    const running = run({ cancellation, progress });
    const report = await Promise.race([running, cancellation.writeNow.then(() => undefined)]);
    const cause = cancellation.cause();
    if (!cause) return report!;
    const cancelled = progress.cancelled(cause, started);
    const error = cancelledMessage(cancelled, mode);
    const base: Report = report ?? {
      ...reportHead(mode, { server: '', version: '', context: '' }),
      verdict: 'error',
      warnings: [],
    };
    return { ...base, verdict: 'error', error, cancelled };
  } finally {
    cancellation.dispose();
    release();
  }
}

/** Pure: the exit code of a cancelled CLI run (128 + the signal's number), else undefined. */
export function cancelledExitCode(report: Report): number | undefined {
  if (!report.cancelled) return undefined;
  return report.cancelled.signal === 'SIGINT' ? 130 : 143;
}
