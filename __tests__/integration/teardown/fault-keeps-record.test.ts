/**
 * A fault never erases what was done (issue 36), as an RBAC-bound identity (bound to
 * rbac/kube-sweep-teardown.yaml, not system:masters): an error after the first delete (here the
 * identity's binding is revoked while the teardown waits for its namespace, so reading the
 * namespace answers 403) never ends the run as "could not run" with a bare report. The report
 * carries the plan and every step already taken (the release removed, the namespace whose
 * deletion was accepted), and the outputs count them. Before, the 403 in the namespace wait
 * ended the run `error` with no plan, no teardown and `releases-uninstalled=0`.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { runAction } from '../support/action.js';
import { auditMark, requestsOfUserSince } from '../support/audit.js';
import { adminApiForSuite, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { userKubeconfig, withRole } from '../support/identities.js';
import { chart, helm4 } from '../support/widgets.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

const hold = 'kube-sweep.test/hold';

test('the identity loses its rights during the namespace wait: the report keeps the plan, the release removed and the namespace deleted', async () => {
  const user = uniqueName('rbac-fault');
  const ns = uniqueName('fault-keep');
  expect((await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  // Not the release's: it holds the namespace in Terminating, so the teardown waits for it.
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: [hold] } },
  });
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kube-sweep-rbac-fault-')), 'config');
  writeFileSync(kubeconfig, await userKubeconfig(user));
  try {
    const { report, outputs, failures } = await withRole(api, 'kube-sweep-teardown.yaml', user, async () => {
      const mark = auditMark();
      const run = runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig,
        'stage-timeout': '30s',
        timeout: '5m',
        // The test's finalizer has no controller the snapshot shows, so the prediction says the
        // namespace will hang; the test needs the wait itself, where the 403 comes.
        'await-predicted-hangs': 'true',
      });
      // Once the namespace's deletion is accepted (the audit log shows the identity's DELETE;
      // a watch is logged only when it ends), what is left is the wait for it.
      await waitFor(
        async () => {
          const events = requestsOfUserSince(mark, user);
          const deleted = events.some(
            (e) => e.verb === 'delete' && e.requestURI === `/api/v1/namespaces/${ns}`,
          );
          return { done: deleted, value: events.length };
        },
        { timeoutMs: 120_000, intervalMs: 100, description: `the teardown to delete namespace ${ns}` },
      );
      // Revoke the identity's binding: its next read of the namespace is answered 403.
      const binding = `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kube-sweep-teardown-${user}`;
      await deleteIfPresent(api, binding);
      return run;
    });
    expect(schemaErrors(report)).toEqual([]);
    // Never clean, and never a bare report.
    expect(report.verdict).not.toBe('clean');
    expect(report.plan?.namespacesToDelete).toEqual([ns]);
    const t = report.teardown!;
    expect(t.stages.flatMap((s) => s.releases).map((r) => [r.release, r.status])).toEqual([
      [`${ns}/web`, 'uninstalled'],
    ]);
    expect(t.namespaces).toEqual([
      expect.objectContaining({
        name: ns,
        status: 'not-waited',
        message: expect.stringMatching(
          /^could not check: GET \/api\/v1\/namespaces\/\S+: HTTP 403 Forbidden/,
        ),
      }),
    ]);
    expect(outputs.get('releases-uninstalled')).toBe('1');
    expect(failures).toHaveLength(1);
    // The namespace's deletion was accepted: it is Terminating, held by the test's finalizer.
    const left = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
      api,
      `/api/v1/namespaces/${ns}`,
    );
    expect(left?.metadata.deletionTimestamp).toBeDefined();
  } finally {
    await api
      .request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}/configmaps/held`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      })
      .catch(() => undefined);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
