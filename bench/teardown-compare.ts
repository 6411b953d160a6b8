/**
 * Teardown against what users run instead (issue 14). Prints figures measured in one run; it
 * is not a timed test and asserts nothing. For each size (releases of test/charts/bulk, 100
 * objects each, 3 releases per namespace) it builds the same environment once per approach
 * and tears it down, the approaches interleaved (their order turns each run) so that the
 * load of the shared machine hits them alike:
 *   kube-sweep   `node dist/index.js` as a runner runs it (INPUT_* variables, mode teardown,
 *                namespaces `<prefix>-*`); `--entry name=path` adds another bundle (a
 *                baseline built from an older commit) as one more approach
 *   floor        `kubectl delete ns <all> --wait` (the namespace controller alone)
 *   parallel     every `helm uninstall --wait` at once, then `kubectl delete ns --wait`
 *   sequential   `helm uninstall --wait` one release after another, then the same
 * and prints each approach's wall time, its API requests (from the audit log, by user
 * agent), kube-sweep's peak memory (VmHWM of its processes, sampled every 100 ms), the ratios
 * kube-sweep/floor and sequential/kube-sweep, and where kube-sweep's time went (its log
 * groups, timestamped as they arrive, and the report's per-stage steps).
 * Then the ordered environment (test/charts/operator + app: Widgets with a finalizer that a
 * live operator removes, a loop on loopback with its own user agent) `--trials` times:
 * kube-sweep's wall time, and how long after the operator's last finalizer patch (the last
 * awaited object of stage 1 going) kube-sweep or its helm sent the next request that is not
 * a watch (the next step starting), from the audit log.
 *
 *   node --experimental-transform-types --disable-warning=ExperimentalWarning --import ./bench/ts-hooks.mjs \
 *     bench/teardown-compare.ts --cluster-dir $KUBE_SWEEP_CLUSTER_DIR [--sizes 12,50] [--runs 1] \
 *     [--trials 20] [--entry base=/tmp/base/dist/index.js] [--approaches kube-sweep,floor,parallel,sequential]
 * Use a control plane of its own: it deletes every namespace it made (`tc-*`).
 */
import { execa } from 'execa';
import pLimit from 'p-limit';
import { readFileSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApiClient, type ApiClient } from '../src/cluster/api-client.js';
import { loadKubeconfig } from '../src/cluster/kubeconfig.js';
import { runnerFiles } from '../__tests__/e2e/support/runner.js';
import { clusterEnv } from '../__tests__/integration/support/cluster.js';

const { values } = parseArgs({
  options: {
    'cluster-dir': { type: 'string', default: process.env.KUBE_SWEEP_CLUSTER_DIR ?? '' },
    sizes: { type: 'string', default: '12,50' },
    runs: { type: 'string', default: '1' },
    trials: { type: 'string', default: '20' },
    entry: { type: 'string', multiple: true, default: [] },
    approaches: { type: 'string', default: 'kube-sweep,floor,parallel,sequential' },
    'install-concurrency': { type: 'string', default: '4' },
    json: { type: 'string', default: '' },
  },
});
const dir = values['cluster-dir'];
if (!dir) throw new Error('give --cluster-dir (the folder test/cluster/up.sh wrote)');
process.env.KUBE_SWEEP_CLUSTER_DIR = dir;
const cluster = clusterEnv();
const kubeconfig = cluster.kubeconfig;
const helm = cluster.helm4;
const kubectl = cluster.kubectl;
const repo = join(import.meta.dirname, '..');
const auditLog = join(dir, 'audit.log');
const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
const entries = new Map<string, string>([['kube-sweep', join(repo, 'dist', 'index.js')]]);
for (const e of values.entry) {
  const [name, path] = e.split('=');
  entries.set(name!, path!);
}

// --- the audit log ---------------------------------------------------------------------------
interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  userAgent?: string;
  requestURI: string;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}
