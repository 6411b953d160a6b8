/**
 * S23: CSI attacher finalizers after the storage driver was removed. Built for real: PV
 * `<id>-pvc-0001` (CSI driver `driver.<id>.io`, reclaim Delete, finalizer
 * `external-attacher/driver-<id>-io`) and VolumeAttachment `<id>-csi-0001` for it on kwok's
 * node with the same finalizer, no CSIDriver and nothing of the driver running; both deleted.
 * The rules must report CSIDriverGone (naming the driver, the detach and the disk left behind),
 * and not a generic OperatorGoneFinalizer. When a Deployment of the driver runs again, the
 * finding softens to StuckFinalizer. Clean: a CSI volume of a running driver is never reported.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { attacherFinalizer, csiDriverGoneRule } from '../../../src/rules/csi-driver-gone.js';
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { waitFor } from '../../../src/util/wait.js';
import { clusterEnv, createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  createDeployment,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  scenarioContext,
  snapshot,
  waitAvailable,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const pvPath = (name: string) => `/api/v1/persistentvolumes/${name}`;
const vaPath = (name: string) => `/apis/storage.k8s.io/v1/volumeattachments/${name}`;

/** A CSI PersistentVolume of `driver` carrying the driver's attacher finalizer, and its VolumeAttachment on kwok-node-0. */
async function attachedVolume(api: ApiClient, driver: string, pv: string, va: string): Promise<void> {
  await createObject(api, '/api/v1/persistentvolumes', {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pv, finalizers: [attacherFinalizer(driver)] },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: '',
      csi: { driver, volumeHandle: `vol-${pv}` },
    },
  });
  await createObject(api, '/apis/storage.k8s.io/v1/volumeattachments', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: va, finalizers: [attacherFinalizer(driver)] },
    spec: { attacher: driver, nodeName: 'kwok-node-0', source: { persistentVolumeName: pv } },
  });
  await api.request({
    method: 'PATCH',
    path: `${vaPath(va)}/status`,
    contentType: 'application/merge-patch+json',
    body: { status: { attached: true } },
  });
}

