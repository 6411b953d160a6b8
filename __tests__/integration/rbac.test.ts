/**
 * The shipped ClusterRoles (rbac/) are enough: an identity bound to exactly kube-sweep-scan
 * reads the whole cluster with no coverage gap, and one bound to kube-sweep-teardown tears an
 * environment down cleanly.
 */
import type { ApiClient } from '../../src/cluster/api-client.js';
import { runAction } from './support/action.js';
import { adminApi, deleteIfPresent, uniqueName } from './support/cluster.js';
import { userKubeconfig, withClusterRole, withRole } from './support/identities.js';
import { chart, helm4 } from './support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('kube-sweep-scan is enough to read everything', async () => {
  expect.hasAssertions();
  const user = uniqueName('scanner');
  await withRole(api, 'kube-sweep-scan.yaml', user, async () => {
    const { report } = await runAction({ mode: 'inventory', kubeconfig: await userKubeconfig(user) });
    expect(report.verdict).toBe('complete');
    expect(report.inventory!.coverage).toEqual([]);
  });
});

test('kube-sweep-teardown is enough to tear an environment down', async () => {
  const user = uniqueName('teardown');
  const ns = uniqueName('rbac-env');
  expect((await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  try {
    await withRole(api, 'kube-sweep-teardown.yaml', user, async () => {
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig: await userKubeconfig(user),
      });
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
    });
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('an identity that may tear down but not read everything: the teardown is partial, never clean', async () => {
  const user = uniqueName('half-blind');
  const ns = uniqueName('rbac-env');
  const name = `kube-sweep-test-${user}`;
  expect((await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  // Everything in the core and apps groups (enough for this release and its namespace), nothing else.
  const rules = [
    { apiGroups: ['', 'apps'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['/version', '/api', '/api/*', '/apis', '/apis/*'], verbs: ['get'] },
  ];
  try {
    await withClusterRole(api, { name, user, rules }, async () => {
      const { report, outputs } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig: await userKubeconfig(user),
        'stage-timeout': '60s',
      });
      // It tore down what it could (the release and the namespace went) …
      expect(report.teardown!.stages[0]!.releases.map((r) => r.status)).toEqual(['uninstalled']);
      expect(report.teardown!.namespaces.map((n) => n.status)).toEqual(['deleted']);
      // … but the scan afterwards could not list everything, so it does not claim clean.
      expect(report.verdict).toBe('partial');
      expect(outputs.get('verdict')).toBe('partial');
      const forbidden = report
        .inventory!.coverage.filter((g) => g.reason === 'forbidden')
        .map((g) => g.resource);
      expect(forbidden).toEqual(
        expect.arrayContaining(['customresourcedefinitions.apiextensions.k8s.io/v1']),
      );
    });
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a view-only identity: one line counts what it may not read and names the role file to bind, instead of a line per resource', async () => {
  expect.hasAssertions();
  const user = uniqueName('viewer');
  // As Kubernetes' aggregated `view` role reads: get, list and watch on the core and apps groups.
  const rules = [
    { apiGroups: ['', 'apps'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
    { nonResourceURLs: ['/version', '/api', '/api/*', '/apis', '/apis/*'], verbs: ['get'] },
  ];
  await withClusterRole(api, { name: `kube-sweep-test-${user}`, user, rules }, async () => {
    const { report, log } = await runAction({ mode: 'scan', kubeconfig: await userKubeconfig(user) });
    const forbidden = report.inventory!.coverage.filter((g) => g.reason === 'forbidden');
    expect(forbidden.length).toBeGreaterThan(10);
    expect(report.verdict).not.toBe('clean');
    const lines = log.filter((l) => l.includes('forbidden'));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warning: could not read ${forbidden.length} resources \\(403 forbidden\\): (\\S+, ){4}\\S+ and ${forbidden.length - 5} more\\. ` +
            'Findings may be missing: bind this identity to the ClusterRole in rbac/kube-sweep-scan\\.yaml',
        ),
      ),
    ]);
  });
});
