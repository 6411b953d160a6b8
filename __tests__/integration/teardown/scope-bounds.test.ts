/**
 * A scope that cannot surprise (issue 21), on the real control plane: a teardown of
 * `namespaces: '*'` is refused and sends no mutating request (audit log); `kube-*` namespaces,
 * namespaces labelled kube-sweep.io/protected=true and those the `protect` input names are never
 * touched even when a pattern matches them; a release whose manifest has an object in a
 * protected namespace is refused; more than `max-namespaces` is refused; `selector` narrows
 * `namespaces`; a selector alone that is only negative or matches every namespace is refused;
 * the dry run names the cluster-scoped objects kube-sweep would delete itself, first.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
import {
  adminApi,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

const configMapPath = (ns: string, name = 'marker') => `/api/v1/namespaces/${ns}/configmaps/${name}`;

/** Creates each namespace (with labels) holding a ConfigMap `marker`; returns the names. */
async function namespacesWithMarkers(spec: Record<string, Record<string, string>>): Promise<string[]> {
  for (const [name, labels] of Object.entries(spec)) {
    await createNamespace(api, name, labels);
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${name}/configmaps`,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'marker' } },
    });
  }
  return Object.keys(spec);
}

async function removeAll(names: readonly string[]) {
  for (const n of names) await deleteIfPresent(api, `/api/v1/namespaces/${n}`);
}

/** Runs a teardown and returns its run with the mutating requests kube-sweep and its helm sent. */
async function teardown(inputs: Record<string, string>) {
  const mark = auditMark();
  const since = new Date();
  const run = await runAction({ mode: 'teardown', 'stage-timeout': '60s', ...inputs });
  return { ...run, mutations: toolMutationsSince(mark, since) };
}

/** Whether every namespace still exists with its marker ConfigMap. */
async function untouched(names: readonly string[]): Promise<boolean[]> {
  return Promise.all(names.map(async (n) => (await getOrUndefined(api, configMapPath(n))) !== undefined));
}

test.each(['*', '?*', '[a-z]*'])(
  "a teardown of namespaces: '%s' is refused and deletes nothing",
  async (pattern) => {
    const id = uniqueName('star');
    const names = await namespacesWithMarkers({ [`kube-${id}`]: {}, [`${id}-env`]: {} });
    try {
      const { report, failures, mutations, summary } = await teardown({ namespaces: pattern });
      expect(report.verdict).toBe('error');
      expect(failures[0]).toMatch(
        /^refusing to tear down \(nothing was deleted\): input 'namespaces' has '.*', which has no literal character/,
      );
      expect(mutations).toEqual([]);
      expect(await untouched(names)).toEqual([true, true]);
      // The refused plan still shows what it would have reached, first.
      expect(report.plan!.blastRadius!.namespaces).toContain(`${id}-env`);
      expect(report.plan!.protectedMatched).toContain(`kube-${id}`);
      expect(summary.split('\n').find((l) => l.startsWith('### '))).toBe('### What a teardown deletes');
    } finally {
      await removeAll(names);
    }
  },
);

test('kube-*, labelled and protect-listed namespaces are never touched, even when a pattern matches them', async () => {
  const id = uniqueName('guard');
  const names = await namespacesWithMarkers({
    [`kube-${id}`]: {},
    [`${id}-infra`]: { 'kube-sweep.io/protected': 'true' },
    [`${id}-shared`]: {},
    [`${id}-env`]: {},
  });
  try {
    const { report, failures, mutations } = await teardown({
      namespaces: `kube-${id}\n${id}-*`,
      protect: `${id}-sha*`,
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');
    expect(report.plan!.protectedMatched).toEqual([`${id}-infra`, `${id}-shared`, `kube-${id}`]);
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[`${id}-env`, 'deleted']]);
    expect(await untouched([`kube-${id}`, `${id}-infra`, `${id}-shared`])).toEqual([true, true, true]);
    // Every change kube-sweep made was in the one namespace in scope.
    expect(mutations.length).toBeGreaterThan(0);
    expect(mutations.filter((e) => !e.requestURI.includes(`/namespaces/${id}-env`))).toEqual([]);
  } finally {
    await removeAll(names);
  }
});

/** A chart whose ConfigMap `planted` goes into each namespace of `targets` (its own manifest says so). */
function reachingChart(targets: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-reach-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'Chart.yaml'), 'apiVersion: v2\nname: reach\nversion: 0.1.0\n');
  writeFileSync(
    join(dir, 'templates', 'planted.yaml'),
    targets
      .map(
        (ns) =>
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n  namespace: ${ns}\ndata:\n  a: b\n`,
      )
      .join('---\n'),
  );
  return dir;
}

