/**
 * The look after a teardown is a new read of the cluster, not the first snapshot minus what the
 * teardown deleted: an object that someone else creates while the teardown runs (here a
 * ClusterRole carrying the release's Helm marks, created as soon as the environment's namespace
 * starts terminating) is found and fails the run (ARCHITECTURE.md, "Clean means looked again").
 */
import { runAction } from '../support/action.js';
import { auditEventsSince, auditMark, kubeSweepRequestsSince, type AuditEvent } from '../support/audit.js';
import { adminApiForSuite, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import { waitFor } from '../../../src/util/wait.js';

const suiteApi = adminApiForSuite();

test('an object created during the teardown is found by the look after it', async () => {
  const api = suiteApi();
  const ns = uniqueName('late');
  const late = `${ns}-late-role`;
  expect((await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  let stop = false;
  // Creates the ClusterRole once the namespace is terminating: after kube-sweep's first inventory and plan.
  const creator = (async () => {
    await waitFor(
      async () => {
        const n = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
          api,
          `/api/v1/namespaces/${ns}`,
        );
        return { done: stop || n === undefined || n.metadata.deletionTimestamp !== undefined, value: n };
      },
      { timeoutMs: 120_000, intervalMs: 50, description: `namespace ${ns} terminating` },
    );
    if (stop) return false;
    await api.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: {
          name: late,
          labels: { 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': ns },
        },
        rules: [],
      },
    });
    return true;
  })();
  try {
    const mark = auditMark();
    const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'fail-on': 'warning' });
    stop = true;
    expect(await creator).toBe(true);
    // The role was created after kube-sweep's first read of every ClusterRole (for its plan) and
    // before its last one (the list of the look after the teardown).
    const collection = /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/clusterroles(\?|$)/;
    const at = (e: AuditEvent) => Date.parse(e.requestReceivedTimestamp);
    const created = auditEventsSince(mark).find((e) => e.verb === 'create' && collection.test(e.requestURI));
    const reads = kubeSweepRequestsSince(mark).filter(
      (e) => e.verb !== 'create' && collection.test(e.requestURI),
    );
    expect(reads[0]!.verb).toBe('list');
    expect(at(reads[0]!)).toBeLessThan(at(created!));
    expect(reads.at(-1)!.verb).toBe('list');
    expect(at(reads.at(-1)!)).toBeGreaterThanOrEqual(at(created!));
    expect(report.plan!.releases.map((r) => r.release)).toEqual([`${ns}/web`]);
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[ns, 'deleted']]);
    // Found by the look after the teardown (a warning: fail-on warning makes it fail the run).
    expect(report.verdict).toBe('leftovers');
    const found = (report.findings ?? []).filter((f) => f.object?.name === late);
    expect(found.map((f) => [f.code, f.object?.kind])).toEqual([['HelmLeftover', 'ClusterRole']]);
  } finally {
    stop = true;
    await creator.catch(() => false);
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${late}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
