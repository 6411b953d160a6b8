/**
 * Inventory benchmark (issue 3). Prints figures; it is not a timed test and asserts nothing.
 * In one run, against the cluster of a test/cluster/up.sh folder (fill it first: bench/fill.ts):
 *   (a) kube-sweep: collectInventory (the action's page-size and list-concurrency) in a child process
 *       (bench/inventory-runner.ts, bundled and minified with ncc as dist/ is; `--runner ts`
 *       runs the TypeScript in place instead) that reports its own peak RSS;
 *   (b) the seed script's scan (bench/seed-000-scan.sh): kubectl get per resource type and a
 *       bash loop with two awk processes per object;
 *   (c) the floor (bench/curl-floor.sh): every list as PartialObjectMetadataList with curl,
 *       all resources in parallel;
 *   (c') for comparison only: the same lists unpaged, in one curl --parallel process.
 * (a), (c) and (c') run `--runs` times each, alternating, after one untimed warm-up of each;
 * (b) runs once (it takes minutes), last.
 *
 *   node --experimental-transform-types --disable-warning=ExperimentalWarning \
 *     --import ./bench/ts-hooks.mjs bench/inventory.ts --cluster-dir /tmp/kube-sweep-bench
 *   options: --runs 3, --skip-seed, --runner bundle|ts, --also SIZE/CONC[,SIZE/CONC...] (each run
 *            also times (a) at these page sizes and list concurrencies, judged against the same
 *            run's (c) and (c')), --also-page-size N (= --also N/<default concurrency>), --touch (before each run, write one
 *            object of each bench resource: continue pages then come from the watch cache),
 *            --cpu-prof <dir> (one extra, untimed, profiled run of (a), TypeScript runner so
 *            that function names are kept), --json <file> (all figures as JSON), --json-lists ((a)'s
 *            metadata lists as JSON only, as before protobuf; (c) and (c') always fetch JSON)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createApiClient } from '../src/cluster/api-client.js';
import { loadKubeconfig } from '../src/cluster/kubeconfig.js';
import { resourcesToList } from '../src/inventory/collect.js';
import { discover } from '../src/inventory/discovery.js';
import { InputDefaults } from '../src/config/inputs.js';
import { collectionPath } from '../src/inventory/list.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    'cluster-dir': { type: 'string', default: process.env.KUBE_SWEEP_CLUSTER_DIR ?? '/tmp/kube-sweep-bench' },
    runs: { type: 'string', default: '3' },
    'skip-seed': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    json: { type: 'string' },
    runner: { type: 'string', default: 'bundle' },
    'also-page-size': { type: 'string' },
    also: { type: 'string' },
    touch: { type: 'boolean', default: false },
    'json-lists': { type: 'boolean', default: false },
  },
});
const clusterDir = values['cluster-dir'];
const runs = Math.max(1, Number(values.runs));
const kubeconfig = join(clusterDir, 'kubeconfig');
const pki = join(clusterDir, 'pki');
const kubectl = /^export KUBECTL='([^']+)'/m.exec(readFileSync(join(clusterDir, 'env'), 'utf8'))?.[1];
if (!kubectl) throw new Error(`no KUBECTL line in ${join(clusterDir, 'env')}; start the cluster with up.sh`);

interface Exit {
  wallMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; wall time from spawn to exit. */
function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string } = {}) {
  return new Promise<Exit>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: 'pipe' });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        wallMs: performance.now() - started,
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.end(options.stdin ?? '');
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ms = (x: number) => `${Math.round(x)} ms`;
const ratio = (x: number, y: number) => (x / y).toFixed(2);
/** 1-minute load average: other work on the machine skews every figure. */
const load = () => `load ${loadavg()[0]!.toFixed(1)}/${cpus().length} cpus`;

// --- what to list: the same resources collectInventory lists (discovery, not timed) ---------
const loaded = loadKubeconfig(kubeconfig, '', process.env);
const api = await createApiClient(loaded, { timeoutMs: 30_000 });
const targets = resourcesToList(await discover(api));
await api.close();
const keyOf = (r: { group: string; resource: string }) => (r.group ? `${r.resource}.${r.group}` : r.resource);
const paths = targets.map((r) => collectionPath(r));

