/**
 * The work of measurement (a), run by bench/inventory-runner.ts in the relaunched process (as
 * the action runs its step): loads the kubeconfig, runs
 * kube-sweep's `collectInventory` once with the action's defaults (page size 500, concurrency
 * 8, request timeout 30 s) and prints one JSON line on stdout with timings, object counts and
 * the process's peak memory (getrusage maxRSS and /proc/self/status VmHWM, read right after
 * collectInventory, before the counting below allocates anything). Progress lines of
 * collectInventory go to stderr.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createApiClient } from '../src/cluster/api-client.js';
import { loadKubeconfig } from '../src/cluster/kubeconfig.js';
import { collectInventory } from '../src/inventory/collect.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: process.env.KUBECONFIG ?? '' },
    'page-size': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
  },
});

/** kB value of one line of /proc/self/status (VmHWM, VmRSS), or undefined off Linux. */
function procStatusKiB(field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Proportional set size in KiB (/proc/self/smaps_rollup): RSS with each shared page divided
 * among the processes that map it, so the launcher's and this process's figures add up
 * without counting the Node binary twice. Undefined off Linux.
 */
function pssKiB(): number | undefined {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

// performance.now() counts from the start of the process, so this is Node start-up plus
// loading the modules (client-node, undici, ...).
const loadedAt = performance.now();
const loaded = loadKubeconfig(values.kubeconfig, '', process.env);
const api = await createApiClient(loaded, { timeoutMs: 30_000 });
const rssBeforeKiB = Math.round(process.memoryUsage().rss / 1024);
// Where the memory is while collectInventory runs: the largest value of each part of
// process.memoryUsage(), sampled every 20 ms (V8 heap reserved and used, Buffers, ...).
const peaks = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
let peakPssKiB = 0;
const sample = () => {
  const m = process.memoryUsage();
  for (const k of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[k] = Math.max(peaks[k], m[k]);
  peakPssKiB = Math.max(peakPssKiB, pssKiB() ?? 0);
};
const sampler = setInterval(sample, 20);
const started = performance.now();
const inventory = await collectInventory(api, {
  pageSize: Number(values['page-size']),
  concurrency: Number(values.concurrency),
  log: (line) => process.stderr.write(`[collectInventory] ${line}\n`),
});
const collectMs = performance.now() - started;
clearInterval(sampler);
sample();
await api.close();
const maxRssKiB = process.resourceUsage().maxRSS;
const vmHwmKiB = procStatusKiB('VmHWM');

const byResource: Record<string, number> = {};
let namespaced = 0;
for (const o of inventory.objects) {
  const slash = o.apiVersion.indexOf('/');
  const key = slash < 0 ? o.resource : `${o.resource}.${o.apiVersion.slice(0, slash)}`;
  byResource[key] = (byResource[key] ?? 0) + 1;
  if (o.namespace !== undefined) namespaced++;
}
process.stdout.write(
  JSON.stringify({
    startupMs: Math.round(loadedAt),
    collectMs: Math.round(collectMs),
    discoveryMs: inventory.stats.discoveryMs,
    listMs: inventory.stats.listMs,
    resourcesListed: inventory.stats.resourcesListed,
    pages: inventory.stats.pages,
    requests: inventory.stats.requests,
    coverageGaps: inventory.coverage.length,
    objects: inventory.objects.length,
    namespacedObjects: namespaced,
    byResource,
    rssBeforeKiB,
    maxRssKiB,
    vmHwmKiB,
    peakPssKiB,
    sampledPeaksKiB: Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, Math.round(v / 1024)])),
    heapUsedAtEndKiB: Math.round(process.memoryUsage().heapUsed / 1024),
    // With node --expose-gc: the heap the snapshot really keeps, after a full collection.
    ...(typeof globalThis.gc === 'function'
      ? { heapRetainedKiB: (globalThis.gc(), Math.round(process.memoryUsage().heapUsed / 1024)) }
      : {}),
  }) + '\n',
);
