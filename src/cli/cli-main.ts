import { main } from './index.js';

// A reader that goes away (`kube-sweep teardown ... | head -1`) must not stop a teardown halfway:
// writes to a closed pipe are dropped, the run finishes and its exit code still tells.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** The `kube-sweep` command in the relaunched process (see src/cli/bin.ts). */
process.exitCode = await main(
  process.argv.slice(2),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