// --- (a) --------------------------------------------------------------------------------------
interface RunnerResult {
  startupMs: number;
  collectMs: number;
  discoveryMs: number;
  listMs: number;
  /** Time inside JSON.parse during collectInventory (the pages), summed, and how many calls. */
  parseMs: number;
  parses: number;
  /**
   * Time collectInventory spent keeping the items of the pages (decoding the protobuf pages
   * included), and sorting + indexing the snapshot (its log lines).
   */
  itemsMs?: number;
  /** How many of the pages came as protobuf (0 with --json-lists). */
  protobufPages?: number;
  indexMs?: number;
  resourcesListed: number;
  pages: number;
  requests: number;
  coverageGaps: number;
  objects: number;
  namespacedObjects: number;
  byResource: Record<string, number>;
  rssBeforeKiB: number;
  maxRssKiB: number;
  /** Peak RSS of the launcher process that relaunched the measuring one (see inventory-runner.ts). */
  launcherMaxRssKiB?: number;
  /** Peak proportional set size of the measuring process and of the launcher (shared pages split). */
  peakPssKiB?: number;
  launcherPeakPssKiB?: number;
  vmHwmKiB?: number;
  heapUsedAtEndKiB: number;
  heapRetainedKiB?: number;
  sampledPeaksKiB: Record<'rss' | 'heapTotal' | 'heapUsed' | 'external' | 'arrayBuffers', number>;
}
const bundleDir = join(clusterDir, 'bench-runner');
async function bundleRunner(): Promise<string> {
  const exit = await run(process.execPath, [join(here, 'bundle-runner.mjs'), bundleDir]);
  if (exit.code !== 0) throw new Error(`bundling the runner failed:\n${exit.stderr}`);
  return exit.stdout.trim();
}
const tsRunner = [
  '--experimental-transform-types',
  '--disable-warning=ExperimentalWarning',
  '--import',
  join(here, 'ts-hooks.mjs'),
  join(here, 'inventory-runner.ts'),
];
let runner = tsRunner;
/**
 * How many list requests kube-apiserver served from etcd and from its watch cache so far
 * (apiserver_storage_list_total, summed over resources). On a quiet cluster, continue pages
 * of a resource not written since etcd's last compaction are read from etcd, which costs the
 * server several times more CPU than the watch cache: the figures depend on it, so it is shown.
 */
async function listsServed(): Promise<{ etcd: number; watchcache: number }> {
  const exit = await run('curl', [
    '-sS',
    '-A',
    'kube-sweep-bench-curl',
    '--cacert',
    join(pki, 'ca.crt'),
    '--cert',
    join(pki, 'admin.crt'),
    '--key',
    join(pki, 'admin.key'),
    `${loaded.server}/metrics`,
  ]);
  const served = { etcd: 0, watchcache: 0 };
  for (const m of exit.stdout.matchAll(
    /^apiserver_storage_list_total\{[^}]*storage="(etcd|watchcache)"[^}]*\} (\S+)$/gm,
  ))
    served[m[1] as 'etcd' | 'watchcache'] += Number(m[2]);
  return served;
}

/** --touch: one write per bench resource, so that its continue pages come from the watch cache. */
async function touchBenchObjects(): Promise<void> {
  const client = await createApiClient(loaded, { timeoutMs: 30_000 });
  const body = { metadata: { annotations: { 'kube-sweep.test/touched': new Date().toISOString() } } };
  const ns = '/api/v1/namespaces/bench-000';
  const paths = [`${ns}/configmaps/config-000`, `${ns}/secrets/secret-000`];
  for (let n = 0; n < 10; n++)
    paths.push(`/apis/bench.kube-sweep.test/v1/namespaces/bench-000/things${n}/thing-000`);
  try {
    for (const path of paths)
      await client.request({ method: 'PATCH', path, body, contentType: 'application/merge-patch+json' });
  } finally {
    await client.close();
  }
}

