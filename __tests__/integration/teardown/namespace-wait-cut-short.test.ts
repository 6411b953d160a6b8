/**
 * A namespace still Terminating when the namespace wait ends is `stuck` when it was waited for
 * its whole `stage-timeout`, and `not-waited` only when the overall `timeout` cut that wait
 * short (issue 21 item 7). The namespace holds a `spec.finalizers` entry no controller removes,
 * so it stays Terminating and its conditions name no cause: the case where the two differ. The
 * clock moves on by 1 ms at every reading, as a loaded machine's does; before the fix one
 * millisecond between two readings made every such namespace `not-waited`.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { resourceIndex } from '../../../src/teardown/resource-index.js';
import { runTeardown } from '../../../src/teardown/run-teardown.js';
import { systemClock, type Clock } from '../../../src/util/wait.js';
import { adminApiForSuite, uniqueName, waitGone } from '../support/cluster.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

/** A clock one millisecond later at every reading than the last (never the same ms twice). */
function tickingClock(): Clock {
  let last = 0;
  return {
    now: () => (last = Math.max(last + 1, Date.now())),
    sleep: systemClock.sleep,
  };
}

/** Tears down an environment of one namespace and no releases; returns its namespace outcome. */
async function tearDownHeldNamespace(options: { timeoutMs: number; stageTimeoutMs: number }) {
  const ns = uniqueName('cut-short');
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
      // A finalizer of the namespace's spec that nothing removes: Terminating, no cause named.
      spec: { finalizers: ['kubernetes', 'kube-sweep.test/hold'] },
    },
  });
  try {
    const plan = buildPlan({
      scope: { namespaces: [ns], protectedMatched: [], unmatchedPatterns: [] },
      releaseRefs: [],
      foundReleases: [],
      userOrder: [],
      deleteNamespaces: true,
      resourceOf: () => undefined,
      instancesOf: () => [],
    });
    const lines: string[] = [];
    const result = await runTeardown(
      plan,
      { failedGroupVersions: new Set(), uninstallConcurrency: 1, uninstallMode: 'helm', ...options },
      {
        api,
        helm: {
          uninstall: () => Promise.reject(new Error('no release to uninstall')),
          version: () => Promise.resolve('v4'),
        },
        resources: resourceIndex([]),
        log: (line) => lines.push(line),
        group: (_title, fn) => fn(),
        clock: tickingClock(),
      },
    );
    expect(result.namespaces.map((n) => n.name)).toEqual([ns]);
    return { outcome: result.namespaces[0]!, lines };
  } finally {
    // Lift the hold only (PUT /finalize keeping 'kubernetes'), so the namespace controller still
    // empties the namespace before it goes: removing 'kubernetes' too would force-finalize it and
    // strand its ConfigMap and ServiceAccount in a missing namespace for the tests after this one.
    await api.request({
      method: 'PUT',
      path: `/api/v1/namespaces/${ns}/finalize`,
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
        spec: { finalizers: ['kubernetes'] },
      },
    });
    await waitGone(api, `/api/v1/namespaces/${ns}`);
  }
}

test('a namespace waited for its whole stage-timeout and still Terminating is stuck, not not-waited', async () => {
  const { outcome, lines } = await tearDownHeldNamespace({ timeoutMs: 600_000, stageTimeoutMs: 1500 });
  expect(outcome.status).toBe('stuck');
  expect(outcome.durationMs).toBeGreaterThanOrEqual(1500);
  expect(lines.join('\n')).not.toMatch(/raise 'timeout'/);
});

test('a namespace wait that the overall timeout cuts short leaves the namespace not-waited', async () => {
  // The overall deadline (1.5 s) comes long before the stage-timeout (10 min).
  const { outcome, lines } = await tearDownHeldNamespace({ timeoutMs: 1500, stageTimeoutMs: 600_000 });
  expect(outcome.status).toBe('not-waited');
  expect(lines.join('\n')).toMatch(/still Terminating when the overall timeout ran out/);
});
