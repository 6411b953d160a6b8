import { runCliProcess } from './process.js';

/** The `kube-sweep` command in the relaunched process (see src/cli/bin.ts). */
process.exitCode = await runCliProcess();
