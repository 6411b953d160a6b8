/**
 * `uninstall-mode: auto` on the real control plane with Helm 4: a release with no delete hook
 * goes with its namespace (kube-sweep deletes its cluster-scoped objects itself; no helm
 * uninstall runs for it), a release with a pre-delete hook goes through `helm uninstall` (the
 * hook runs), and both namespaces are emptied as soon as their deletion is accepted.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditEventsSince, auditMark, kubeSweepRequestsSince } from '../support/audit.js';
import { adminApi, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('auto: the release without delete hooks goes with its namespace, the one with a pre-delete hook through helm', async () => {
  const id = uniqueName('mode');
  const plainNs = `${id}-plain`;
  const hookedNs = `${id}-hooked`;
  const install = (ns: string, hook: boolean) =>
    helm4(['install', 'r', chart('modes'), '-n', ns, '--create-namespace', '--set', `preDeleteHook=${hook}`]);
  await install(plainNs, false);
  await install(hookedNs, true);
  try {
    const mark = auditMark();
    const { report, failures } = await runAction({
      mode: 'teardown',
      namespaces: `${id}-*`,
      'stage-timeout': '60s',
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');
    const releases = report.teardown!.stages.flatMap((s) => s.releases);
    expect(releases.map((r) => [r.release, r.status, r.method]).sort()).toEqual([
      [`${hookedNs}/r`, 'uninstalled', 'helm'],
      [`${plainNs}/r`, 'uninstalled', 'namespace'],
    ]);
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status]).sort()).toEqual([
      [hookedNs, 'deleted'],
      [plainNs, 'deleted'],
    ]);
    // Both ClusterRoles are gone: kube-sweep deleted the plain release's, helm the other's.
    for (const ns of [plainNs, hookedNs])
      expect(
        await getOrUndefined(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-r-reader`),
      ).toBeUndefined();
    const events = auditEventsSince(mark);
    const helmCalls = events.filter((e) => (e.userAgent ?? '').startsWith('Helm/'));
    // The hook ran (helm applied its ConfigMap: Helm 4 writes with server-side apply); helm never touched the plain release.
    expect(
      helmCalls.some(
        (e) =>
          ['create', 'patch'].includes(e.verb) &&
          e.requestURI.startsWith(`/api/v1/namespaces/${hookedNs}/configmaps/r-pre-delete-ran`),
      ),
    ).toBe(true);
    expect(helmCalls.filter((e) => e.requestURI.includes(plainNs))).toEqual([]);
    const mine = kubeSweepRequestsSince(mark);
    expect(
      mine.some(
        (e) =>
          e.verb === 'delete' &&
          e.requestURI.startsWith(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${plainNs}-r-reader?`),
      ),
    ).toBe(true);
    // Each namespace was emptied by kube-sweep right after its deletion was accepted.
    for (const ns of [plainNs, hookedNs])
      expect(
        mine.some(
          (e) => e.verb === 'deletecollection' && e.requestURI.startsWith(`/api/v1/namespaces/${ns}/`),
        ),
      ).toBe(true);
    // Nothing outside the two namespaces and the plain release's ClusterRole was deleted by kube-sweep.
    for (const e of mine.filter((x) => x.verb === 'delete' || x.verb === 'deletecollection'))
      expect(e.requestURI).toMatch(
        new RegExp(
          `^(/api/v1/namespaces/(${plainNs}|${hookedNs})(/|\\?|$)|/apis/[^?]*/namespaces/(${plainNs}|${hookedNs})/|/apis/rbac\\.authorization\\.k8s\\.io/v1/clusterroles/${plainNs}-r-reader\\?)`,
        ),
      );
  } finally {
    for (const ns of [plainNs, hookedNs]) {
      await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-r-reader`);
      await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    }
  }
});
