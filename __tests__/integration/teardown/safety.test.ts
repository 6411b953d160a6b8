/**
 * Safety of the teardown: when kube-sweep cannot see what it would need, it stops before
 * deleting anything; protected namespaces are never in the plan.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince, mutatingVerbs } from '../support/audit.js';
import { adminApi, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { userKubeconfig } from '../support/identities.js';
import { chart, helm4, installOperatorAndApp } from '../support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

async function withRelease(fn: (ns: string) => Promise<void>) {
  const ns = uniqueName('safety');
  const r = await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace']);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  try {
    await fn(ns);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}

test('a missing helm executable stops the teardown before any delete', async () => {
  await withRelease(async (ns) => {
    const mark = auditMark();
    const { report, failures } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      helm: '/nonexistent/helm',
    });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toBe(
      "input 'helm' is '/nonexistent/helm', which is not an executable on PATH; install Helm 3 or 4 in an earlier step or set 'helm' to its path (nothing was deleted)",
    );
    expect(kubeSweepRequestsSince(mark).filter((e) => mutatingVerbs.has(e.verb))).toEqual([]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/web-config`)).toBeDefined();
  });
});

test('an identity that may not read the release Secrets gets an error, not a blind teardown', async () => {
  await withRelease(async (ns) => {
    const user = uniqueName('no-secrets');
    const role = `kube-sweep-test-${user}`;
    await api.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role },
        rules: [
          {
            apiGroups: ['*'],
            resources: ['namespaces', 'configmaps', 'deployments', 'services'],
            verbs: ['*'],
          },
        ],
      },
    });
    await api.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
      },
    });
    try {
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig: await userKubeconfig(user),
      });
      expect(report.verdict).toBe('error');
      expect(failures[0]).toMatch(
        new RegExp(
          `^could not read the Helm releases in scope, so the order is unknown; nothing was deleted: listing Helm release Secrets in namespace ${ns}: .*HTTP 403`,
        ),
      );
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    } finally {
      await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}`);
      await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
    }
  });
});

test("namespaces: '*' never puts a protected namespace in the plan", async () => {
  const { report } = await runAction({ mode: 'plan', namespaces: '*' });
  expect(report.verdict).toBe('planned');
  expect(report.plan!.protectedMatched).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  for (const p of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) {
    expect(report.plan!.namespacesToDelete).not.toContain(p);
    expect(report.warnings).toContain(
      `namespace ${p} matched the scope but is protected: it is never deleted`,
    );
  }
});

test("uninstalling an operator whose CRD has instances in another team's namespace is refused", async () => {
  const id = uniqueName('cascade');
  const env = {
    group: `${id}.kube-sweep.test`,
    operatorNs: `${id}-op`,
    appNs: `${id}-app`,
    finalizer: false,
  };
  await installOperatorAndApp(api, env);
  try {
    const mark = auditMark();
    const { report, failures } = await runAction({ mode: 'teardown', namespaces: env.operatorNs });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toMatch(
      new RegExp(
        `^refusing to tear down \\(nothing was deleted\\): release ${env.operatorNs}/operator ships CRD widgets\\.${id}\\.kube-sweep\\.test in its templates.*2 Widget object\\(s\\) outside the scope \\(${env.appNs}/w1, ${env.appNs}/w2\\)`,
      ),
    );
    expect(kubeSweepRequestsSince(mark).filter((e) => mutatingVerbs.has(e.verb))).toEqual([]);
    expect(
      await getOrUndefined(api, `/apis/${env.group}/v1/namespaces/${env.appNs}/widgets/w1`),
    ).toBeDefined();
  } finally {
    await helm4(['uninstall', 'app', '-n', env.appNs]);
    await helm4(['uninstall', 'operator', '-n', env.operatorNs]);
    await deleteIfPresent(api, `/api/v1/namespaces/${env.appNs}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${env.operatorNs}`);
  }
});

test('a release that fails to uninstall keeps its namespace (and Helm record) for a rerun', async () => {
  await withRelease(async (ns) => {
    const { report } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      helm: '/bin/false',
      'stage-timeout': '3s',
    });
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.stages[0]!.releases[0]).toMatchObject({
      status: 'failed',
      message: 'helm exited with code 1 and printed nothing',
    });
    expect(report.teardown!.namespaces).toEqual([]);
    expect(
      await getOrUndefined(api, `/api/v1/namespaces/${ns}/secrets/sh.helm.release.v1.web.v1`),
    ).toBeDefined();
    // Its objects are looked at once (not waited for) and named as still there, not being deleted.
    expect(report.teardown!.stages[0]!.remaining.map((b) => [b.kind, b.name, b.deletionTimestamp])).toEqual([
      ['ConfigMap', 'web-config', undefined],
      ['Deployment', 'web', undefined],
      ['Service', 'web', undefined],
    ]);
  });
});

test('objects made by Helm hooks are reported, since Helm never deletes them', async () => {
  const ns = uniqueName('hooks');
  const r = await helm4(['install', 'hk', chart('hookcr'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns });
    expect(report.verdict).toBe('leftovers');
    // The namespace took the hook ConfigMap with it; the cluster-scoped ClusterRole stays.
    expect(report.teardown!.hookLeftovers.map((b) => [b.kind, b.name])).toEqual([
      ['ClusterRole', `${ns}-hook-role`],
    ]);
    expect(summary).toContain('Left by Helm hooks');
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-hook-role`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a namespace held by its own metadata.finalizers is reported with that reason', async () => {
  const ns = uniqueName('held');
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, finalizers: ['example.com/hold'] } },
  });
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '5s' });
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.namespaces[0]).toMatchObject({
      name: ns,
      status: 'stuck',
      metadataFinalizers: ['example.com/hold'],
    });
    expect(summary).toContain("held by the namespace's own `metadata.finalizers`");
  } finally {
    await api
      .request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      })
      .catch(() => undefined);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