/** A page size and list concurrency of (a). */
interface Setting {
  readonly pageSize: number;
  readonly concurrency: number;
}
const defaults: Setting = {
  pageSize: Number(InputDefaults['page-size']),
  concurrency: Number(InputDefaults['list-concurrency']),
};
const settingName = (s: Setting) => `${s.pageSize}/${s.concurrency}`;

async function runA(
  profileDir?: string,
  setting: Setting = defaults,
): Promise<RunnerResult & { wallMs: number; served: { etcd: number; watchcache: number } }> {
  const before = await listsServed();
  const args = [
    ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir, ...tsRunner] : runner),
    '--kubeconfig',
    kubeconfig,
    '--page-size',
    String(setting.pageSize),
    '--concurrency',
    String(setting.concurrency),
    ...(values['json-lists'] ? ['--json-lists'] : []),
  ];
  const exit = await run(process.execPath, args);
  if (exit.code !== 0) throw new Error(`(a) exited ${exit.code}:\n${exit.stderr}`);
  const last = exit.stdout.trim().split('\n').pop()!;
  const after = await listsServed();
  const served = { etcd: after.etcd - before.etcd, watchcache: after.watchcache - before.watchcache };
  const launcher = /\[launcher\] maxRSS KiB (\d+)/.exec(exit.stderr);
  const launcherPss = /\[launcher\] peak PSS KiB (\d+)/.exec(exit.stderr);
  return {
    ...(JSON.parse(last) as RunnerResult),
    ...(launcher ? { launcherMaxRssKiB: Number(launcher[1]) } : {}),
    ...(launcherPss ? { launcherPeakPssKiB: Number(launcherPss[1]) } : {}),
    wallMs: exit.wallMs,
    served,
  };
}

// --- (c) --------------------------------------------------------------------------------------
const pagesDir = join(tmpdir(), `kube-sweep-bench-curl-${process.pid}`);
async function runC(mode: 'paged' | 'unpaged' = 'paged') {
  rmSync(pagesDir, { recursive: true, force: true });
  mkdirSync(pagesDir, { recursive: true });
  const exit = await run('bash', [join(here, 'curl-floor.sh'), loaded.server, pki, pagesDir, mode], {
    stdin: paths.join('\n') + '\n',
  });
  if (exit.code !== 0) throw new Error(`(c) exited ${exit.code}:\n${exit.stderr}`);
  // Counting happens after the clock stopped.
  const byResource: Record<string, number> = {};
  const uids = new Set<string>();
  let items = 0;
  let pages = 0;
  for (const file of readdirSync(pagesDir)) {
    const index = Number(file.split('-')[0]);
    const list = JSON.parse(readFileSync(join(pagesDir, file), 'utf8')) as {
      items?: { metadata?: { uid?: string } }[];
    };
    pages++;
    const key = keyOf(targets[index]!);
    for (const item of list.items ?? []) {
      items++;
      byResource[key] = (byResource[key] ?? 0) + 1;
      if (item.metadata?.uid) uids.add(item.metadata.uid);
    }
  }
  rmSync(pagesDir, { recursive: true, force: true });
  return { wallMs: exit.wallMs, items, uniqueObjects: uids.size, pages, byResource };
}

// --- (b) --------------------------------------------------------------------------------------
async function runB() {
  const timeFile = join(tmpdir(), `kube-sweep-bench-time-${process.pid}`);
  const env = { ...process.env, KUBECONFIG: kubeconfig, PATH: `${dirname(kubectl!)}:${process.env.PATH}` };
  const exit = await run(
    '/usr/bin/time',
    ['-f', '%e %M', '-o', timeFile, 'bash', join(here, 'seed-000-scan.sh')],
    { env },
  );
  const [, peakKiB] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
  rmSync(timeFile, { force: true });
  const byResource: Record<string, number> = {};
  let lines = 0;
  for (const m of exit.stderr.matchAll(/^bench: seen (\S+) (\d+)$/gm)) {
    byResource[m[1]!] = Number(m[2]);
    lines += Number(m[2]);
  }
  const leftovers = exit.stdout.split('\n').filter((l) => l.startsWith('api-resource:')).length;
  const otherErrors = exit.stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('bench: seen'))
    .slice(0, 5);
  return {
    wallMs: exit.wallMs,
    code: exit.code,
    lines,
    leftovers,
    byResource,
    peakChildKiB: peakKiB,
    otherErrors,
  };
}