/** Where the audit log stood: its inode and size (kube-apiserver rotates it at 100 MB). */
const auditMark = () => {
  const st = statSync(auditLog);
  return { ino: st.ino, size: st.size };
};
/** The audit events written since `mark`, across a rotation (the rotated file keeps the inode). */
function auditSince(mark: { ino: number; size: number }): AuditEvent[] {
  const chunks: Buffer[] = [];
  if (statSync(auditLog).ino !== mark.ino) {
    const rotated = readdirSync(dir)
      .filter((f) => /^audit-.*\.log$/.test(f))
      .map((f) => join(dir, f))
      .find((f) => statSync(f).ino === mark.ino);
    if (rotated) chunks.push(readFileSync(rotated).subarray(mark.size));
    chunks.push(readFileSync(auditLog));
  } else chunks.push(readFileSync(auditLog).subarray(mark.size));
  return chunks
    .flatMap((c) => c.toString('utf8').split('\n'))
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEvent);
}
const agentOf = (e: AuditEvent) => {
  const ua = e.userAgent ?? '';
  if (ua === 'kube-sweep') return 'kube-sweep';
  if (ua.startsWith('Helm/')) return 'helm';
  if (ua.startsWith('kubectl')) return 'kubectl';
  if (ua === 'bench-operator') return 'operator';
  return 'other';
};
/** Requests (ResponseComplete) by the tools in [from, to], per user agent. */
function requestsIn(events: AuditEvent[], from: number, to: number) {
  const counts: Record<string, number> = {};
  for (const e of events) {
    if (e.stage !== 'ResponseComplete') continue;
    const t = Date.parse(e.requestReceivedTimestamp);
    if (t < from || t > to) continue;
    const a = agentOf(e);
    if (a === 'other' || a === 'operator') continue;
    counts[a] = (counts[a] ?? 0) + 1;
  }
  return counts;
}

// --- memory of a process tree ----------------------------------------------------------------
function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const t of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of children.trim().split(/\s+/).filter(Boolean)) {
        out.push(Number(c));
        walk(Number(c));
      }
    }
  };
  walk(pid);
  return out;
}
/** Samples the peak VmHWM (KiB) of the node processes under `pid` every 100 ms until stopped. */
function sampleMemory(pid: number) {
  let peakKiB = 0;
  const timer = setInterval(() => {
    for (const p of [pid, ...descendants(pid)]) {
      try {
        if (!readlinkSync(`/proc/${p}/exe`).endsWith('/node')) continue; // not helm or kubectl
        const status = readFileSync(`/proc/${p}/status`, 'utf8');
        const hwm = Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
        peakKiB = Math.max(peakKiB, hwm);
      } catch {
        /* gone */
      }
    }
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.round(peakKiB / 1024);
  };
}

// --- environments ----------------------------------------------------------------------------
const chart = (name: string) => join(repo, 'test', 'charts', name);
interface BulkEnv {
  prefix: string;
  namespaces: string[];
  releases: { name: string; namespace: string }[];
}
async function installBulk(prefix: string, releaseCount: number): Promise<BulkEnv> {
  const nsCount = Math.ceil(releaseCount / 3);
  const namespaces = Array.from({ length: nsCount }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  const releases = Array.from({ length: releaseCount }, (_, i) => ({
    name: `r${i}`,
    namespace: namespaces[i % nsCount]!,
  }));
  const limit = pLimit(Number(values['install-concurrency']));
  const t0 = performance.now();
  await Promise.all(
    releases.map((r) =>
      limit(async () => {
        const x = await execa(
          helm,
          [
            'install',
            r.name,
            chart('bulk'),
            '-n',
            r.namespace,
            '--create-namespace',
            '--kubeconfig',
            kubeconfig,
          ],
          { reject: false },
        );
        if (x.exitCode !== 0) throw new Error(`helm install ${r.name} in ${r.namespace}: ${x.stderr}`);
      }),
    ),
  );
  log(
    `installed ${releaseCount} releases in ${nsCount} namespaces (${prefix}) in ${seconds(performance.now() - t0)} s`,
  );
  return { prefix, namespaces, releases };
}

// --- approaches --------------------------------------------------------------------------------
interface KubeSweepRun {
  wallMs: number;
  exitCode: number;
  verdict: string;
  peakMiB: number;
  /** [ms since start, line] of the step's stdout. */
  lines: [number, string][];
  report: Report | undefined;
}
interface Report {
  verdict: string;
  teardown?: {
    stages: {
      index: number;
      durationMs: number;
      stepsMs: { crdInstances: number; uninstall: number; wait: number };
    }[];
    namespaces: { name: string; status: string; durationMs: number }[];
    durationMs: number;
  };
}
async function runKubeSweep(
  entry: string,
  namespaces: string,
  extra: Record<string, string> = {},
): Promise<KubeSweepRun> {
  const files = runnerFiles();
  const reportPath = join(files.RUNNER_TEMP, 'report.json');
  const started = performance.now();
  const child = execa(process.execPath, [entry], {
    env: {
      ...files,
      INPUT_MODE: 'teardown',
      INPUT_NAMESPACES: namespaces,
      // The bench's scope is larger than the default bound on purpose.
      'INPUT_MAX-NAMESPACES': '100000',
      INPUT_KUBECONFIG: kubeconfig,
      INPUT_HELM: helm,
      'INPUT_REPORT-PATH': reportPath,
      ...extra,
    },
    extendEnv: true,
    reject: false,
    buffer: false,
  });
  const stopMemory = sampleMemory(child.pid!);
  const lines: [number, string][] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const now = performance.now() - started;
    rest += chunk.toString('utf8');
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const p of parts) lines.push([now, p]);
  });
  child.stderr!.resume();
  const result = await child;
  const wallMs = performance.now() - started;
  const peakMiB = stopMemory();
  let report: Report | undefined;
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
  } catch {
    report = undefined;
  }
  return {
    wallMs,
    exitCode: result.exitCode ?? -1,
    verdict: report?.verdict ?? '(no report)',
    peakMiB,
    lines,
    report,
  };
}

