/**
 * Child process of bench/inventory.ts for measurement (a), started the way the action starts:
 * it relaunches itself with kube-sweep's V8 flags (src/util/relaunch.ts, as src/index.ts does)
 * and the relaunched process runs bench/inventory-measure.ts, which prints the JSON line of
 * figures on stdout. This launcher then writes its own peak RSS to stderr as
 * `[launcher] maxRSS KiB <n>`, so both processes of a run are counted. bench/inventory.ts runs
 * it bundled with ncc, as dist/ is.
 */
import { relaunchWithFlags } from '../src/util/relaunch.js';

const code = await relaunchWithFlags();
if (code === undefined) {
  await import('./inventory-measure.js');
} else {
  process.stderr.write(`[launcher] maxRSS KiB ${process.resourceUsage().maxRSS}\n`);
  process.exitCode = code;
}
