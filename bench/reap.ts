/**
 * Reap at scale (issue 24, "Measured"): for each size in `--sizes` (10,40) it makes that many
 * abandoned environments (one namespace `breap-<i>-web` each, labelled bench-abandoned=yes, with
 * `--releases` (5) releases of test/charts/bulk, `--objects` small objects each), reaps them
 * with the CLI (`kube-sweep reap`, the bundle dist/cli) at `--concurrency` (4) environments at
 * once, makes them again and reaps them one after another (`--reap-concurrency 1`), and prints
 * both wall times, their ratio and each run's peak memory (GNU time's maximum resident set size,
 * which covers the CLI's relaunched child). Then a merge of `--reports` (50) copies of one scan
 * report of this cluster (each named as another cluster), timed the same way. It prints
 * figures; it asserts nothing.
 *
 * It deletes every `breap-*` namespace: use a control plane of your own, e.g.
 *   node --experimental-transform-types --disable-warning=ExperimentalWarning --import ./bench/ts-hooks.mjs \
 *     bench/reap.ts --cluster-dir $PWD/.cluster [--sizes 10,40] [--releases 5] [--objects 5]
 */
import { execa } from 'execa';
import pLimit from 'p-limit';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'cluster-dir': { type: 'string', default: process.env.KUBE_SWEEP_CLUSTER_DIR ?? '' },
    sizes: { type: 'string', default: '10,40' },
    releases: { type: 'string', default: '5' },
    objects: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '4' },
    reports: { type: 'string', default: '50' },
    'install-concurrency': { type: 'string', default: '4' },
  },
});
const dir = values['cluster-dir'];
if (!dir) throw new Error('give --cluster-dir (the folder test/cluster/up.sh wrote)');
const env = Object.fromEntries(
  [...readFileSync(join(dir, 'env'), 'utf8').matchAll(/^export (\w+)='([^']*)'/gm)].map((m) => [
    m[1]!,
    m[2]!,
  ]),
);
const kubeconfig = env.KUBECONFIG!;
const helm = env.HELM4!;
const kubectl = env.KUBECTL!;
const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli', 'index.js');
const chart = join(root, 'test', 'charts', 'bulk');
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const ns = (i: number) => `breap-${i}-web`;

/** Runs the CLI under GNU time: wall seconds, peak RSS in MiB, exit code, stdout. */
async function timed(args: string[]) {
  const r = await execa('/usr/bin/time', ['-f', 'BENCH %e %M', process.execPath, cli, ...args], {
    reject: false,
    all: false,
  });
  const m = /BENCH ([\d.]+) (\d+)/.exec(r.stderr);
  return { wallS: Number(m?.[1]), peakMiB: Number(m?.[2]) / 1024, exitCode: r.exitCode, stdout: r.stdout };
}

/** `n` environments of `releases` releases each; returns the seconds it took. */
async function makeEnvironments(n: number): Promise<number> {
  const started = performance.now();
  for (let i = 1; i <= n; i++) {
    const manifest = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns(i)}","labels":{"bench-abandoned":"yes"}}}`;
    await execa(kubectl, ['--kubeconfig', kubeconfig, 'apply', '-f', '-'], { input: manifest });
  }
  const limit = pLimit(Number(values['install-concurrency']));
  const objects = Number(values.objects);
  await Promise.all(
    Array.from({ length: n * Number(values.releases) }, (_, k) =>
      limit(async () => {
        const i = Math.floor(k / Number(values.releases)) + 1;
        const r = await execa(
          helm,
          [
            'upgrade',
            '--install',
            `r${k % Number(values.releases)}`,
            chart,
            '-n',
            ns(i),
            '--kubeconfig',
            kubeconfig,
            '--set',
            `configMaps=${objects}`,
            '--set',
            'secrets=0',
            '--set',
            'services=0',
          ],
          { reject: false },
        );
        if (r.exitCode !== 0) throw new Error(`helm install in ${ns(i)}: ${r.stderr}`);
      }),
    ),
  );
  return (performance.now() - started) / 1000;
}

