/**
 * The finalizer catalogue (finalizer-catalogue.ts) as stuck-finalizer reads it, over S12's
 * recorded snapshot (a Terminating namespace) with Velero (S25) and Argo CD (S24) objects held by
 * their finalizers and their status read: what each finalizer guards, the graded risk, safe
 * removals first, and no "reinstall in place" while the namespace terminates.
 */
import { buildInventory, type InventoryData } from '../../../src/inventory/snapshot.js';
import { familyOf, finalizerCatalogue } from '../../../src/rules/finalizer-catalogue.js';
import type { Finding } from '../../../src/rules/findings.js';
import { stuckFinalizerRule } from '../../../src/rules/stuck-finalizer.js';
import { replayContext } from './support/recorded-fixture.js';
import { annotateNamespace, held, meta, s12, withObjects } from './support/round3-variants.js';

const dataUpload = 'velero.io/data-upload-download-finalizer';
const restoreFinalizer = 'restores.velero.io/external-resources-finalizer';
const argo = 'resources-finalizer.argocd.argoproj.io';

function veleroObjects(d: InventoryData, ns: string): InventoryData {
  const du = { apiVersion: 'velero.io/v2alpha1', kind: 'DataUpload', resource: 'datauploads', ns };
  return held(d, [
    { ...du, name: 'pr-7-backup-x2k9q', finalizer: dataUpload, status: { phase: 'Completed' } },
    { ...du, name: 'pr-8-backup-7hq2m', finalizer: dataUpload, status: { phase: 'InProgress' } },
    {
      apiVersion: 'velero.io/v1',
      kind: 'Restore',
      resource: 'restores',
      ns,
      name: 'pr-7-restore',
      finalizer: restoreFinalizer,
      status: { phase: 'Completed' },
    },
  ]);
}

const group = (findings: readonly Finding[], finalizer: string) =>
  findings.find((f) => f.key.includes(`finalizer ${finalizer} in`))!;

test('the catalogue covers the projects of issue 23, and every entry cites its sources', () => {
  expect(finalizerCatalogue.map((f) => f.project)).toEqual([
    'Argo CD',
    'Flux',
    'Crossplane',
    'Velero',
    'OLM',
    'cert-manager',
    'external-snapshotter',
    'cloud load-balancer controllers',
    'CSI external-attacher',
  ]);
  for (const f of finalizerCatalogue) {
    expect(f.sources.length).toBeGreaterThan(0);
    // The first source (quoted in the evidence) is the project's repository and file.
    expect(f.sources[0]).toMatch(/^[\w.-]+\/[\w.-]+ [\w./-]+\.(go|md|ya?ml) /);
    expect(f.withoutController).toMatch(/^(bring|delete|reinstall|remove|run) /);
  }
  expect(familyOf('external-attacher/driver-example-io')?.project).toBe('CSI external-attacher');
  expect(familyOf('example.com/cleanup')).toBeUndefined();
  // Argo CD's pre-delete hook finalizer (application_defaults.go); no Velero Backup finalizer exists.
  expect(familyOf('pre-delete-finalizer.argocd.argoproj.io')?.project).toBe('Argo CD');
  expect(familyOf('backups.velero.io/external-resources-finalizer')).toBeUndefined();
});

