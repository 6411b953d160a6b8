/**
 * `remediate: safe` after a teardown (S01 inside a teardown): an APIService whose backend Service
 * lived in the environment namespace blocks that namespace's deletion. The post-teardown scan
 * ties the StaleAPIService to the environment, remediation deletes it, and the namespace
 * controller then finishes the namespace.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import {
  adminApiForSuite,
  createApiServiceWithoutBackend,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

test('teardown + remediate: the stale APIService of the environment is deleted and the namespace finishes', async () => {
  const ns = uniqueName('td-remediate');
  const name = await createApiServiceWithoutBackend(api, {
    group: `${ns}.kube-sweep.test`,
    serviceName: 'metrics-gone',
    serviceNamespace: ns,
  });
  const path = `/apis/apiregistration.k8s.io/v1/apiservices/${name}`;
  try {
    await createNamespace(api, ns);
    const { report, log } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      remediate: 'safe',
      'stage-timeout': '10s',
      timeout: '30s',
    });
    // The teardown itself could not finish the namespace: that stays in the verdict.
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[ns, 'stuck']]);
    expect(report.remediation!.results.map((r) => [r.description, r.status])).toEqual([
      [`delete APIService ${name} (its backend is gone)`, 'done'],
    ]);
    expect(log).toContain('## Scanning again after remediation');
    expect(report.findings!.some((f) => f.code === 'StaleAPIService' && f.object.name === name)).toBe(false);
    expect(await getOrUndefined(api, path)).toBeUndefined();
    await waitGone(api, `/api/v1/namespaces/${ns}`, 60_000);
  } finally {
    await deleteIfPresent(api, path);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}, 180_000);
