/**
 * The shipped ClusterRoles (rbac/) are enough: an identity bound to exactly kube-sweep-scan
 * reads the whole cluster with no coverage gap, and one bound to kube-sweep-teardown tears an
 * environment down cleanly.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { runAction } from './support/action.js';
import { adminApi, deleteIfPresent, repoRoot, uniqueName } from './support/cluster.js';
import { userKubeconfig } from './support/identities.js';
import { chart, helm4 } from './support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

/** Creates the role from rbac/<file> under a unique name, binds `user` to it, runs `fn`, cleans up. */
async function withRole(file: string, user: string, fn: () => Promise<void>) {
  const role = parse(readFileSync(join(repoRoot, 'rbac', file), 'utf8')) as { metadata: { name: string } };
  const name = `${role.metadata.name}-${user}`;
  await api.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: { ...role, metadata: { name } },
  });
  await api.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
    },
  });
  try {
    await fn();
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`);
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
  }
}

test('kube-sweep-scan is enough to read everything', async () => {
  const user = uniqueName('scanner');
  await withRole('kube-sweep-scan.yaml', user, async () => {
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
    await withRole('kube-sweep-teardown.yaml', user, async () => {
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