test('auto mode: a release whose manifest has objects in protected namespaces is refused, nothing deleted', async () => {
  const id = uniqueName('reach');
  const protectedOnes = await namespacesWithMarkers({
    [`kube-${id}`]: {},
    [`${id}-infra`]: { 'kube-sweep.io/protected': 'true' },
  });
  const env = `${id}-env`;
  const r = await helm4([
    'install',
    'reach',
    reachingChart([`kube-${id}`, `${id}-infra`]),
    '-n',
    env,
    '--create-namespace',
  ]);
  expect(r.exitCode).toBe(0);
  try {
    const { report, failures, mutations } = await teardown({ namespaces: env, 'uninstall-mode': 'auto' });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toContain(
      `release ${env}/reach has ConfigMap kube-${id}/planted in its manifest, in protected namespace kube-${id} (every kube-* namespace is protected)`,
    );
    expect(failures[0]).toContain(
      `release ${env}/reach has ConfigMap ${id}-infra/planted in its manifest, in protected namespace ${id}-infra (labelled kube-sweep.io/protected=true)`,
    );
    expect(mutations).toEqual([]);
    for (const ns of protectedOnes)
      expect(await getOrUndefined(api, configMapPath(ns, 'planted'))).toBeDefined();
    expect(
      await getOrUndefined(api, `/api/v1/namespaces/${env}/secrets/sh.helm.release.v1.reach.v1`),
    ).toBeDefined();
  } finally {
    await removeAll([...protectedOnes, env]);
  }
});

test('more namespaces than max-namespaces is refused before any change, naming the count and the first names', async () => {
  const id = uniqueName('many');
  const names = await namespacesWithMarkers({ [`${id}-a`]: {}, [`${id}-b`]: {}, [`${id}-c`]: {} });
  try {
    const { report, failures, mutations } = await teardown({ namespaces: `${id}-*`, 'max-namespaces': '2' });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toBe(
      'refusing to tear down (nothing was deleted): ' +
        `the scope has 3 namespaces, more than input 'max-namespaces' allows (2): ${id}-a, ${id}-b, ${id}-c; ` +
        "narrow 'namespaces' or 'selector', or raise 'max-namespaces' if all of them are meant",
    );
    expect(mutations).toEqual([]);
    expect(await untouched(names)).toEqual([true, true, true]);
  } finally {
    await removeAll(names);
  }
});

test('a scope that matches no namespace says so (headline, matched-namespaces 0) and passes without require-match', async () => {
  const typo = uniqueName('typo');
  const { report, failures, mutations, summary, outputs } = await teardown({ namespaces: typo });
  expect(failures).toEqual([]);
  expect(report.verdict).toBe('clean');
  expect(outputs.get('matched-namespaces')).toBe('0');
  expect(summary).toContain('## ✅ kube-sweep: passed: the scope matched no namespace, nothing to tear down');
  expect(report.warnings).toContain(`namespace pattern '${typo}' matched no namespace`);
  expect(mutations).toEqual([]);
});

test('require-match: a pattern that matches no namespace is refused, naming it, and nothing is deleted', async () => {
  const id = uniqueName('match');
  const names = await namespacesWithMarkers({ [`${id}-a`]: {} });
  try {
    const { report, failures, mutations, outputs } = await teardown({
      namespaces: `${id}-a, ${id}-typo`,
      'require-match': 'true',
    });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toBe(
      'refusing to tear down (nothing was deleted): ' +
        `input 'namespaces' has '${id}-typo', which matched no namespace, and 'require-match' is set; ` +
        "check the names (kubectl get namespaces), or drop 'require-match' if an environment that is already gone may pass",
    );
    expect(outputs.get('matched-namespaces')).toBe('1');
    expect(mutations).toEqual([]);
    expect(await untouched(names)).toEqual([true]);
  } finally {
    await removeAll(names);
  }
});