async function reap(n: number, concurrency: number) {
  const r = await timed([
    'reap',
    '--environments',
    'breap-{id}-*',
    '--abandoned-label',
    'bench-abandoned=yes',
    '--max-environments',
    String(n),
    '--reap-concurrency',
    String(concurrency),
    '--kubeconfig',
    kubeconfig,
    '--helm',
    helm,
    '--output',
    'json',
  ]);
  const report = JSON.parse(r.stdout) as { verdict: string; reap?: { environments: { outcome: string }[] } };
  const reaped = report.reap?.environments.filter((e) => e.outcome === 'reaped').length ?? 0;
  return { ...r, verdict: report.verdict, reaped };
}

const rows: string[] = [];
for (const n of values.sizes.split(',').map(Number)) {
  const result: Record<string, Awaited<ReturnType<typeof reap>>> = {};
  for (const [name, c] of [
    ['concurrent', Number(values.concurrency)],
    ['sequential', 1],
  ] as const) {
    const setup = await makeEnvironments(n);
    log(
      `${n} environments x ${values.releases} releases made in ${setup.toFixed(0)} s (load ${loadavg()[0]!.toFixed(1)})`,
    );
    result[name] = await reap(n, c);
    const x = result[name]!;
    log(
      `${n} ${name} (reap-concurrency ${c}): ${x.wallS} s, peak ${x.peakMiB.toFixed(0)} MiB, verdict ${x.verdict}, ${x.reaped} reaped`,
    );
  }
  const [a, b] = [result.concurrent!, result.sequential!];
  rows.push(
    `| ${n} | ${a.wallS.toFixed(1)} s | ${b.wallS.toFixed(1)} s | ${(b.wallS / a.wallS).toFixed(2)}x | ${a.peakMiB.toFixed(0)} / ${b.peakMiB.toFixed(0)} MiB | ${a.verdict}, ${a.reaped} / ${b.verdict}, ${b.reaped} |`,
  );
}

// --- a merge of many reports -------------------------------------------------------------------
// Findings to merge: Helm leftovers (ConfigMaps labelled for a release that is gone).
const source = 'breap-merge-src';
await execa(kubectl, ['--kubeconfig', kubeconfig, 'create', 'namespace', source], { reject: false });
for (let i = 0; i < 100; i++)
  await execa(kubectl, ['--kubeconfig', kubeconfig, 'apply', '-n', source, '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `left-${i}`,
        labels: { 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: {
          'meta.helm.sh/release-name': `gone-${i % 10}`,
          'meta.helm.sh/release-namespace': source,
        },
      },
    }),
  });
const folder = mkdtempSync(join(tmpdir(), 'kube-sweep-bench-merge-'));
const scan = await timed(['scan', '--kubeconfig', kubeconfig, '--output', 'json', '--fail-on', 'never']);
const one = JSON.parse(scan.stdout) as { cluster: Record<string, unknown>; findings?: unknown[] };
for (let i = 0; i < Number(values.reports); i++)
  writeFileSync(
    join(folder, `r${i}.json`),
    JSON.stringify({ ...one, cluster: { ...one.cluster, name: `c${i}` } }),
  );
const merged = await timed(['merge', join(folder, '*.json'), '--output', 'json']);
const fleet = JSON.parse(merged.stdout) as { verdict: string; fleet?: { clusters: unknown[] } };

console.log(
  `machine: ${cpus().length} cores (${cpus()[0]?.model}), load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(
  '| environments | concurrent | one after another | ratio | peak memory (conc. / seq.) | verdict, reaped |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
console.log(
  `merge of ${values.reports} reports (${one.findings?.length ?? 0} findings each): ${merged.wallS} s, peak ${merged.peakMiB.toFixed(0)} MiB, ${fleet.fleet?.clusters.length} clusters, verdict ${fleet.verdict}`,
);
await execa(kubectl, ['--kubeconfig', kubeconfig, 'delete', 'namespace', source, '--wait=false'], {
  reject: false,
});
