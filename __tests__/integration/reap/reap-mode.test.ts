/**
 * `mode: reap` on the real control plane, with the pull requests served by the local GitHub
 * recorder: environments of different ages (one expired by kube-sweep.io/expires-at long ago, one
 * by kube-janitor's janitor/ttl, one created seconds before another with `older-than` between
 * their ages, so only the older one is abandoned by its creationTimestamp), a closed and an open
 * pull request, protected ones (the `default` namespace carries an id; a namespace labelled
 * kube-sweep.io/protected=true; one the `protect` input names), one labelled
 * kube-sweep.io/keep=true and one whose pull request carries keep-label.
 * Above max-environments and with dry-run nothing is touched; the real run tears down exactly the
 * abandoned ones, and the audit log shows kube-sweep touched only their namespaces.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
import {
  adminApi,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import { runnerEnv, startGitHubRecorder, type GitHubRecorder } from '../support/github-recorder.js';
import { schemaErrors } from '../../unit/support/report-schema.js';

let api: ApiClient;
let recorder: GitHubRecorder;
const prefix = uniqueName('reap');
const label = `${prefix}.example.com/preview-id`;
// 101 expired long ago (annotation), 102 open PR, 103 closed PR, 104 closed but kept by label,
// 105 closed but its PR carries keep-label, 106 closed but protected (the default namespace),
// 107 expired by janitor/ttl, 108 closed but labelled kube-sweep.io/protected=true, 109 closed
// but named by the protect input. (The age by creationTimestamp has a test of its own below.)
const names = {
  101: [`${prefix}-101-api`, `${prefix}-101-db`],
  102: [`${prefix}-102-api`],
  103: [`${prefix}-103-api`],
  104: [`${prefix}-104-api`],
  105: [`${prefix}-105-api`],
  107: [`${prefix}-107-api`],
  108: [`${prefix}-108-api`],
  109: [`${prefix}-109-api`],
};
/** Abandoned environments of the real run. */
const abandonedIds = ['101', '103', '107'];

beforeAll(async () => {
  api = await adminApi();
  recorder = await startGitHubRecorder({
    pulls: [
      // More open pull requests than one page (per_page 100) holds: the list is paged.
      ...Array.from({ length: 120 }, (_, i) => ({ number: 1000 + i, state: 'open' as const })),
      { number: 102, state: 'open' },
      { number: 103, state: 'closed', merged: true },
      { number: 104, state: 'closed' },
      { number: 105, state: 'closed', labels: ['keep-preview'] },
      { number: 106, state: 'closed' },
      { number: 108, state: 'closed' },
      { number: 109, state: 'closed' },
    ],
  });
  const expired = { 'kube-sweep.io/expires-at': '2020-01-01T00:00:00Z' };
  for (const ns of names[101]) await createNamespaceWith(ns, {}, expired);
  for (const ns of [...names[102], ...names[103], ...names[105], ...names[109]])
    await createNamespaceWith(ns, {}, {});
  await createNamespaceWith(names[104][0]!, { 'kube-sweep.io/keep': 'true' }, {});
  await createNamespaceWith(names[107][0]!, {}, { 'janitor/ttl': '1s' });
  await createNamespaceWith(names[108][0]!, { 'kube-sweep.io/protected': 'true' }, {});
  for (const ns of Object.values(names).flat())
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } },
    });
  await api.request({
    method: 'PATCH',
    path: '/api/v1/namespaces/default',
    contentType: 'application/merge-patch+json',
    body: { metadata: { labels: { [label]: '106' } } },
  });
  // 107's janitor/ttl of 1s runs from its creationTimestamp (whole seconds): wait until it has
  // passed, or a fast run judges 107 before it expires (seen on an idle machine).
  const created = await api.request<{ metadata: { creationTimestamp: string } }>({
    path: `/api/v1/namespaces/${names[107][0]!}`,
  });
  const expiresAt = Date.parse(created.metadata.creationTimestamp) + 1000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt + 100 - Date.now())));
});

afterAll(async () => {
  await api.request({
    method: 'PATCH',
    path: '/api/v1/namespaces/default',
    contentType: 'application/merge-patch+json',
    body: { metadata: { labels: { [label]: null } } },
  });
  for (const ns of Object.values(names).flat()) await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  await recorder.close();
  await api.close();
});

async function createNamespaceWith(
  name: string,
  labels: Record<string, string>,
  annotations: Record<string, string>,
) {
  await createNamespace(api, name, labels);
  if (Object.keys(annotations).length)
    await api.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${name}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { annotations } },
    });
}

