/**
 * Safety of the teardown: when kube-sweep cannot see what it would need, it stops before
 * deleting anything; protected namespaces are never in the plan.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince, mutatingVerbs } from '../support/audit.js';
import { adminApi, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { userKubeconfig } from '../support/identities.js';
import { chart, helm4 } from '../support/widgets.js';

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
