import { relaunchWithFlags, unsupportedNode } from './util/relaunch.js';

/**
 * Entry of the action's main step (action.yml `runs.main`): relaunches itself once with
 * kube-sweep's V8 flags (src/util/relaunch.ts), and the relaunched process runs the step
 * (src/action-main.ts, loaded only there).
 */
const tooOld = unsupportedNode(process.versions.node);
if (tooOld) {
  // A workflow command, as @actions/core's setFailed writes it (not loaded yet here).
  process.stdout.write(`::error::${tooOld}\n`);
  process.exitCode = 1;
} else {
  const code = await relaunchWithFlags();
  if (code === undefined) await import('./action-main.js');
  else process.exitCode = code;
}