/**
 * Where (a)'s time went (issue 26): network = the lists' time less the parsing and the keeping
 * of items (waiting on the server, TLS and HTTP, and garbage collection outside those two);
 * parse = inside JSON.parse (the JSON pages, whole: the whole objects' lists, and every metadata list
 * with --json-lists); items = decoding the protobuf pages into the kept fields, toObjectMetadata,
 * de-duplication and the whole objects; index = sorting the snapshot and building its indexes. Parse and items run on
 * the one JavaScript thread, so their sums are wall time (a garbage collection that starts
 * inside them is counted there); the lists of other resources wait meanwhile.
 */
function breakdownOf(r: RunnerResult) {
  const items = r.itemsMs ?? 0;
  return { network: r.listMs - r.parseMs - items, parse: r.parseMs, items, index: r.indexMs ?? 0 };
}
function breakdown(r: RunnerResult): string {
  const b = breakdownOf(r);
  return (
    `network ${ms(b.network)}, parse ${ms(b.parse)} (${r.parses} JSON.parse calls; ` +
    `${r.protobufPages ?? '?'} of ${r.pages} pages protobuf), ` +
    `items ${ms(b.items)}, index ${ms(b.index)}; discovery ${ms(r.discoveryMs)}`
  );
}

// --- the runs ---------------------------------------------------------------------------------
console.log(`kube-sweep inventory benchmark, ${new Date().toISOString()}, ${loaded.server}, ${load()}`);
if (values.runner === 'bundle') {
  const t = performance.now();
  runner = [await bundleRunner()];
  console.log(
    `(a) runner bundled with ncc (minified, as dist/) in ${ms(performance.now() - t)}: ${runner[0]}`,
  );
} else {
  console.log('(a) runner: TypeScript in place (--experimental-transform-types)');
}
// --also 1000/8,2000/4 (page size / list concurrency); --also-page-size N is N at the default concurrency.
const also: Setting[] = [
  ...(values['also-page-size'] ? [`${values['also-page-size']}/${defaults.concurrency}`] : []),
  ...(values.also ? values.also.split(',') : []),
].map((text) => {
  const [size, conc] = text.split('/').map(Number);
  if (!(size! > 0) || !(conc! > 0)) throw new Error(`--also: '${text}' is not SIZE/CONCURRENCY, e.g. 1000/4`);
  return { pageSize: size!, concurrency: conc! };
});
console.log(
  `${targets.length} listable resources; ${runs} timed run(s) of (a), (c) and (c') after one warm-up each; ` +
    `(a) at page size / list concurrency ${settingName(defaults)} (the defaults)` +
    (also.length ? `, also ${also.map(settingName).join(', ')}` : ''),
);
await runC();
await runC('unpaged');
await runA();
const aRuns: Awaited<ReturnType<typeof runA>>[] = [];
const cRuns: Awaited<ReturnType<typeof runC>>[] = [];
const uRuns: Awaited<ReturnType<typeof runC>>[] = [];
const pRuns: Awaited<ReturnType<typeof runA>>[][] = also.map(() => []);
for (let i = 0; i < runs; i++) {
  if (values.touch) await touchBenchObjects();
  const c = await runC();
  cRuns.push(c);
  const u = await runC('unpaged');
  uRuns.push(u);
  const a = await runA();
  aRuns.push(a);
  console.log(
    `run ${i + 1}: (a) collectInventory ${ms(a.collectMs)} (lists ${ms(a.listMs)}), process ${ms(a.wallMs)}, ` +
      `peak RSS ${(a.maxRssKiB / 1024).toFixed(0)} MiB (+ launcher ${((a.launcherMaxRssKiB ?? 0) / 1024).toFixed(0)} MiB), ${a.objects} objects; (c) ${ms(c.wallMs)}, ` +
      `${c.uniqueObjects} objects; (c') ${ms(u.wallMs)}, ${u.uniqueObjects} objects; ${load()}; ` +
      `(a)'s lists served from etcd ${a.served.etcd}, from the watch cache ${a.served.watchcache}`,
  );
  console.log(`       (a) breakdown: ${breakdown(a)}`);
  for (const [k, setting] of also.entries()) {
    const p = await runA(undefined, setting);
    pRuns[k]!.push(p);
    console.log(
      `       (a) at ${settingName(setting)}: collectInventory ${ms(p.collectMs)}, ${p.requests} requests, ` +
        `peak RSS ${(p.maxRssKiB / 1024).toFixed(0)} MiB, ${p.objects} objects; a/c ${ratio(p.collectMs, c.wallMs)}, ` +
        `a/c' ${ratio(p.collectMs, u.wallMs)}; ${load()}`,
    );
    console.log(`       (a) at ${settingName(setting)} breakdown: ${breakdown(p)}`);
  }
}
let profile: string | undefined;
if (values['cpu-prof']) {
  mkdirSync(values['cpu-prof'], { recursive: true });
  const p = await runA(values['cpu-prof']);
  profile = values['cpu-prof'];
  console.log(`profiled (a), untimed: collectInventory ${ms(p.collectMs)}; .cpuprofile in ${profile}`);
}
let b: Awaited<ReturnType<typeof runB>> | undefined;
if (!values['skip-seed']) {
  console.log('(b) seed scan: running once, this takes minutes ...');
  b = await runB();
  console.log(`(b) done in ${ms(b.wallMs)}; ${load()}`);
}