test('require-match: a scan whose pattern matches no namespace ends in error, never clean, and changes nothing', async () => {
  const typo = uniqueName('scan-typo');
  const mark = auditMark();
  const since = new Date();
  const { report, failures } = await runAction({ mode: 'scan', namespaces: typo, 'require-match': 'true' });
  expect(report.verdict).toBe('error');
  expect(failures[0]).toBe(
    `input 'namespaces' has '${typo}', which matched no namespace, and 'require-match' is set; ` +
      "check the names (kubectl get namespaces), or drop 'require-match' if an environment that is already gone may pass",
  );
  expect(toolMutationsSince(mark, since)).toEqual([]);
  // Without require-match the same scan runs (an environment already gone may leave orphans to find).
  const plain = await runAction({ mode: 'scan', namespaces: typo });
  expect(plain.report.verdict).not.toBe('error');
});

test('require-match: a selector under which nothing is in scope is refused', async () => {
  const id = uniqueName('sel');
  const names = await namespacesWithMarkers({ [`${id}-a`]: {} });
  try {
    const { report, failures, mutations } = await teardown({
      namespaces: `${id}-*`,
      selector: `env=${id}`,
      'require-match': 'true',
    });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toContain(
      `input 'selector' is 'env=${id}', which with 'namespaces' matched no namespace`,
    );
    expect(mutations).toEqual([]);
    expect(await untouched(names)).toEqual([true]);
  } finally {
    await removeAll(names);
  }
});

test('selector narrows namespaces: with both, a namespace must match a pattern and the selector', async () => {
  const id = uniqueName('narrow');
  const names = await namespacesWithMarkers({
    [`${id}-a`]: { env: id },
    [`${id}-b`]: {},
    [`other-${id}`]: { env: id },
  });
  try {
    const { report, failures, mutations } = await teardown({ namespaces: `${id}-*`, selector: `env=${id}` });
    expect(failures).toEqual([]);
    expect(report.plan!.namespaces).toEqual([`${id}-a`]);
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[`${id}-a`, 'deleted']]);
    expect(await untouched([`${id}-b`, `other-${id}`])).toEqual([true, true]);
    expect(mutations.filter((e) => !e.requestURI.includes(`/namespaces/${id}-a`))).toEqual([]);
  } finally {
    await removeAll(names);
  }
});

test.each([
  ['!kube-sweep-absent-label', 'which is only negative'],
  ['kubernetes.io/metadata.name', 'which matches every namespace of the cluster'],
])('a selector alone (%s) is refused for teardown', async (selector, says) => {
  const { report, failures, mutations } = await teardown({ selector });
  expect(report.verdict).toBe('error');
  expect(failures[0]).toContain(`input 'selector' is '${selector}', ${says}`);
  expect(mutations).toEqual([]);
});

test('the dry run names, first, the cluster-scoped objects kube-sweep would delete itself', async () => {
  const ns = uniqueName('radius');
  const r = await helm4(['install', 'r', chart('modes'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const { report, mutations, summary } = await teardown({ namespaces: ns, 'dry-run': 'true' });
    expect(report.verdict).toBe('planned');
    expect(mutations).toEqual([]);
    expect(report.plan!.blastRadius).toEqual({
      namespaces: [ns],
      releases: [{ release: `${ns}/r`, method: 'namespace' }],
      clusterScoped: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          name: `${ns}-r-reader`,
          release: `${ns}/r`,
          by: 'kube-sweep',
        },
      ],
      otherNamespaces: [],
    });
    const lines = summary.split('\n');
    expect(lines.find((l) => l.startsWith('### '))).toBe('### What a teardown deletes');
    expect(summary).toContain(
      `- Cluster-scoped objects: \`ClusterRole ${ns}-r-reader\` (release \`${ns}/r\`, by kube-sweep).`,
    );
  } finally {
    await helm4(['uninstall', 'r', '-n', ns]);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