async function deleteNamespacesWithKubectl(namespaces: string[], timeout = '10m') {
  const r = await execa(
    kubectl,
    ['--kubeconfig', kubeconfig, 'delete', 'ns', ...namespaces, '--wait', `--timeout=${timeout}`],
    {
      reject: false,
    },
  );
  return r.exitCode ?? -1;
}
async function helmUninstall(r: { name: string; namespace: string }) {
  const x = await execa(
    helm,
    ['uninstall', r.name, '-n', r.namespace, '--wait', '--kubeconfig', kubeconfig],
    {
      reject: false,
    },
  );
  return x.exitCode ?? -1;
}

/** Where kube-sweep's time went: its log groups (action ::group:: lines) and the report's steps. */
function breakdown(run: KubeSweepRun) {
  const groups: { title: string; ms: number }[] = [];
  let open: { title: string; at: number } | undefined;
  for (const [at, line] of run.lines) {
    const m = /^::group::(.*)$/.exec(line);
    if (m) open = { title: m[1]!, at };
    else if (line.startsWith('::endgroup::') && open) {
      groups.push({ title: open.title, ms: at - open.at });
      open = undefined;
    }
  }
  const firstLine = run.lines[0]?.[0] ?? 0;
  const sum = (re: RegExp) => groups.filter((g) => re.test(g.title)).reduce((a, g) => a + g.ms, 0);
  const inventories = groups.filter((g) => /^Reading the cluster/.test(g.title));
  const stages = run.report?.teardown?.stages ?? [];
  return {
    'node start + relaunch (to first line)': seconds(firstLine),
    connect: seconds(sum(/^Connecting/)),
    'inventory (before)': seconds(inventories[0]?.ms ?? 0),
    plan: seconds(sum(/^Planning/)),
    'stages (all)': seconds(sum(/^Stage /)),
    'stages: CRD-instance deletes and waits': seconds(
      stages.reduce((a, s) => a + (s.stepsMs?.crdInstances ?? 0), 0),
    ),
    'stages: removal (helm uninstall processes; direct deletes; deleting and emptying namespaces)': seconds(
      stages.reduce((a, s) => a + (s.stepsMs?.uninstall ?? 0), 0),
    ),
    'stages: waits for the objects': seconds(stages.reduce((a, s) => a + (s.stepsMs?.wait ?? 0), 0)),
    'namespace wait (after the stages)': seconds(sum(/^Deleting namespaces/)),
    'hook check': seconds(sum(/^Checking for objects left by Helm hooks/)),
    're-scan (inventory after + scan)': seconds((inventories[1]?.ms ?? 0) + sum(/^Scanning/)),
    'after the last group (report, outputs, exit)': seconds(
      run.wallMs - (run.lines.findLast(([, l]) => l.startsWith('::endgroup::'))?.[0] ?? run.wallMs),
    ),
  };
}