// --- figures ----------------------------------------------------------------------------------
const aCollect = median(aRuns.map((r) => r.collectMs));
const aWall = median(aRuns.map((r) => r.wallMs));
const aList = median(aRuns.map((r) => r.listMs));
const cWall = median(cRuns.map((r) => r.wallMs));
const uWall = median(uRuns.map((r) => r.wallMs));
const aPeakMiB = Math.max(...aRuns.map((r) => r.maxRssKiB)) / 1024;
const launcherPeakMiB = Math.max(0, ...aRuns.map((r) => r.launcherMaxRssKiB ?? 0)) / 1024;
const lastA = aRuns[aRuns.length - 1]!;
const lastC = cRuns[cRuns.length - 1]!;

console.log('\nwall time (median of the timed runs; min..max)');
const range = (xs: number[]) => `${ms(Math.min(...xs))}..${ms(Math.max(...xs))}`;
console.log(`  (a) collectInventory      ${ms(aCollect)}  (${range(aRuns.map((r) => r.collectMs))})`);
console.log(
  `      of which lists        ${ms(aList)}; discovery ${ms(median(aRuns.map((r) => r.discoveryMs)))}`,
);
const med = (k: keyof ReturnType<typeof breakdownOf>) => ms(median(aRuns.map((r) => breakdownOf(r)[k])));
console.log(
  `      breakdown (medians)   network ${med('network')}, parse ${med('parse')}, items ${med('items')}, index ${med('index')}`,
);
console.log(
  `  (a) whole child process   ${ms(aWall)}  (${range(aRuns.map((r) => r.wallMs))}; Node start-up + module load ${ms(median(aRuns.map((r) => r.startupMs)))})`,
);
for (const [k, setting] of also.entries())
  console.log(
    `  (a) at ${settingName(setting)}  ${ms(median(pRuns[k]!.map((r) => r.collectMs)))}  (${range(pRuns[k]!.map((r) => r.collectMs))}; ` +
      `peak RSS max ${(Math.max(...pRuns[k]!.map((r) => r.maxRssKiB)) / 1024).toFixed(0)} MiB)`,
  );
console.log(`  (c) curl floor, paged      ${ms(cWall)}  (${range(cRuns.map((r) => r.wallMs))})`);
console.log(`  (c') curl, unpaged        ${ms(uWall)}  (${range(uRuns.map((r) => r.wallMs))})`);
if (b) console.log(`  (b) seed scan             ${ms(b.wallMs)}  (exit ${b.code})`);

