import { runCliProcess } from './process.js';

/** The `kube-sweep` command in the relaunched process (see src/cli/bin.ts). */
const code = await runCliProcess();
// A cancelled run (SIGINT 130, SIGTERM 143) has reported what it did and cleaned up: it ends
// now, as the signal asked. A process it started and could not stop (an exec credential plugin
// still waiting for it) must not keep it alive.
if (code === 130 || code === 143) process.exit(code);
process.exitCode = code;
