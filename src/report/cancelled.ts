import { removalWords, type ReleaseOutcome } from '../model/teardown-result.js';
import type { CancelCause } from '../util/cancellation.js';

/**
 * The report's `cancelled` section: a run stopped by SIGINT or SIGTERM (a cancelled or timed
 * out step), and what it had done by then. Its verdict is `error`, and `error` says the same
 * in words (`cancelledMessage`).
 */
export interface CancelledRun {
  readonly signal: 'SIGINT' | 'SIGTERM';
  /** ms from the start of the run to the signal. */
  readonly afterMs: number;
  /** The log group that was running (e.g. `Stage 2/3: pr-1/app`); '' before the first. */
  readonly during: string;
  /** Releases removed before the run stopped (`namespace/name`, and how). */
  readonly releasesRemoved: readonly string[];
  /** Namespaces whose deletion the API server accepted before the run stopped. */
  readonly namespacesDeleted: readonly string[];
  /** Processes that were still running and were stopped with SIGTERM (e.g. `helm uninstall app --namespace pr-1`). */
  readonly processesStopped: readonly string[];
}

/** Records, as the run goes, what a cancellation report needs; the ports feed it. */
export interface ProgressRecorder {
  /** Wraps a log-group port so that the group running is known. */
  group(
    inner: <T>(title: string, fn: () => Promise<T>) => Promise<T>,
  ): <T>(title: string, fn: () => Promise<T>) => Promise<T>;
  /** A release's teardown outcome (teardown/teardown-context.ts `onReleaseDone`). */
  releaseDone(outcome: ReleaseOutcome): void;
  /** A request the API server answered with 2xx (cluster/cancellable-api.ts). */
  answered(req: { readonly method?: string; readonly path: string }): void;
  /** A process the stop signal ended (util/command.ts `cancellableRunner`), with the variables it was given. */
  stopped(file: string, args: readonly string[], env?: Readonly<Record<string, string>>): void;
  /** What was recorded, as the report's section for `cause` (the run started at `startedAt`, ms). */
  cancelled(cause: CancelCause, startedAt: number): CancelledRun;
}

const namespacePath = /^\/api\/v1\/namespaces\/([^/]+)$/;

/**
 * Pure: `helm uninstall app --namespace pr-1`: the program's name and its args without
 * `--kubeconfig <path>`, after the variables kube-sweep set for it (`env`) except
 * `HELM_DRIVER=secret`, Helm's default: `HELM_DRIVER=configmap helm uninstall ...`.
 */
export function commandText(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): string {
  const shown: string[] = [
    ...Object.entries(env)
      .filter(([k, v]) => !(k === 'HELM_DRIVER' && v === 'secret'))
      .map(([k, v]) => `${k}=${v}`),
    file.split('/').pop() ?? file,
  ];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--kubeconfig') i++;
    else shown.push(args[i]!);
  }
  return shown.join(' ');
}

/** A new, empty ProgressRecorder; `now` is the clock of the signal's `at` (ms since the epoch). */
export function progressRecorder(now: () => number = Date.now): ProgressRecorder {
  // Each log group entered, with when: `during` is the last one entered before the signal.
  const phases: { title: string; at: number }[] = [];
  const releases: string[] = [];
  const namespaces: string[] = [];
  const stopped: string[] = [];
  return {
    group: (inner) => (title, fn) =>
      inner(title, () => {
        phases.push({ title, at: now() });
        return fn();
      }),
    releaseDone: (outcome) => {
      if (outcome.status !== 'uninstalled') return;
      releases.push(`${outcome.release} (${removalWords(outcome)})`);
    },
    answered: (req) => {
      const name = namespacePath.exec(req.path)?.[1];
      if (req.method === 'DELETE' && name) namespaces.push(decodeURIComponent(name));
    },
    stopped: (file, args, env) => stopped.push(commandText(file, args, env)),
    cancelled: (cause, startedAt) => ({
      signal: cause.signal,
      afterMs: Math.max(0, cause.at - startedAt),
      during: phases.filter((p) => p.at <= cause.at).pop()?.title ?? '',
      releasesRemoved: [...releases],
      namespacesDeleted: [...new Set(namespaces)],
      processesStopped: [...stopped],
    }),
  };
}

function listed(items: readonly string[], max = 5): string {
  return items.slice(0, max).join(', ') + (items.length > max ? `, and ${items.length - max} more` : '');
}

/**
 * Pure: the report's `error` for a cancelled run: which signal, when, during what, what was
 * already done (releases removed, namespace deletions accepted), which running processes were
 * stopped, and that the rest was not done.
 * @param mode the run's mode (`teardown`, `scan`, ...)
 */
export function cancelledMessage(run: CancelledRun, mode: string): string {
  const done = [
    run.releasesRemoved.length
      ? `${run.releasesRemoved.length} release(s) removed (${listed(run.releasesRemoved)})`
      : '',
    run.namespacesDeleted.length
      ? `deletion of ${run.namespacesDeleted.length} namespace(s) requested (${listed(run.namespacesDeleted)})`
      : '',
  ].filter(Boolean);
  const stopped = run.processesStopped.length
    ? ` Stopped while running: ${listed(run.processesStopped)} (a release stopped while uninstalling may be left 'uninstalling').`
    : '';
  const rest =
    mode === 'teardown' ? 'the rest of the teardown and the scan for leftovers' : `the rest of the ${mode}`;
  return (
    `cancelled after ${Math.round(run.afterMs / 100) / 10} s by ${run.signal}` +
    `${run.during ? `, during '${run.during}'` : ', before any step began'}. ` +
    `Done before that: ${done.length ? done.join('; ') : 'nothing deleted'}.${stopped} ` +
    `Not done: ${rest}; run it again to finish.`
  );
}