console.log('\nratios');
if (b) {
  console.log(
    `  b/a  ${ratio(b.wallMs, aCollect)}x faster (collectInventory), ${ratio(b.wallMs, aWall)}x (whole process)   target >= 20`,
  );
  console.log(
    `  a/b  ${(aCollect / b.wallMs).toFixed(4)} (collectInventory), ${(aWall / b.wallMs).toFixed(4)} (whole process)`,
  );
}
console.log(
  `  a/c  ${ratio(aCollect, cWall)} (collectInventory), ${ratio(aWall, cWall)} (whole process)   target <= 1.5`,
);
console.log(
  `  a/c' ${ratio(aCollect, uWall)} (collectInventory), ${ratio(aWall, uWall)} (whole process)   target <= 1.5 (issue 26)`,
);

console.log('\nobjects seen');
console.log(
  `  (a) ${lastA.objects} objects (${lastA.namespacedObjects} namespaced), ${lastA.resourcesListed} resources, ` +
    `${lastA.requests} requests, pages stat ${lastA.pages}, ${lastA.coverageGaps} coverage gaps`,
);
const lastU = uRuns[uRuns.length - 1]!;
console.log(`  (c') ${lastU.uniqueObjects} unique objects (${lastU.items} items)`);
console.log(`  (c) ${lastC.uniqueObjects} unique objects (${lastC.items} items), ${lastC.pages} pages`);
const diffs: string[] = [];
for (const key of new Set([...Object.keys(lastA.byResource), ...Object.keys(lastC.byResource)])) {
  const x = lastA.byResource[key] ?? 0;
  const y = lastC.byResource[key] ?? 0;
  // (a) and (c) list the same resources (resourcesToList: Events under the core group only).
  if (x !== y && key !== 'events.events.k8s.io') diffs.push(`${key}: a ${x}, c ${y}`);
}
console.log(diffs.length ? `  a vs c differ: ${diffs.join('; ')}` : '  a and c agree per resource');
if (b) {
  // (b) lists only namespaced resources, and events twice (core and events.k8s.io): its second
  // copy of the Events is the core Events' count again.
  const expected = lastA.namespacedObjects + (lastA.byResource['events'] ?? 0);
  console.log(
    `  (b) ${b.lines} lines over ${Object.keys(b.byResource).length} resource types ` +
      `(a's namespaced objects + events again under events.k8s.io: ${expected}); ${b.leftovers} leftover lines printed`,
  );
  const bDiffs = Object.entries(b.byResource)
    .filter(([key, n]) => key !== 'events.events.k8s.io' && n !== (lastA.byResource[key] ?? 0))
    .map(([key, n]) => `${key}: b ${n}, a ${lastA.byResource[key] ?? 0}`);
  console.log(bDiffs.length ? `  a vs b differ: ${bDiffs.join('; ')}` : '  a and b agree per resource');
  if (b.otherErrors.length) console.log(`  (b) stderr: ${b.otherErrors.join(' | ')}`);
}

