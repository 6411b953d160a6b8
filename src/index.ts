import { relaunchWithFlags } from './util/relaunch.js';

/**
 * Entry of the action's main step (action.yml `runs.main`): relaunches itself once with
 * kube-sweep's V8 flags (src/util/relaunch.ts), and the relaunched process runs the step
 * (src/action-main.ts, loaded only there).
 */
const code = await relaunchWithFlags();
if (code === undefined) await import('./action-main.js');
else process.exitCode = code;