// --- one bulk size -----------------------------------------------------------------------------
interface Measurement {
  size: number;
  run: number;
  approach: string;
  wallS: number;
  ok: boolean;
  requests: Record<string, number>;
  peakMiB?: number;
  verdict?: string;
  breakdown?: ReturnType<typeof breakdown>;
}
const measurements: Measurement[] = [];
const approaches = values.approaches
  .split(',')
  .flatMap((a) => (a === 'kube-sweep' ? [...entries.keys()] : [a]));
let serial = 0;

async function measureBulk(size: number, run: number, approach: string) {
  const prefix = `tc${size}x${process.pid % 1000}x${serial++}`;
  const e = await installBulk(prefix, size);
  await new Promise((r) => setTimeout(r, 2000)); // let the install's requests settle
  const mark = auditMark();
  const from = Date.now();
  const t0 = performance.now();
  let m: Measurement;
  if (entries.has(approach)) {
    const r = await runKubeSweep(entries.get(approach)!, `${prefix}-*`);
    m = {
      size,
      run,
      approach,
      wallS: seconds(r.wallMs),
      ok: r.verdict === 'clean',
      requests: {},
      peakMiB: r.peakMiB,
      verdict: r.verdict,
      breakdown: breakdown(r),
    };
  } else {
    let failed = 0;
    if (approach === 'sequential')
      for (const r of e.releases) failed += (await helmUninstall(r)) === 0 ? 0 : 1;
    if (approach === 'parallel')
      failed += (await Promise.all(e.releases.map(helmUninstall))).filter((c) => c !== 0).length;
    failed += (await deleteNamespacesWithKubectl(e.namespaces)) === 0 ? 0 : 1;
    m = { size, run, approach, wallS: seconds(performance.now() - t0), ok: failed === 0, requests: {} };
  }
  const to = Date.now();
  await new Promise((r) => setTimeout(r, 1500)); // the audit log is written asynchronously
  m.requests = requestsIn(auditSince(mark), from, to);
  measurements.push(m);
  if (m.breakdown) log(`  breakdown (s): ${JSON.stringify(m.breakdown)}`);
  log(
    `${size} releases, run ${run}, ${approach}: ${m.wallS} s ${m.ok ? 'ok' : 'NOT OK'}${m.verdict ? ` (${m.verdict})` : ''}; ` +
      `requests ${JSON.stringify(m.requests)}${m.peakMiB ? `; peak ${m.peakMiB} MiB` : ''}`,
  );
  // Whatever an approach left (a failed run) must not slow the next one.
  await deleteNamespacesWithKubectl(e.namespaces, '3m');
}

// --- the ordered environment -------------------------------------------------------------------
interface Trial {
  trial: number;
  wallS: number;
  verdict: string;
  noticeMs: number | undefined;
  lastPatch: string | undefined;
  nextRequest: string | undefined;
}
const trials: Trial[] = [];

