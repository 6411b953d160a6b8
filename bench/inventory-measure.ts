/**
 * The work of measurement (a), run by bench/inventory-runner.ts in the relaunched process (as
 * the action runs its step): loads the kubeconfig, runs
 * kube-sweep's `collectInventory` once with the action's defaults (`page-size` and
 * `list-concurrency` from src/config/inputs.ts, or `--page-size` / `--concurrency`; metadata lists
 * as protobuf, or JSON only with `--json-lists`; request timeout 30 s) and prints one JSON line on stdout with timings, object counts and
 * the process's peak memory (getrusage maxRSS and /proc/self/status VmHWM, read right after
 * collectInventory, before the counting below allocates anything). Progress lines of
 * collectInventory go to stderr.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createApiClient } from '../src/cluster/api-client.js';
import { loadKubeconfig } from '../src/cluster/kubeconfig.js';
import { collectInventory } from '../src/inventory/collect.js';
import { InputDefaults } from '../src/config/inputs.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: process.env.KUBECONFIG ?? '' },
    // The action's defaults (src/config/inputs.ts) unless the bench asks for others.
    'page-size': { type: 'string', default: InputDefaults['page-size'] },
    concurrency: { type: 'string', default: InputDefaults['list-concurrency'] },
    // The metadata lists as JSON only (the path before protobuf; collectInventory's metadataFormat).
    'json-lists': { type: 'boolean', default: false },
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
// Breakdown (issue 26): time inside JSON.parse (the pages; the API client parses each answer
// whole), summed; the time collectInventory spent keeping items and indexing comes from its log
// lines. What is left of the lists' time is waiting on the server and HTTP (and garbage
// collection outside those two).
let parseMs = 0;
let parses = 0;
const nativeParse = JSON.parse;
JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
  const t = performance.now();
  try {
    return nativeParse(text, reviver);
  } finally {
    parseMs += performance.now() - t;
    parses++;
  }
}) as typeof JSON.parse;
let itemsMs: number | undefined;
let protobufPages: number | undefined;
let indexMs: number | undefined;
// Where the memory is while collectInventory runs: the largest value of each part of
// process.memoryUsage(), sampled every 20 ms (V8 heap reserved and used, Buffers, ...), and the
// proportional set size every 250 ms: reading /proc/self/smaps_rollup walks the page tables and
// is not cheap (read every 20 ms, it took 6 of the 20 s of CPU samples of a profiled run on
// 2026-12-01 and slowed the run it measured).
const peaks = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
let peakPssKiB = 0;
let samples = 0;
const sample = () => {
  const m = process.memoryUsage();
  for (const k of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[k] = Math.max(peaks[k], m[k]);
  if (samples++ % 12 === 0) peakPssKiB = Math.max(peakPssKiB, pssKiB() ?? 0);
};
const sampler = setInterval(sample, 20);
const started = performance.now();
const inventory = await collectInventory(api, {
  pageSize: Number(values['page-size']),
  concurrency: Number(values.concurrency),
  ...(values['json-lists'] ? { metadataFormat: 'json' as const } : {}),
  log: (line) => {
    const protobuf = /^lists: .* pages \((\d+) protobuf\)/.exec(line);
    if (protobuf) protobufPages = Number(protobuf[1]);
    const items = /^lists: .*\((\d+) ms of it keeping the items\)/.exec(line);
    if (items) itemsMs = Number(items[1]);
    const index = /^snapshot: .* indexed, (\d+) ms/.exec(line);
    if (index) indexMs = Number(index[1]);
    process.stderr.write(`[collectInventory] ${line}\n`);
  },
});
const collectMs = performance.now() - started;
JSON.parse = nativeParse;
samples = 0;
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
    parseMs: Math.round(parseMs),
    parses,
    itemsMs,
    protobufPages,
    indexMs,
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
