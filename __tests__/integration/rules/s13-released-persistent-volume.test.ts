/**
 * S13: a Retain PersistentVolume bound to a claim whose namespace is deleted stays Released with
 * a claimRef to the gone claim. Built for real (static binding by the persistentvolume-binder of
 * kube-controller-manager); the rules must report ReleasedPersistentVolume.
 */
import { createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  createBoundClaim,
  createRetainVolume,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
  waitForPhase,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S13: ReleasedPersistentVolume whose claimRef points into a deleted namespace', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s13');
  const ns = `${id}-pvc-demo`;
  const pv = `${id}-pv-1`;
  const pvPath = `/api/v1/persistentvolumes/${pv}`;
  try {
    await createRetainVolume(api, pv);
    await createNamespace(api, ns);
    await createBoundClaim(api, ns, pv);
    await deleteNamespaceAndWait(api, ns);
    await waitForPhase(api, pvPath, 'Released');

    const inventory = await snapshot(api);
    recordFixture('s13-released-persistent-volume', inventory, {
      scenario: 'S13 PV left Released with a claimRef to a deleted namespace',
      names: { namespace: ns, persistentVolume: pv },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [pv] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.severity, f.scope])).toEqual([
      ['ReleasedPersistentVolume', 'PersistentVolume', pv, 'warning', 'environment'],
    ]);
    expect(mine[0]!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^status\.phase: Released/),
        expect.stringMatching(
          new RegExp(`^spec\\.claimRef: ${ns}/data \\(uid [-0-9a-f]+\\): namespace ${ns} does not exist$`),
        ),
        'spec.persistentVolumeReclaimPolicy: Retain',
      ]),
    );
  } finally {
    await deleteIfPresent(api, pvPath);
    await waitGone(api, pvPath);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
