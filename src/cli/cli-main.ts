import { main } from './index.js';

/** The `kube-sweep` command in the relaunched process (see src/cli/bin.ts). */
process.exitCode = await main(
  process.argv.slice(2),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
