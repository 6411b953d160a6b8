/**
 * Child process of bench/inventory.ts for measurement (a), started the way the action starts:
 * it relaunches itself with kube-sweep's V8 flags (src/util/relaunch.ts, as src/index.ts does)
 * and the relaunched process runs bench/inventory-measure.ts, which prints the JSON line of
 * figures on stdout. This launcher then writes its own peak RSS to stderr as
 * `[launcher] maxRSS KiB <n>`, so both processes of a run are counted. bench/inventory.ts runs
 * it bundled with ncc, as dist/ is.
 *
 * The launcher's figure is VmHWM from /proc/self/status, not getrusage's maxRSS: Linux carries
 * ru_maxrss across exec (the high-water mark of the pre-exec copy of the parent is kept), so a
 * launcher started by the 80 MiB bench process reported 83 - 89 MiB of maxRSS while its own
 * VmHWM was 49 MiB (the same launcher started from a shell: 49 MiB both ways).
 */
import { readFileSync } from 'node:fs';
import { relaunchWithFlags } from '../src/util/relaunch.js';

// The launcher's proportional set size while the child runs (shared pages split between the two),
// every 250 ms: read every 20 ms, smaps_rollup took 10.9 of the launcher's 21.4 s of CPU samples in
// a profiled run on 2026-12-01.
let peakPssKiB = 0;
const pss = () => Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1] ?? 0);
const sampler = process.env.KUBE_SWEEP_RELAUNCHED
  ? undefined
  : setInterval(() => (peakPssKiB = Math.max(peakPssKiB, pss())), 250);
const code = await relaunchWithFlags();
if (code === undefined) {
  await import('./inventory-measure.js');
} else {
  clearInterval(sampler);
  const hwm = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  process.stderr.write(`[launcher] maxRSS KiB ${hwm ?? process.resourceUsage().maxRSS}\n`);
  process.stderr.write(`[launcher] peak PSS KiB ${peakPssKiB}\n`);
  process.exitCode = code;
}