console.log('\nmemory');
console.log(
  `  (a) peak RSS ${aPeakMiB.toFixed(0)} MiB (max over runs; VmHWM of the last ${((lastA.vmHwmKiB ?? 0) / 1024).toFixed(0)} MiB, ` +
    `heap used at the end ${(lastA.heapUsedAtEndKiB / 1024).toFixed(0)} MiB)   target < 300 MB`,
);
console.log(
  `      the launcher process (relaunches with --max-semi-space-size, then waits): peak RSS ${launcherPeakMiB.toFixed(0)} MiB; ` +
    `both processes together at most ${(aPeakMiB + launcherPeakMiB).toFixed(0)} MiB ` +
    `(${(((aPeakMiB + launcherPeakMiB) * 1048576) / 1e6).toFixed(0)} MB; RSS counts the shared Node binary twice)`,
);
const pssSums = aRuns.map((r) => ((r.peakPssKiB ?? 0) + (r.launcherPeakPssKiB ?? 0)) / 1024);
console.log(
  `      proportional set size (shared pages split), measuring process + launcher, per run: ` +
    `${aRuns.map((r, i) => `${((r.peakPssKiB ?? 0) / 1024).toFixed(0)} + ${((r.launcherPeakPssKiB ?? 0) / 1024).toFixed(0)} = ${pssSums[i]!.toFixed(0)} MiB`).join('; ')} ` +
    `(max ${((Math.max(...pssSums) * 1048576) / 1e6).toFixed(0)} MB)`,
);
console.log(
  `      RSS before collectInventory (Node + modules loaded, kubeconfig read, client made): ` +
    `${(median(aRuns.map((r) => r.rssBeforeKiB)) / 1024).toFixed(0)} MiB (median)`,
);
const sp = lastA.sampledPeaksKiB;
const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
console.log(
  `      sampled peaks during collectInventory (last run): rss ${mib(sp.rss)}, V8 heap reserved ${mib(sp.heapTotal)}, ` +
    `heap used ${mib(sp.heapUsed)}, external ${mib(sp.external)} (Buffers ${mib(sp.arrayBuffers)})`,
);
if (b)
  console.log(
    `  (b) largest single process (kubectl) peak RSS ${((b.peakChildKiB ?? 0) / 1024).toFixed(0)} MiB`,
  );

console.log('\ntargets');
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
if (b)
  console.log(
    `  >= 20x faster than (b): ${verdict(b.wallMs / aCollect >= 20)} (collectInventory), ${verdict(b.wallMs / aWall >= 20)} (whole process)`,
  );
else console.log('  >= 20x faster than (b): not measured (--skip-seed)');
console.log(
  `  within 1.5x of (c):     ${verdict(aCollect / cWall <= 1.5)} (collectInventory), ${verdict(aWall / cWall <= 1.5)} (whole process)`,
);
console.log(`  peak memory < 300 MB:   ${verdict(aPeakMiB * 1024 * 1024 < 300e6)}`);
console.log('  issue 26:');
console.log(
  `  <= 0.8x (c):            ${verdict(aCollect / cWall <= 0.8)} (collectInventory ${ratio(aCollect, cWall)})`,
);
console.log(
  `  <= 1.5x (c'):           ${verdict(aCollect / uWall <= 1.5)} (collectInventory ${ratio(aCollect, uWall)})`,
);
console.log(
  `  peak memory < 250 MB:   ${verdict(aPeakMiB * 1024 * 1024 < 250e6)} (working process, ${((aPeakMiB * 1048576) / 1e6).toFixed(0)} MB)`,
);
// The same three targets for each --also setting, against this run's medians of (c) and (c').
const settingRows = [
  { setting: defaults, rs: aRuns },
  ...also.map((setting, k) => ({ setting, rs: pRuns[k]! })),
];
if (also.length)
  console.log(
    '  issue 26 per page size / list concurrency (medians; peak = max over runs, MB = 10^6 bytes):',
  );
for (const { setting, rs } of also.length ? settingRows : []) {
  const t = median(rs.map((r) => r.collectMs));
  const peakMB = (Math.max(...rs.map((r) => r.maxRssKiB)) * 1024) / 1e6;
  const b = (k: keyof ReturnType<typeof breakdownOf>) => ms(median(rs.map((r) => breakdownOf(r)[k])));
  console.log(
    `    ${settingName(setting).padEnd(9)} ${ms(t)}: a/c ${ratio(t, cWall)} ${verdict(t / cWall <= 0.8)}, ` +
      `a/c' ${ratio(t, uWall)} ${verdict(t / uWall <= 1.5)}, peak ${peakMB.toFixed(0)} MB ${verdict(peakMB < 250)}; ` +
      `network ${b('network')}, parse ${b('parse')}, items ${b('items')}, index ${b('index')}, ${rs[0]!.requests} requests`,
  );
}

if (values.json) {
  writeFileSync(
    values.json,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        server: loaded.server,
        runner: values.runner,
        aRuns,
        cRuns,
        uRuns,
        also,
        pRuns,
        b,
        profile,
      },
      null,
      2,
    ),
  );
  console.log(`\nall figures: ${values.json}`);
}