/** kube-sweep's mutating requests since `mark` that touched anything but `namespaces`. */
function mutationsOutside(mark: number, since: Date, namespaces: readonly string[]) {
  return toolMutationsSince(mark, since).filter((e) => {
    const m = /\/namespaces\/([^/?]+)/.exec(e.requestURI);
    return !m || !namespaces.includes(m[1]!);
  });
}

const inputs = (extra: Record<string, string> = {}) => ({
  mode: 'reap',
  environments: `${prefix}-{id}-*`,
  'environment-label': label,
  'older-than': '30d',
  protect: `${prefix}-109-*`,
  'pr-state': 'closed',
  'keep-label': 'keep-preview',
  'github-token': 'ghs_test',
  ...extra,
});

test('above max-environments nothing is reaped: the run lists them and fails', async () => {
  const mark = auditMark();
  const started = new Date();
  const run = await runAction(inputs({ 'max-environments': '1' }), runnerEnv(recorder.url));
  expect(run.report.verdict).toBe('error');
  expect(run.report.error).toMatch(
    /refusing to reap 3 environments, more than 'max-environments' \(1\); nothing was deleted\. Abandoned: 101, 103, 107/,
  );
  expect(JSON.parse(run.outputs.get('kept')!).sort()).toEqual(
    ['101', '102', '103', '104', '105', '106', '107', '108', '109'].sort(),
  );
  expect(toolMutationsSince(mark, started)).toEqual([]);
});

