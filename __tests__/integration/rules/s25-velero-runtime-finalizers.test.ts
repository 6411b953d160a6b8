/**
 * S25: Velero's runtime CRs keep Velero's finalizers after Velero is gone. Built for real: CRDs
 * restores and backups (velero.io/v1) and datauploads (velero.io/v2alpha1); in `<id>-backup-sys`
 * a Completed Restore with `restores.velero.io/external-resources-finalizer`, a Completed and an
 * InProgress DataUpload with `velero.io/data-upload-download-finalizer`, and a Backup with none;
 * then the namespace and the CRDs of the held kinds are deleted without waiting (what an uninstall
 * that does not wait does). The rules must grade each held object from its phase (read by the
 * inventory's held-objects pass): the terminal ones safe and first, the in-flight one unsafe and
 * last after the warning; the first action is Velero's own way, not a reinstall in place (the
 * namespace is Terminating), with the teardown order for next time; the CRDs stuck Terminating are
 * explained by those finalizers. The remedy is then followed for real.
 */
import type { Finding } from '../../../src/rules/findings.js';
import { createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  createCrd,
  createObject,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const dataUpload = 'velero.io/data-upload-download-finalizer';
const restoreFinalizer = 'restores.velero.io/external-resources-finalizer';
const crdPath = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

const group = (findings: readonly Finding[], finalizer: string) =>
  findings.find((f) => f.key.includes(`finalizer ${finalizer} in`));

test('S25: Velero removed before its runtime CRs: graded by phase, safe removals first, the CRDs explained', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s25');
  const ns = `${id}-backup-sys`;
  const held: string[] = [];
  const crds: string[] = [];
  try {
    crds.push(await createCrd(api, { group: 'velero.io', plural: 'restores', kind: 'Restore' }));
    crds.push(await createCrd(api, { group: 'velero.io', plural: 'backups', kind: 'Backup' }));
    crds.push(
      await createCrd(api, {
        group: 'velero.io',
        plural: 'datauploads',
        kind: 'DataUpload',
        versions: ['v2alpha1'],
      }),
    );
    await createNamespace(api, ns);
    const create = async (
      version: string,
      plural: string,
      kind: string,
      name: string,
      finalizer?: string,
      phase?: string,
    ) => {
      await createObject(api, `/apis/velero.io/${version}/namespaces/${ns}/${plural}`, {
        apiVersion: `velero.io/${version}`,
        kind,
        metadata: { name, ...(finalizer ? { finalizers: [finalizer] } : {}) },
        spec: {},
        ...(phase ? { status: { phase } } : {}),
      });
      if (finalizer) held.push(`/apis/velero.io/${version}/namespaces/${ns}/${plural}/${name}`);
    };
    await create('v1', 'restores', 'Restore', 'pr-7-restore', restoreFinalizer, 'Completed');
    await create('v2alpha1', 'datauploads', 'DataUpload', 'pr-7-backup-x2k9q', dataUpload, 'Completed');
    await create('v2alpha1', 'datauploads', 'DataUpload', 'pr-8-backup-7hq2m', dataUpload, 'InProgress');
    await create('v1', 'backups', 'Backup', 'pr-7-backup');

    // Velero is gone; its namespace and the CRDs are deleted without waiting.
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    await api.request({ method: 'DELETE', path: crdPath('restores.velero.io') });
    await api.request({ method: 'DELETE', path: crdPath('datauploads.velero.io') });
    await waitGone(api, `/apis/velero.io/v1/namespaces/${ns}/backups/pr-7-backup`);
    await waitForCondition(api, crdPath('datauploads.velero.io'), 'Terminating');

    const inventory = await snapshot(api);
    recordFixture('s25-velero-runtime-finalizers', inventory, {
      scenario: 'S25 Velero removed before its runtime custom resources',
      names: { namespace: ns, restore: 'pr-7-restore', completedUpload: 'pr-7-backup-x2k9q' },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: crds },
    });
    const all = findingsOf(inventory, [ns]);
    const mine = findingsAbout(all, [id]);
    const f = group(mine, dataUpload)!;
    expect(f).toBeDefined();
    expect(f.code).toBe('OperatorGoneFinalizer');
    expect(f.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^velero\.io\/data-upload-download-finalizer belongs to Velero: it guards /),
        `datauploads.velero.io ${ns}/pr-7-backup-x2k9q: phase Completed (terminal: nothing left to do)`,
        `datauploads.velero.io ${ns}/pr-8-backup-7hq2m: phase InProgress (work in flight)`,
        `removing ${dataUpload} from datauploads.velero.io ${ns}/pr-7-backup-x2k9q: safe (Completed: terminal, nothing left to do)`,
        `removing ${dataUpload} from datauploads.velero.io ${ns}/pr-8-backup-7hq2m: unsafe (InProgress: work in flight)`,
      ]),
    );
    expect(f.remediation.summary).toMatch(/^Run Velero's own uninstall when it can still run/);
    expect(f.remediation.summary).toContain(
      `Velero cannot come back in place, because namespace ${ns} is Terminating`,
    );
    expect(f.remediation.summary).toContain('Next time: delete backups and restores');
    const commands = f.remediation.commands;
    const safePatch = commands.findIndex(
      (c) => c.startsWith('kubectl patch') && c.includes('pr-7-backup-x2k9q '),
    );
    const warning = commands.findIndex((c) => c.startsWith('# WARNING: Velero:'));
    const unsafePatch = commands.findIndex(
      (c) => c.startsWith('kubectl patch') && c.includes('pr-8-backup-7hq2m '),
    );
    expect(commands[safePatch - 1]).toMatch(/^# safe: /);
    expect(safePatch).toBeLessThan(warning);
    expect(warning).toBeLessThan(unsafePatch);
    const restore = group(mine, restoreFinalizer)!;
    expect(restore.evidence).toContain(
      `removing ${restoreFinalizer} from restores.velero.io ${ns}/pr-7-restore: safe (Completed: terminal, nothing left to do)`,
    );
    // The CRDs stuck Terminating and the namespace wait on those finalizers.
    for (const [crd, finalizer] of [
      ['datauploads.velero.io', dataUpload],
      ['restores.velero.io', restoreFinalizer],
    ] as const) {
      const stuck = all.find((x) => x.code === 'CRDStuckTerminating' && x.object.name === crd);
      expect(stuck?.causedBy).toContain(group(mine, finalizer)!.key);
    }
    const nsFinding = mine.find((x) => x.code === 'NamespaceBlockedByFinalizer' && x.object.name === ns)!;
    expect(nsFinding.causedBy).toEqual(expect.arrayContaining([f.key, restore.key]));

    // The remedy works: strip the finalizers (terminal ones first); the namespace and the CRDs go.
    for (const path of held) await removeFinalizers(api, path);
    await waitGone(api, `/api/v1/namespaces/${ns}`, 90_000);
    await waitGone(api, crdPath('datauploads.velero.io'));
    await waitGone(api, crdPath('restores.velero.io'));
  } finally {
    for (const path of held) await removeFinalizers(api, path);
    await deleteNamespaceAndWait(api, ns);
    for (const crd of crds) await deleteCrdAndWait(api, crd);
    await deleteIfPresent(api, crdPath('backups.velero.io'));
  }
}, 240_000);
