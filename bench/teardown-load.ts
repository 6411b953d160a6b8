/**
 * Teardown under load (issue 8): installs `--releases` (50) releases of test/charts/bulk
 * (100 small objects each: 60 ConfigMaps, 30 Secrets, 10 headless Services) across
 * `--namespaces` (20) namespaces `load-00..load-19`, runs a kube-sweep teardown of `load-*`
 * in-process (the CLI's `main`, from src/, as `kube-sweep teardown` runs), and prints its wall
 * time and the API requests made, counted from the API server's audit log by user agent:
 * kube-sweep's own client (`kube-sweep`) and the helm it ran (`Helm/<version>`), with the ratio
 * of kube-sweep's requests to the objects torn down. It prints figures; it asserts nothing.
 *
 * Use a control plane of its own (it deletes every `load-*` namespace):
 *   export KUBE_SWEEP_CLUSTER_DIR=$PWD/.cluster-bench KUBE_SWEEP_APISERVER_PORT=22443 KUBE_SWEEP_ETCD_PORT=29791
 *   bash test/cluster/up.sh
 *   node --experimental-transform-types --disable-warning=ExperimentalWarning --import ./bench/ts-hooks.mjs \
 *     bench/teardown-load.ts --cluster-dir $KUBE_SWEEP_CLUSTER_DIR [--releases 50] [--namespaces 20]
 */
import { execa } from 'execa';
import pLimit from 'p-limit';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { main } from '../src/cli/index.js';
import { createApiClient } from '../src/cluster/api-client.js';
import { loadKubeconfig } from '../src/cluster/kubeconfig.js';

const { values } = parseArgs({
  options: {
    'cluster-dir': { type: 'string', default: process.env.KUBE_SWEEP_CLUSTER_DIR ?? '' },
    releases: { type: 'string', default: '50' },
    namespaces: { type: 'string', default: '20' },
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
const releaseCount = Number(values.releases);
const namespaceCount = Number(values.namespaces);
const chart = join(import.meta.dirname, '..', 'test', 'charts', 'bulk');
const nsName = (i: number) => `load-${String(i).padStart(2, '0')}`;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// --- install -------------------------------------------------------------------------------
const installStarted = performance.now();
const limit = pLimit(Number(values['install-concurrency']));
await Promise.all(
  Array.from({ length: releaseCount }, (_, i) =>
    limit(async () => {
      const ns = nsName(i % namespaceCount);
      const r = await execa(
        helm,
        ['upgrade', '--install', `r${i}`, chart, '-n', ns, '--create-namespace', '--kubeconfig', kubeconfig],
        { reject: false },
      );
      if (r.exitCode !== 0) throw new Error(`helm install r${i} in ${ns}: ${r.stderr}`);
    }),
  ),
);
log(`installed ${releaseCount} releases in ${((performance.now() - installStarted) / 1000).toFixed(1)} s`);

// --- count what is there ---------------------------------------------------------------------
const api = await createApiClient(loadKubeconfig(kubeconfig, '', {}), { timeoutMs: 60_000 });
let releaseObjects = 0;
let namespaceObjects = 0;
for (const resource of ['configmaps', 'secrets', 'services']) {
  const all = await api.request<{
    items: { metadata: { namespace: string; labels?: Record<string, string> } }[];
  }>({
    path: `/api/v1/${resource}`,
    accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
  });
  const inScope = all.items.filter((o) => o.metadata.namespace.startsWith('load-'));
  namespaceObjects += inScope.length;
  releaseObjects += inScope.filter((o) => o.metadata.labels?.['app.kubernetes.io/instance']).length;
}
await api.close();
log(
  `objects of the releases: ${releaseObjects}; ConfigMaps, Secrets and Services in the namespaces: ${namespaceObjects}`,
);

// --- the teardown ----------------------------------------------------------------------------
const auditLog = join(dir, 'audit.log');
const mark = statSync(auditLog).size;
const since = Date.now();
let json = '';
const started = performance.now();
const exitCode = await main(
  ['teardown', '--namespaces', 'load-*', '--kubeconfig', kubeconfig, '--helm', helm, '--output', 'json'],
  (s) => (json += s),
  () => {},
);
const wallS = (performance.now() - started) / 1000;
await new Promise((r) => setTimeout(r, 2000)); // let the audit log catch up
const report = JSON.parse(json) as { verdict: string; teardown?: { stages: { durationMs: number }[] } };

interface AuditEvent {
  stage: string;
  verb: string;
  userAgent?: string;
  requestURI: string;
  requestReceivedTimestamp: string;
}
const events = readFileSync(auditLog)
  .subarray(mark)
  .toString('utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as AuditEvent)
  .filter((e) => e.stage === 'ResponseComplete' && Date.parse(e.requestReceivedTimestamp) >= since);
const ours = events.filter((e) => e.userAgent === 'kube-sweep');
const helms = events.filter((e) => (e.userAgent ?? '').startsWith('Helm/'));
const byVerb = (list: AuditEvent[]) =>
  Object.entries(list.reduce<Record<string, number>>((m, e) => ((m[e.verb] = (m[e.verb] ?? 0) + 1), m), {}))
    .sort(([, a], [, b]) => b - a)
    .map(([v, n]) => `${v} ${n}`)
    .join(', ');

const result = {
  releases: releaseCount,
  namespaces: namespaceCount,
  releaseObjects,
  verdict: report.verdict,
  exitCode,
  wallSeconds: Number(wallS.toFixed(1)),
  kubeSweepRequests: ours.length,
  kubeSweepByVerb: byVerb(ours),
  helmRequests: helms.length,
  helmByVerb: byVerb(helms),
  ratio: Number((ours.length / releaseObjects).toFixed(3)),
  loadAverage: (await import('node:os')).loadavg().map((x) => x.toFixed(1)),
};
console.log(JSON.stringify(result, null, 2));
log(
  `teardown of ${releaseObjects} objects: ${result.verdict} in ${result.wallSeconds} s; ` +
    `kube-sweep ${ours.length} requests (${result.ratio} per object; target ≤ 2), helm ${helms.length}`,
);