test('S23: volumes held by the attacher of a removed driver: CSIDriverGone', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s23');
  const driver = `driver.${id}.io`;
  const finalizer = attacherFinalizer(driver);
  const pv = `${id}-pvc-0001`;
  const va = `${id}-csi-0001`;
  const driverNs = `${id}-storage`;
  try {
    expect(finalizer).toBe(`external-attacher/driver-${id}-io`);
    await attachedVolume(api, driver, pv, va);
    await api.request({ method: 'DELETE', path: vaPath(va) });
    await api.request({ method: 'DELETE', path: pvPath(pv) });
    // pv-protection lets go of a volume no claim is bound to; the attacher finalizer stays.
    await waitFor(
      async () => {
        const o = await api.request<{ metadata: { finalizers?: string[]; deletionTimestamp?: string } }>({
          path: pvPath(pv),
        });
        const done =
          o.metadata.deletionTimestamp !== undefined && o.metadata.finalizers?.join() === finalizer;
        return { done, value: o.metadata.finalizers };
      },
      { timeoutMs: 60_000, description: `PV ${pv} to be held by ${finalizer} only` },
    );

    const inventory = await snapshot(api);
    recordFixture('s23-csi-driver-gone', inventory, {
      scenario: 'S23 CSI attacher finalizers after the storage driver was removed',
      names: { driver, finalizer, volume: pv, attachment: va },
      environmentNamespaces: [],
      selection: { namespaces: [], clusterObjects: [pv, va] },
    });
    const mine = findingsAbout(findingsOf(inventory, []), [id]);
    expect(mine.map((f) => [f.code, f.severity, f.object.kind, f.object.name])).toEqual([
      ['CSIDriverGone', 'error', 'VolumeAttachment', va],
    ]);
    const [f] = mine;
    expect(f!.message).toMatch(
      new RegExp(
        `^1 PersistentVolume and 1 VolumeAttachment carry ${finalizer}, and storage driver ${driver.replace(/\./g, '\\.')} ` +
          'no longer runs: nothing will detach them \\(2 held in deletion for up to \\d+s\\), and the backend disks ' +
          'of volumes with reclaimPolicy Delete are never deleted$',
      ),
    );
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        `no CSIDriver ${driver}`,
        expect.stringMatching(
          new RegExp(
            `^volumeattachments.storage.k8s.io ${va}: node kwok-node-0, volume ${pv}, attached true, deletionTimestamp `,
          ),
        ),
        expect.stringMatching(
          new RegExp(`^persistentvolumes ${pv}: reclaimPolicy Delete, volumeHandle vol-${pv}, phase `),
        ),
      ]),
    );
    // Safe first (inspect), then one warning that also names the disks, then the risky patches
    // last: the VolumeAttachment's finalizer before the volume's.
    const commands = f!.remediation.commands;
    const vaPatch = commands.findIndex((c) =>
      c.startsWith(`kubectl patch volumeattachments.storage.k8s.io ${va} `),
    );
    const pvPatch = commands.findIndex((c) => c.startsWith(`kubectl patch persistentvolumes ${pv} `));
    expect(vaPatch).toBeGreaterThan(0);
    expect(pvPatch).toBe(commands.length - 1);
    expect(pvPatch).toBeGreaterThan(vaPatch);
    expect(commands[vaPatch - 1]).toMatch(/^# WARNING: removing finalizers/);
    expect(commands[vaPatch - 1]).toContain(
      `(the Delete reclaim never ran: the backend disks stay and must be deleted where they live: ${pv}: vol-${pv}):`,
    );
    expect(commands.filter((c) => c.startsWith('#'))).toHaveLength(1);

    // The driver runs again (a Deployment of it with an available replica): no longer "gone".
    if (!clusterEnv().kwok) throw new Error('this test needs kwok (test/cluster/up.sh starts it when built)');
    await createNamespace(api, driverNs);
    await createDeployment(api, driverNs, `${id}-csi-controller`, 1);
    await waitAvailable(api, driverNs, `${id}-csi-controller`);
    const running = findingsAbout(findingsOf(await snapshot(api), []), [id]);
    expect(running.map((r) => [r.code, r.object.kind, r.object.name])).toEqual([
      ['StuckFinalizer', 'PersistentVolume', pv],
    ]);
    expect(running[0]!.evidence.join('\n')).toContain(
      `deployments.apps ${driverNs}/${id}-csi-controller (name matches ${id}; 1 of 1 replicas available)`,
    );
  } finally {
    await removeFinalizers(api, vaPath(va));
    await removeFinalizers(api, pvPath(pv));
    await waitGone(api, vaPath(va));
    await waitGone(api, pvPath(pv));
    await deleteNamespaceAndWait(api, driverNs);
  }
});

test('clean: a CSI volume of a running driver, and a fresh control plane, give no CSIDriverGone', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s23-clean');
  const driver = `driver.${id}.io`;
  const pv = `${id}-pvc-0001`;
  const va = `${id}-csi-0001`;
  try {
    await createNamespace(api, id);
    await createDeployment(api, id, `${id}-csi-node`, 1);
    if (!clusterEnv().kwok) throw new Error('this test needs kwok (test/cluster/up.sh starts it when built)');
    await waitAvailable(api, id, `${id}-csi-node`);
    await attachedVolume(api, driver, pv, va);
    const findings = runRules(
      await snapshot(api),
      { ...scenarioContext([id]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [csiDriverGoneRule],
    );
    // Other tests may hold their own faults at the same time: nothing but theirs may be reported.
    expect(findings.filter((f) => !/^rules-/.test(f.object.name) || f.object.name.startsWith(id))).toEqual(
      [],
    );
  } finally {
    await removeFinalizers(api, vaPath(va));
    await removeFinalizers(api, pvPath(pv));
    await deleteIfPresent(api, vaPath(va));
    await deleteIfPresent(api, pvPath(pv));
    await deleteNamespaceAndWait(api, id);
  }
});
