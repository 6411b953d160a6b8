/**
 * Two timing properties of a teardown, each on its own, on the real control plane:
 * - a namespace is deleted as soon as the releases touching it are done, per release: while
 *   another release of the same stage is still being uninstalled (ARCHITECTURE.md "A namespace
 *   goes as soon as nothing in it waits on an order");
 * - on the normal path a wait lists once and then watches (teardown/wait-gone.ts): counted from
 *   the API server's audit log, not polling lists while an object is held.
 */
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince } from '../support/audit.js';
import {
  adminApiForSuite,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import { removeFinalizers } from '../rules/support/scenario.js';
import { chart, helm4 } from '../support/widgets.js';
import { waitFor } from '../../../src/util/wait.js';

const suiteApi = adminApiForSuite();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a namespace is deleted as soon as its release is removed, while another release of the same stage is still uninstalling', async () => {
  const api = suiteApi();
  const id = uniqueName('early');
  const quick = `${id}-quick`;
  const stuck = `${id}-stuck`;
  // Same stage (no order between them): `web` goes with its namespace at once; `hooked` goes
  // through helm uninstall, whose pre-delete Job never completes, so helm waits out its timeout.
  expect((await helm4(['install', 'web', chart('sample'), '-n', quick, '--create-namespace'])).exitCode).toBe(
    0,
  );
  expect(
    (await helm4(['install', 'hooked', chart('hooked'), '-n', stuck, '--create-namespace'])).exitCode,
  ).toBe(0);
  try {
    const mark = auditMark();
    const { report, log } = await runAction({
      mode: 'teardown',
      namespaces: `${id}-*`,
      'stage-timeout': '8s',
    });
    expect(
      report.teardown!.stages.map((s) => s.releases.map((r) => [r.release, r.status, r.method])),
    ).toEqual([
      [
        [`${quick}/web`, 'uninstalled', 'namespace'],
        [`${stuck}/hooked`, 'failed', 'helm'],
      ],
    ]);
    // The quick namespace's deletion was requested before the other release's helm uninstall ended...
    const early = log.indexOf(`nothing in ${quick} waits on the rest of the teardown: deleting now`);
    const helmEnded = log.findIndex((l) => l.startsWith(`helm uninstall ${stuck}/hooked failed: `));
    expect(early).toBeGreaterThan(-1);
    expect(helmEnded).toBeGreaterThan(early);
    // ... seconds before the stage ended (helm waited out its 8 s on the hook), as the audit log shows.
    const deleted = kubeSweepRequestsSince(mark).find(
      (e) => e.verb === 'delete' && new RegExp(`^/api/v1/namespaces/${quick}(\\?|$)`).test(e.requestURI),
    );
    expect(deleted).toBeDefined();
    const stageEnded = Date.parse(report.teardown!.stages[0]!.endedAt);
    expect(stageEnded - Date.parse(deleted!.requestReceivedTimestamp)).toBeGreaterThan(4000);
    // Its namespace went; the one of the release that was not uninstalled is kept for a rerun.
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[quick, 'deleted']]);
  } finally {
    await helm4(['uninstall', 'hooked', '-n', stuck, '--no-hooks']);
    await deleteIfPresent(api, `/api/v1/namespaces/${stuck}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${quick}`);
  }
}, 120_000);

test('a wait lists once and then watches: no polling lists while an object is held', async () => {
  const api = suiteApi();
  const ns = uniqueName('watch');
  const role = `${ns}-held-reader`;
  const rolePath = `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`;
  expect((await helm4(['install', 'held', chart('held'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  try {
    const mark = auditMark();
    // This test stands in for the finalizer's controller, which the plan sees no sign of: keep the
    // old patience, so the wait is not skipped as predicted.
    const run = runAction({
      mode: 'teardown',
      namespaces: ns,
      'stage-timeout': '60s',
      'await-predicted-hangs': 'true',
    });
    // The teardown deletes the ClusterRole; its finalizer holds it until this test, standing in
    // for a controller, lifts it 6 s later. A polling wait would list it several times by then.
    await waitFor(
      async () => {
        const r = await getOrUndefined<{ metadata?: { deletionTimestamp?: string } }>(api, rolePath);
        const done = r?.metadata?.deletionTimestamp !== undefined;
        return { done, value: done };
      },
      { timeoutMs: 60_000, intervalMs: 100, description: `ClusterRole ${role} to be deleting` },
    );
    await sleep(6000);
    const lifted = Date.now();
    await removeFinalizers(api, rolePath);
    const { report, log } = await run;
    expect(report.verdict).toBe('clean');
    expect(log.some((l) => /^watch of .* failed/.test(l))).toBe(false);
    const requests = kubeSweepRequestsSince(mark);
    const deletedAt = Date.parse(
      requests.find((e) => e.verb === 'delete' && e.requestURI.startsWith(`${rolePath}?`))!
        .requestReceivedTimestamp,
    );
    const collection = (e: { requestURI: string }) =>
      /^\/apis\/rbac\.authorization\.k8s\.io\/v1\/clusterroles(\?|$)/.test(e.requestURI);
    const held = requests.filter((e) => {
      const at = Date.parse(e.requestReceivedTimestamp);
      return collection(e) && at >= deletedAt && at <= lifted;
    });
    // While it was held: the wait's one list (a relist at most), and the watch it then opened.
    expect(held.filter((e) => e.verb === 'list').length).toBeGreaterThanOrEqual(1);
    expect(held.filter((e) => e.verb === 'list').length).toBeLessThanOrEqual(2);
    expect(held.filter((e) => e.verb === 'watch').length).toBeGreaterThanOrEqual(1);
    await waitGone(api, rolePath);
  } finally {
    await removeFinalizers(api, rolePath).catch(() => undefined);
    await deleteIfPresent(api, rolePath);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}, 120_000);