/** A live operator: removes `<group>/cleanup` from Widgets being deleted while its Deployment lives. */
function startOperator(api: ApiClient, group: string, operatorNs: string) {
  let running = true;
  const finalizer = `${group}/cleanup`;
  // The finalizer goes 2 to 4 s after the operator first sees the Widget being deleted, so
  // that it goes while kube-sweep waits (not while helm uninstall still runs), at a random
  // point of that wait.
  const seen = new Map<string, number>();
  const delay = 2000 + Math.random() * 2000;
  const loop = (async () => {
    while (running) {
      try {
        const dep = await api.request<{ metadata: { deletionTimestamp?: string } }>({
          path: `/apis/apps/v1/namespaces/${operatorNs}/deployments/widget-operator`,
        });
        if (dep.metadata.deletionTimestamp) return;
      } catch {
        return; // gone: the operator stops, as a real one would
      }
      try {
        const list = await api.request<{
          items: {
            metadata: { namespace: string; name: string; finalizers?: string[]; deletionTimestamp?: string };
          }[];
        }>({ path: `/apis/${group}/v1/widgets` });
        for (const w of list.items) {
          if (!w.metadata.deletionTimestamp || !w.metadata.finalizers?.includes(finalizer)) continue;
          const key = `${w.metadata.namespace}/${w.metadata.name}`;
          if (!seen.has(key)) seen.set(key, Date.now());
          if (Date.now() - seen.get(key)! < delay) continue;
          await api.request({
            method: 'PATCH',
            path: `/apis/${group}/v1/namespaces/${w.metadata.namespace}/widgets/${w.metadata.name}`,
            contentType: 'application/merge-patch+json',
            body: { metadata: { finalizers: w.metadata.finalizers.filter((f) => f !== finalizer) } },
          });
        }
      } catch {
        /* the CRD is going: keep looping */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

async function orderedTrial(api: ApiClient, trial: number, entry: string) {
  const id = `tco${process.pid % 1000}t${serial++}`;
  const group = `${id}.kube-sweep.test`;
  const operatorNs = `${id}-operator`;
  const appNs = `${id}-app`;
  const h = async (args: string[]) => {
    const r = await execa(helm, [...args, '--kubeconfig', kubeconfig], { reject: false });
    if (r.exitCode !== 0) throw new Error(`helm ${args.join(' ')}: ${r.stderr}`);
  };
  await h([
    'install',
    'operator',
    chart('operator'),
    '-n',
    operatorNs,
    '--create-namespace',
    '--set',
    `group=${group}`,
  ]);
  for (let i = 0; ; i++) {
    try {
      await h(['install', 'app', chart('app'), '-n', appNs, '--create-namespace', '--set', `group=${group}`]);
      break;
    } catch (error) {
      if (i > 40) throw error;
      await new Promise((r) => setTimeout(r, 500)); // the CRD is not served yet
    }
  }
  const stop = startOperator(api, group, operatorNs);
  await new Promise((r) => setTimeout(r, 1000));
  const mark = auditMark();
  const r = await runKubeSweep(entry, `${id}-*`, { 'INPUT_STAGE-TIMEOUT': '60s' });
  await stop();
  await new Promise((res) => setTimeout(res, 1500));
  const events = auditSince(mark);
  // The last finalizer patch of stage 1's Widgets, then the first request of kube-sweep or its
  // helm about this environment received after it that is not a watch: the next step starting.
  const patches = events.filter(
    (e) => e.stage === 'ResponseComplete' && agentOf(e) === 'operator' && e.verb === 'patch',
  );
  const last = patches.at(-1);
  let noticeMs: number | undefined;
  let next: AuditEvent | undefined;
  if (last) {
    const at = Date.parse(last.stageTimestamp);
    next = events
      .filter(
        (e) =>
          (agentOf(e) === 'kube-sweep' || agentOf(e) === 'helm') &&
          e.verb !== 'watch' &&
          (e.requestURI.includes(`${id}-`) || e.requestURI.includes(`${id}.`)) && // this trial's
          Date.parse(e.requestReceivedTimestamp) >= at,
      )
      .sort((a, b) => Date.parse(a.requestReceivedTimestamp) - Date.parse(b.requestReceivedTimestamp))[0];
    if (next) noticeMs = Date.parse(next.requestReceivedTimestamp) - at;
  }
  const t: Trial = {
    trial,
    wallS: seconds(r.wallMs),
    verdict: r.verdict,
    noticeMs,
    lastPatch: last?.requestURI,
    nextRequest: next ? `${next.userAgent} ${next.verb} ${next.requestURI}` : undefined,
  };
  trials.push(t);
  log(
    `ordered trial ${trial}: ${t.wallS} s ${t.verdict}; next step ${noticeMs ?? '?'} ms after the last finalizer patch (${t.nextRequest})`,
  );
  // Leftovers of a failed trial.
  await execa(
    kubectl,
    ['--kubeconfig', kubeconfig, 'delete', 'ns', appNs, operatorNs, '--ignore-not-found', '--wait=false'],
    {
      reject: false,
    },
  );
}

// --- main --------------------------------------------------------------------------------------
const startedAt = new Date();
log(`entries: ${[...entries].map(([k, v]) => `${k}=${v}`).join(', ')}; approaches: ${approaches.join(', ')}`);
for (const size of values.sizes.split(',').filter(Boolean).map(Number)) {
  for (let run = 1; run <= Number(values.runs); run++) {
    // Turn the order each run, so that no approach always follows the same one.
    const order = approaches.map((_, i) => approaches[(i + run - 1) % approaches.length]!);
    for (const approach of order) await measureBulk(size, run, approach);
  }
}
const api = await createApiClient(loadKubeconfig(kubeconfig, '', {}), {
  timeoutMs: 30_000,
  userAgent: 'bench-operator',
});
for (let i = 1; i <= Number(values.trials); i++) await orderedTrial(api, i, entries.get('kube-sweep')!);
await api.close();

// --- summary -----------------------------------------------------------------------------------
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const summary: Record<string, unknown> = {
  started: startedAt.toISOString(),
  machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
  node: process.version,
  loadAverageAtEnd: loadavg().map((x) => x.toFixed(1)),
  sizes: {} as Record<string, unknown>,
};
for (const size of values.sizes.split(',').filter(Boolean).map(Number)) {
  const of = (a: string) => measurements.filter((m) => m.size === size && m.approach === a);
  const wall = (a: string) => median(of(a).map((m) => m.wallS));
  const objects = size * 100;
  const row: Record<string, unknown> = {
    objects,
    wallSeconds: Object.fromEntries(approaches.map((a) => [a, wall(a)])),
    allOk: Object.fromEntries(approaches.map((a) => [a, of(a).every((m) => m.ok)])),
    requests: Object.fromEntries(approaches.map((a) => [a, of(a).map((m) => m.requests)])),
  };
  for (const name of entries.keys()) {
    row[`${name}/floor`] = Number((wall(name) / wall('floor')).toFixed(2));
    row[`sequential/${name}`] = Number((wall('sequential') / wall(name)).toFixed(2));
    row[`${name} requests per object`] = Number(
      (median(of(name).map((m) => m.requests['kube-sweep'] ?? 0)) / objects).toFixed(4),
    );
    row[`${name} peak MiB`] = Math.max(...of(name).map((m) => m.peakMiB ?? 0));
    row[`${name} breakdown (s, first run)`] = of(name)[0]?.breakdown;
  }
  (summary.sizes as Record<string, unknown>)[String(size)] = row;
}
if (trials.length > 0) {
  const within = trials.filter((t) => t.noticeMs !== undefined && t.noticeMs <= 1000).length;
  summary.ordered = {
    trials: trials.length,
    wallSecondsMedian: median(trials.map((t) => t.wallS)),
    verdicts: trials.map((t) => t.verdict),
    noticeMs: trials.map((t) => t.noticeMs ?? null),
    noticedWithin1s: `${within}/${trials.length}`,
    noticeMsMax: Math.max(...trials.map((t) => t.noticeMs ?? Infinity)),
  };
}
const text = JSON.stringify(summary, null, 2);
console.log(text);
if (values.json) writeFileSync(values.json, text + '\n');