test('S25: Velero CRs after Velero is gone: terminal ones are safe and go first, the in-flight one last after the warning', () => {
  const { fixture, inventory } = s12();
  const ns = fixture.names.namespace!;
  const findings = stuckFinalizerRule.check(
    buildInventory(veleroObjects(inventory, ns)),
    replayContext(fixture),
  );
  const f = group(findings, dataUpload);
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
  // Not "reinstall in place": the namespace is Terminating, so the way that works comes first.
  expect(f.remediation.summary).toMatch(/^Run Velero's own uninstall when it can still run/);
  expect(f.remediation.summary).toContain(
    `Velero cannot come back in place, because namespace ${ns} is Terminating, and the API server refuses to create anything in it (403 "unable to create new content in namespace ${ns} because it is being terminated")`,
  );
  expect(f.remediation.summary).not.toMatch(/Reinstall or scale up/);
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
  // The Completed Restore alone: every removal safe, no warning line.
  const restore = group(findings, restoreFinalizer);
  expect(restore.remediation.commands.some((c) => c.startsWith('# WARNING'))).toBe(false);
});

test('S24: an Argo CD Application lists the managed resources it guards, with whether each still exists', () => {
  const { fixture, inventory } = s12();
  const ns = fixture.names.namespace!;
  const withShop = withObjects(inventory, [
    meta('v1', 'ConfigMap', 'configmaps', 'web-config', { namespace: 'default', uid: 'uid-web-config' }),
  ]);
  const app = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    resource: 'applications',
    ns,
    finalizer: argo,
  };
  const d = held(withShop, [
    {
      ...app,
      name: 'shop',
      status: {
        resources: [
          { version: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web-config' },
          { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'default', name: 'web' },
        ],
      },
    },
    { ...app, name: 'bootstrap', status: {} },
  ]);
  const f = group(stuckFinalizerRule.check(buildInventory(d), replayContext(fixture)), argo);
  expect(f.evidence).toEqual(
    expect.arrayContaining([
      `applications.argoproj.io ${ns}/shop guards managed resource ConfigMap default/web-config (status.resources[]): still exists`,
      `applications.argoproj.io ${ns}/shop guards managed resource apps/Deployment default/web (status.resources[]): gone`,
      `removing ${argo} from applications.argoproj.io ${ns}/shop: unsafe (1 of 2 guarded objects still exist)`,
      `removing ${argo} from applications.argoproj.io ${ns}/bootstrap: safe (its status records no managed objects)`,
    ]),
  );
  expect(f.remediation.summary).toMatch(
    /^Delete the managed resources listed, confirm they are gone, then remove the finalizer/,
  );
  expect(f.remediation.summary).toContain(
    `Argo CD cannot come back in place, because namespace ${ns} is Terminating`,
  );
});

test('S24: a Terminating namespace managed by an Application that lives in it: the self-deletion is named, with the teardown order for next time', () => {
  const { fixture, inventory } = s12();
  const ns = fixture.names.namespace!;
  const app = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    resource: 'applications',
    ns,
    finalizer: argo,
    status: {},
  };
  const apps = held(inventory, [
    { ...app, name: 'bootstrap' },
    { ...app, name: 'in-cluster' },
  ]);
  const tracking = `in-cluster:/Namespace:/${ns}`;
  const marked = annotateNamespace(apps, ns, { 'argocd.argoproj.io/tracking-id': tracking });
  const f = group(stuckFinalizerRule.check(buildInventory(marked), replayContext(fixture)), argo);
  expect(f.evidence).toContain(
    `namespace ${ns} carries argocd.argoproj.io/tracking-id=${tracking}: it is managed by applications.argoproj.io ` +
      `${ns}/in-cluster, which lives in it, so Argo CD's own cascade deleted the namespace Argo CD runs in, together ` +
      'with the controller that had to finalize these objects',
  );
  expect(f.remediation.summary).toContain(
    'Next time: delete the leaf Applications (cascade) and wait until they are gone, then the root app, then Argo CD itself, then its namespace',
  );
  // Not marked, or marked by an app that does not live there: no such claim.
  const unmarked = group(stuckFinalizerRule.check(buildInventory(apps), replayContext(fixture)), argo);
  const elsewhere = annotateNamespace(apps, ns, {
    'argocd.argoproj.io/tracking-id': `other:/Namespace:/${ns}`,
  });
  const other = group(stuckFinalizerRule.check(buildInventory(elsewhere), replayContext(fixture)), argo);
  for (const g of [unmarked, other]) expect(g.evidence.join('\n')).not.toContain('own cascade');
});

test('an unknown finalizer keeps the generic remedy', () => {
  const { fixture, inventory } = s12();
  const ns = fixture.names.namespace!;
  const d = held(inventory, [
    {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      resource: 'widgets',
      ns,
      name: 'w',
      finalizer: 'example.com/cleanup',
      status: {},
    },
  ]);
  const f = group(stuckFinalizerRule.check(buildInventory(d), replayContext(fixture)), 'example.com/cleanup');
  expect(f.remediation.summary).toMatch(
    /^Reinstall or scale up the operator that owns finalizer example\.com\/cleanup/,
  );
  expect(f.evidence.join('\n')).not.toContain('belongs to');
});
