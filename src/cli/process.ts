import { escapeLogStream } from '../util/log-escape.js';
import { main } from './index.js';

/**
 * Runs the `kube-sweep` command in this process with its argv, stdout and stderr: shared by the
 * npm entry (cli-main.ts, after the relaunch) and the single executable (sea.ts).
 * A reader that goes away (`kube-sweep teardown ... | head -1`) must not stop a teardown halfway:
 * writes to a closed pipe are dropped, the run finishes and its exit code still tells. Every
 * write passes `escapeLogStream`: no control, bidi or zero-width character from cluster text
 * reaches the terminal raw, and no line of cluster text can start a workflow command.
 * @returns the exit code (0 done, 1 leftovers, 2 could not run; see main in index.ts).
 */
export async function runCliProcess(): Promise<number> {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  return main(
    process.argv.slice(2),
    // Both streams reach the runner log when the CLI runs in a workflow step.
    (s) => process.stdout.write(escapeLogStream(s)),
    (s) => process.stderr.write(escapeLogStream(s)),
  );
}
