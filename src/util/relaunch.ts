import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * V8 flags kube-sweep runs with. `--max-semi-space-size=8` (MiB) caps V8's young generation:
 * without it V8 reserves about 100 MiB more than the inventory uses while parsing 1 MB list
 * pages, which put the peak over the 300 MB target (measured in bench/README.md).
 */
export const v8Flags: readonly string[] = ['--max-semi-space-size=8'];

/** Set in the relaunched process, so it does not relaunch again. */
export const relaunchedVariable = 'KUBE_SWEEP_RELAUNCHED';

/**
 * Runs this same script again under `process.execPath` with `flags` (V8 flags cannot be set
 * once the isolate runs, and an action cannot pass Node options: `runs.using: node24` starts
 * `node dist/index.js`). The child inherits stdio and the environment (INPUT_*, GITHUB_OUTPUT,
 * GITHUB_STATE, ...); SIGINT and SIGTERM (a cancelled job) are passed on to it.
 * @returns the child's exit code (128 + signal number when it was killed by a signal), or
 *   undefined when no relaunch is needed: this process is already the relaunched one, the
 *   flags are already in `process.execArgv`, or KUBE_SWEEP_RELAUNCH=false.
 */
export async function relaunchWithFlags(flags: readonly string[] = v8Flags): Promise<number | undefined> {
  const missing = flags.filter((f) => !process.execArgv.some((a) => a.split('=')[0] === f.split('=')[0]));
  if (
    process.env[relaunchedVariable] ||
    process.env.KUBE_SWEEP_RELAUNCH === 'false' ||
    missing.length === 0
  ) {
    return undefined;
  }
  const child = spawn(process.execPath, [...missing, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [relaunchedVariable]: '1' },
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
