/**
 * S17: `helm.sh/resource-policy: keep`. Uninstalling chart keepy without deleting its namespace
 * keeps ConfigMap `state` with the annotations of a release that no longer exists. Built for
 * real with Helm 4; the rules must report HelmLeftover (kept) and nothing about the deleted
 * ConfigMap `scratch`.
 */
import { uniqueName } from '../support/cluster.js';
import { chart } from '../support/widgets.js';
import { helm4Ok, helmFindings, releaseStatus, summarize } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S17: a kept ConfigMap outlives its release: HelmLeftover (kept)', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s17');
  try {
    await helm4Ok(['install', 'keepy', chart('keepy'), '-n', ns, '--create-namespace']);
    await helm4Ok(['uninstall', 'keepy', '-n', ns]);
    expect(await releaseStatus(api, ns, 'keepy')).toBeUndefined();

    const inventory = await snapshot(api);
    recordFixture('s17-helm-kept', inventory, {
      scenario: 'S17 helm.sh/resource-policy: keep leftovers',
      names: { namespace: ns, release: 'keepy', kept: 'state' },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = helmFindings(findingsAbout(findingsOf(inventory, [ns]), [ns]));
    expect(summarize(mine)).toEqual([['HelmLeftover', 'info', 'ConfigMap', `${ns}/state`, 'environment']]);
    const [f] = mine;
    expect(f!.message).toBe(
      `Helm leftover (kept): configmaps ${ns}/state carries the annotations of Helm release ${ns}/keepy, which no longer exists: Helm kept it on uninstall on purpose (helm.sh/resource-policy: keep)`,
    );
    expect(f!.evidence).toEqual([
      'subtype: kept',
      'meta.helm.sh/release-name: keepy',
      `meta.helm.sh/release-namespace: ${ns}`,
      'helm.sh/resource-policy: keep',
      `no release Secret or ConfigMap sh.helm.release.v1.keepy.v* (owner=helm) in namespace ${ns}: the release does not exist`,
      expect.stringMatching(/^creationTimestamp: \d{4}-/),
    ]);
    expect(f!.remediation.commands.slice(-2)).toEqual([
      expect.stringMatching(/^# WARNING: it was kept on purpose/),
      `kubectl delete configmaps state -n ${ns}`,
    ]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
});
