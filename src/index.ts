import { cancelOnSignals } from './util/cancellation.js';
import { relaunchWithFlags, unsupportedNode } from './util/relaunch.js';
import { appendOutput, appendSummary } from './util/runner-files.js';

/**
 * Entry of the action's main step (action.yml `runs.main`): relaunches itself once with
 * kube-sweep's V8 flags (src/util/relaunch.ts; the launcher passes SIGINT and SIGTERM on and
 * waits for the relaunched process), and the relaunched process runs the step
 * (src/action-main.ts, loaded only there) with SIGINT/SIGTERM handlers installed before
 * anything else (util/cancellation.ts), so that a cancelled step still writes its report,
 * outputs and summary. On a Node older than 24 it writes the error, the `verdict` output
 * `error` and a summary line with nothing newer than Node 18 (util/runner-files.ts).
 */
const tooOld = unsupportedNode(process.versions.node);
if (tooOld) {
  // A workflow command, as @actions/core's setFailed writes it (not loaded yet here), and the
  // `verdict` output a later step reads: `error`, never empty.
  process.stdout.write(`::error::${tooOld}\n`);
  appendOutput(process.env, 'verdict', 'error');
  appendSummary(process.env, `## ❌ kube-sweep: error\n\n${tooOld}\n`);
  process.exitCode = 1;
} else {
  const code = await relaunchWithFlags();
  if (code === undefined) {
    const cancellation = cancelOnSignals((line) => process.stdout.write(`${line}\n`));
    const { runActionStep } = await import('./action-main.js');
    await runActionStep(cancellation);
  } else process.exitCode = code;
}
