/**
 * The shipped ClusterRoles (rbac/) are enough: an identity bound to exactly kube-sweep-scan
 * reads the whole cluster with no coverage gap, and one bound to kube-sweep-teardown tears an
 * environment down cleanly.
 */
import type { ApiClient } from '../../src/cluster/api-client.js';
import { runAction } from './support/action.js';
import { adminApi, deleteIfPresent, uniqueName } from './support/cluster.js';
import { userKubeconfig, withRole } from './support/identities.js';
import { chart, helm4 } from './support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('kube-sweep-scan is enough to read everything', async () => {
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