test('dry run: what would be reaped and why; nothing is touched', async () => {
  const mark = auditMark();
  const started = new Date();
  const run = await runAction(inputs({ 'dry-run': 'true' }), runnerEnv(recorder.url));
  expect(run.report.verdict).toBe('planned');
  expect(JSON.parse(run.outputs.get('reaped')!).sort()).toEqual(abandonedIds);
  const e101 = run.report.reap!.environments.find((e) => e.id === '101')!;
  expect(e101).toMatchObject({ outcome: 'would-reap', namespaces: names[101] });
  expect(e101.reasons[0]).toMatch(/^expired \(2020-01-01T00:00:00\.000Z/);
  expect(e101.dryRun!.namespaces).toEqual(names[101]);
  expect(run.summary).toContain('### Environments: 3 would-reap, 6 kept');
  expect(toolMutationsSince(mark, started)).toEqual([]);
});

test('the abandoned environments are torn down, each on its own; nothing else is touched', async () => {
  const before = recorder.requests.length;
  const mark = auditMark();
  const started = new Date();
  const run = await runAction(inputs(), runnerEnv(recorder.url));
  expect(schemaErrors(run.report)).toEqual([]);
  expect(run.report.verdict).toBe('clean');
  expect(run.failures).toEqual([]);
  const ids = (output: string) => (JSON.parse(run.outputs.get(output)!) as string[]).sort();
  expect([ids('reaped'), ids('kept'), ids('failed')]).toEqual([
    abandonedIds,
    ['102', '104', '105', '106', '108', '109'],
    [],
  ]);
  const byId = new Map(run.report.reap!.environments.map((e) => [e.id, e]));
  expect(byId.get('103')!.reasons).toEqual(['pull request #103 is merged']);
  expect(byId.get('102')!.reasons).toEqual(['not abandoned: not older than 30d 0h, pull request #102 open']);
  expect(byId.get('104')!.reasons[0]).toBe(`${names[104][0]} is labelled kube-sweep.io/keep=true`);
  expect(byId.get('105')!.reasons[0]).toBe("pull request #105 carries the label 'keep-preview'");
  expect(byId.get('106')!.reasons[0]).toBe(
    'protected: namespace default is never deleted (a control-plane namespace)',
  );
  expect(byId.get('107')!.reasons[0]).toMatch(/^expired \(.*by annotation/);
  expect(byId.get('108')!.reasons[0]).toBe(
    `protected: namespace ${names[108][0]} is never deleted (labelled kube-sweep.io/protected=true)`,
  );
  expect(byId.get('109')!.reasons[0]).toBe(
    `protected: namespace ${names[109][0]} is never deleted (input 'protect' matches it ('${prefix}-109-*'))`,
  );
  for (const id of abandonedIds) {
    expect(byId.get(id)).toMatchObject({ outcome: 'reaped', verdict: 'clean' });
    expect(byId.get(id)!.teardown!.namespaces.map((n) => n.status)).toEqual(
      byId.get(id)!.namespaces.map(() => 'deleted'),
    );
  }
  const abandonedNamespaces = abandonedIds.flatMap((id) => names[Number(id) as keyof typeof names]);
  for (const ns of abandonedNamespaces)
    expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
  for (const id of ['102', '104', '105', '108', '109'])
    for (const ns of names[Number(id) as keyof typeof names])
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
  // The audit log: kube-sweep's mutations are all in the abandoned environments' namespaces.
  const touched = new Set(abandonedNamespaces);
  const mutations = toolMutationsSince(mark, started);
  expect(mutations.length).toBeGreaterThan(0);
  const outside = mutations.filter((e) => {
    const m = /\/namespaces\/([^/?]+)/.exec(e.requestURI);
    return !m || !touched.has(m[1]!);
  });
  expect(outside).toEqual([]);
  // GitHub: the open pull requests page by page, then one request for each other id, once.
  const calls = recorder.requests.slice(before).map((r) => r.path);
  expect(calls.filter((p) => p.startsWith('/repos/acme/shop/pulls?'))).toHaveLength(2);
  const single = calls.filter((p) => /^\/repos\/acme\/shop\/pulls\/\d+$/.test(p)).sort();
  expect(single).toEqual(
    ['101', '103', '104', '105', '106', '107', '108', '109'].sort().map((n) => `/repos/acme/shop/pulls/${n}`),
  );
  expect(recorder.requests.slice(before).every((r) => r.authorization === 'token ghs_test')).toBe(true);
  for (const ns of abandonedNamespaces) await waitGone(api, `/api/v1/namespaces/${ns}`);
});

test('by creationTimestamp: of two environments created seconds apart, only the older one is reaped', async () => {
  // older-than lies between their ages: a was created ageMs + 1.5 s before b (the timestamps
  // have a resolution of one second), and the run starts right after b is created.
  const agePrefix = uniqueName('reap-age');
  const a = [`${agePrefix}-1-api`, `${agePrefix}-1-db`];
  const b = [`${agePrefix}-2-api`];
  const ageMs = 4000;
  try {
    for (const ns of a) await createNamespace(api, ns);
    await new Promise((r) => setTimeout(r, ageMs + 1500));
    for (const ns of b) await createNamespace(api, ns);
    const mark = auditMark();
    const started = new Date();
    const run = await runAction(
      { mode: 'reap', environments: `${agePrefix}-{id}-*`, 'older-than': `${ageMs / 1000}s` },
      runnerEnv(recorder.url),
    );
    expect([run.report.verdict, run.outputs.get('reaped'), run.outputs.get('kept')]).toEqual([
      'clean',
      '["1"]',
      '["2"]',
    ]);
    const byId = new Map(run.report.reap!.environments.map((e) => [e.id, e]));
    expect(byId.get('1')!.reasons).toEqual([
      expect.stringMatching(/^older than 4s \(newest namespace created \d+s ago\)$/),
    ]);
    expect(byId.get('2')!.reasons).toEqual(['not abandoned: not older than 4s']);
    for (const ns of a) expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
    for (const ns of b) expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    expect(mutationsOutside(mark, started, a)).toEqual([]);
  } finally {
    for (const ns of [...a, ...b]) await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('by annotation alone (no older-than, no other condition): an environment whose namespaces expired is reaped, one without an expiry is kept', async () => {
  const annPrefix = uniqueName('reap-ann');
  const expired = [`${annPrefix}-1-api`, `${annPrefix}-1-db`];
  const unmarked = [`${annPrefix}-2-api`];
  try {
    for (const ns of expired)
      await createNamespaceWith(ns, {}, { 'kube-sweep.io/expires-at': '2020-01-01T00:00:00Z' });
    for (const ns of unmarked) await createNamespace(api, ns);
    const mark = auditMark();
    const started = new Date();
    const run = await runAction(
      { mode: 'reap', environments: `${annPrefix}-{id}-*` },
      runnerEnv(recorder.url),
    );
    expect([run.report.verdict, run.outputs.get('reaped'), run.outputs.get('kept')]).toEqual([
      'clean',
      '["1"]',
      '["2"]',
    ]);
    const byId = new Map(run.report.reap!.environments.map((e) => [e.id, e]));
    expect(byId.get('1')!.reasons).toEqual(['expired (2020-01-01T00:00:00.000Z, by annotation)']);
    expect(byId.get('2')!.reasons).toEqual(['not abandoned: no expiry annotation on its namespaces']);
    for (const ns of expired) expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
    for (const ns of unmarked) expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    expect(mutationsOutside(mark, started, expired)).toEqual([]);
  } finally {
    for (const ns of [...expired, ...unmarked]) await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
