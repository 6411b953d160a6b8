import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * V8 flags kube-sweep runs with. `--max-semi-space-size=8` (MiB) caps V8's young generation:
 * without it V8 reserves about 100 MiB more than the inventory uses while parsing 1 MB list
 * pages, which put the peak over the 300 MB target (measured in bench/README.md).
 * `--heap-growing-percent=100` lets the old generation grow to twice what was live after a full
 * collection before the next one, instead of up to four times: the parsed list pages are
 * garbage as soon as their items are kept, and without it they piled up to about 50 MiB more
 * peak memory at 50,000 objects (issue 26, bench/README.md), at no measurable cost in time.
 */
export const v8Flags: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=100'];

/**
 * Pure: why this Node cannot run kube-sweep, or undefined when it can. The bundle uses Node 24
 * APIs (action.yml `runs.using: node24`); on an older Node it would fail deep inside with a
 * TypeError, so the entry points check first.
 * @param version `process.versions.node`, e.g. `24.22.3`
 */
export function unsupportedNode(version: string, minimumMajor = 24): string | undefined {
  const major = Number(version.split('.')[0]);
  return major >= minimumMajor
    ? undefined
    : `kube-sweep needs Node ${minimumMajor} or newer, and this is Node ${version}; ` +
        `put Node ${minimumMajor} first on PATH (in this repository: export PATH="$(bash scripts/node24.sh):$PATH")`;
}

/** Set in the relaunched process to the launcher's pid, so it does not relaunch again. */
export const relaunchedVariable = 'KUBE_SWEEP_RELAUNCHED';

/**
 * Runs this same script again under `process.execPath` with `flags` (V8 flags cannot be set
 * once the isolate runs, and an action cannot pass Node options: `runs.using: node24` starts
 * `node dist/index.js`). The child inherits stdio and the environment (INPUT_*, GITHUB_OUTPUT,
 * GITHUB_STATE, ...); SIGINT and SIGTERM (a cancelled job) are passed on to it.
 * In the relaunched process it returns undefined and watches the launcher: when the launcher
 * dies without passing a signal on (SIGKILL, the OOM killer), this process is re-parented, and
 * it stops itself with SIGTERM rather than go on deleting with nobody to report to.
 * @returns the child's exit code (128 + signal number when it was killed by a signal), or
 *   undefined when no relaunch is needed: this process is already the relaunched one, the
 *   flags are already in `process.execArgv`, or KUBE_SWEEP_RELAUNCH=false.
 */
export async function relaunchWithFlags(flags: readonly string[] = v8Flags): Promise<number | undefined> {
  const launcher = Number(process.env[relaunchedVariable]);
  if (launcher > 0) {
    stopWithLauncher(launcher);
    return undefined;
  }
  const missing = flags.filter((f) => !process.execArgv.some((a) => a.split('=')[0] === f.split('=')[0]));
  if (process.env.KUBE_SWEEP_RELAUNCH === 'false' || missing.length === 0) return undefined;
  const child = spawn(process.execPath, [...missing, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [relaunchedVariable]: String(process.pid) },
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)),
      );
    });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}

/** Polls (every second, unref'd) that the parent is still `launcher`; SIGTERMs itself if not. */
function stopWithLauncher(launcher: number): void {
  setInterval(() => {
    if (process.ppid !== launcher) process.kill(process.pid, 'SIGTERM');
  }, 1000).unref();
}
