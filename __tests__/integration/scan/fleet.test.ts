/**
 * A fleet of two real control planes at once: each scanned into its own report (one of them with
 * a webhook whose backend is gone), then merged (`mode: merge`) with a report cut short and one of
 * an unknown schemaVersion beside them; and the CLI's `scan --context a,b`, which scans both
 * contexts of one kubeconfig concurrently into the same fleet summary.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { main } from '../../../src/cli/index.js';
import type { Report } from '../../../src/report/report.js';
import { runAction } from '../support/action.js';
import { adminApi, clusterEnv, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { startSecondControlPlane } from '../support/second-cluster.js';
import { createWebhookWithoutBackend, webhookConfigurationPath } from '../support/webhooks.js';
import { schemaErrors } from '../../unit/support/report-schema.js';

let api: ApiClient;
let second: Awaited<ReturnType<typeof startSecondControlPlane>>;
const webhook = uniqueName('fleet');
const webhookPath = webhookConfigurationPath(webhook);

beforeAll(async () => {
  api = await adminApi();
  second = await startSecondControlPlane();
  // Only the first cluster has a webhook whose backend namespace does not exist.
  await createWebhookWithoutBackend(api, webhook);
}, 600_000);

afterAll(async () => {
  await deleteIfPresent(api, webhookPath);
  await api.close();
  await second?.stop();
});

/** One kubeconfig with both control planes as contexts `alpha` (the first) and `beta`. */
function twoContextKubeconfig(dir: string): string {
  const doc = (path: string) => parse(readFileSync(path, 'utf8')) as Record<string, { name: string }[]>;
  const a = doc(clusterEnv().kubeconfig);
  const b = doc(second.kubeconfig);
  const renamed = (d: Record<string, { name: string; [k: string]: unknown }[]>, n: string) => ({
    clusters: d.clusters!.map((c) => ({ ...c, name: `${n}-cluster` })),
    users: d.users!.map((u) => ({ ...u, name: `${n}-user` })),
    contexts: [{ name: n, context: { cluster: `${n}-cluster`, user: `${n}-user` } }],
  });
  const [ra, rb] = [renamed(a, 'alpha'), renamed(b, 'beta')];
  const path = join(dir, 'kubeconfig');
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [...ra.clusters, ...rb.clusters],
      users: [...ra.users, ...rb.users],
      contexts: [...ra.contexts, ...rb.contexts],
      'current-context': 'alpha',
    }),
    { mode: 0o600 },
  );
  return path;
}

const ours = (f: { code: string; object: { name: string } }) =>
  f.code === 'WebhookBackendMissing' && f.object.name === webhook;

test('merge: a row per cluster, the one with a finding fails the fleet; a cut-short and an unknown report make no crash', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-fleet-'));
  for (const d of ['kube-sweep-dev', 'kube-sweep-staging', 'kube-sweep-eu', 'kube-sweep-us'])
    mkdirSync(join(dir, 'reports', d), { recursive: true });
  const dev = await runAction({
    mode: 'scan',
    'cluster-name': 'dev',
    'fail-on': 'never',
    'report-path': join(dir, 'reports/kube-sweep-dev/report.json'),
  });
  const staging = await runAction({
    mode: 'scan',
    kubeconfig: second.kubeconfig,
    'cluster-name': 'staging',
    'fail-on': 'never',
    'report-path': join(dir, 'reports/kube-sweep-staging/report.json'),
  });
  expect(dev.report.findings!.some(ours)).toBe(true);
  expect(staging.report.findings!.some(ours)).toBe(false);
  expect(staging.report.cluster.server).not.toBe(dev.report.cluster.server);
  writeFileSync(join(dir, 'reports/kube-sweep-eu/report.json'), JSON.stringify(dev.report).slice(0, 200));
  writeFileSync(
    join(dir, 'reports/kube-sweep-us/report.json'),
    JSON.stringify({ ...staging.report, schemaVersion: 2 }),
  );

  const merged = await runAction(
    { mode: 'merge', reports: 'reports/**/*.json', 'fail-on': 'error' },
    {},
    dir,
  );
  expect(schemaErrors(merged.report)).toEqual([]);
  expect(merged.report.verdict).toBe('leftovers');
  const fleet = merged.report.fleet!;
  expect(fleet.clusters.map((c) => [c.name, c.verdict])).toEqual([
    ['dev', dev.report.verdict],
    ['staging', staging.report.verdict],
  ]);
  expect(fleet.clusters[0]!.failing).toContain(dev.report.findings!.find(ours)!.key);
  expect(fleet.clusters[1]!.failing).toEqual([]);
  expect(fleet.unreadable.map((u) => u.file)).toEqual([
    'reports/kube-sweep-eu/report.json',
    'reports/kube-sweep-us/report.json',
  ]);
  expect(merged.summary).toMatch(/^## ❌ kube-sweep fleet: findings over fail-on in 1 of 2 cluster\(s\)/);
  expect(merged.summary).toContain('### 2 report(s) could not be read');
  expect(merged.summary).toContain('- `reports/kube-sweep-us/report.json`: schemaVersion 2');
  expect(merged.summary).toMatch(/^\| `dev` \| .*\| `WebhookBackendMissing`|^\| `dev` \|/m);
  expect(merged.summary).not.toContain(dev.report.cluster.server);
  expect(merged.failures).toHaveLength(1);

  // Without the cluster that fails: the unreadable files alone make it partial, never clean.
  const lenient = await runAction(
    { mode: 'merge', reports: 'reports/kube-sweep-staging/*.json\nreports/kube-sweep-eu/*.json' },
    {},
    dir,
  );
  expect(lenient.report.verdict).toBe('partial');
  expect(lenient.failures).toEqual([]);
});

test('scan --context alpha,beta: both control planes at once, one fleet summary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-fleet-'));
  const kubeconfig = twoContextKubeconfig(dir);
  let out = '';
  let err = '';
  const code = await main(
    ['scan', '--kubeconfig', kubeconfig, '--context', 'alpha,beta', '--output', 'json'],
    (s) => (out += s),
    (s) => (err += s),
  );
  const report = JSON.parse(out) as Report;
  expect(schemaErrors(report)).toEqual([]);
  expect(report.mode).toBe('merge');
  expect(report.fleet!.clusters.map((c) => [c.name, c.context])).toEqual([
    ['alpha', 'alpha'],
    ['beta', 'beta'],
  ]);
  expect(report.fleet!.clusters[0]!.findings.some(ours)).toBe(true);
  expect(report.fleet!.clusters[1]!.findings.some(ours)).toBe(false);
  expect(code).toBe(1);
  expect(err).toContain('[alpha] ');
  expect(err).toContain('[beta] ');
  // --all-contexts finds the same two.
  let all = '';
  await main(
    ['scan', '--kubeconfig', kubeconfig, '--all-contexts', '--output', 'json', '--fail-on', 'never'],
    (s) => (all += s),
    () => {},
  );
  expect((JSON.parse(all) as Report).fleet!.clusters.map((c) => c.name)).toEqual(['alpha', 'beta']);
});
