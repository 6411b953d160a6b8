/**
 * The dry run shows what the real run would skip, decided by the real run's own function
 * (`strandedReason`) over the snapshot's forecast of step 1: a release whose CRDs' instances
 * would outlive their deletion is skipped, its objects stay and its namespace is kept.
 */
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { dryRunOf } from '../../../src/teardown/dry-run.js';
import { operatorAppPlan } from '../support/fixtures.js';
import { helm4Resources } from '../support/served-resources.js';

const resources = helm4Resources;
const ns = 'fixture-helm4';
const group = 'fixture4.kube-sweep.test';

const widget = (name: string, extra: Partial<ObjectMetadata> = {}): ObjectMetadata => ({
  apiVersion: `${group}/v1`,
  kind: 'Widget',
  resource: 'widgets',
  namespace: ns,
  name,
  uid: `uid-${name}`,
  finalizers: [`${group}/cleanup`],
  ...extra,
});

const plan = () => operatorAppPlan(resources);

const instances = [widget('w1'), widget('w2'), widget('other', { namespace: 'elsewhere' })];
const instancesOf = (g: string, kind: string) => (g === group && kind === 'Widget' ? instances : []);

test('with no forecast (or one that foresees every instance go) nothing is skipped', () => {
  expect.hasAssertions();
  for (const outlivesDeletion of [undefined, () => undefined]) {
    const d = dryRunOf(plan(), resources, {
      failedGroupVersions: new Set(),
      instancesOf,
      ...(outlivesDeletion ? { outlivesDeletion } : {}),
    });
    expect(d.stages.map((s) => [s.releases, s.skipped])).toEqual([
      [[`${ns}/app`], []],
      [[`${ns}/operator`], []],
    ]);
    expect(d.namespaces).toEqual([ns]);
    // The Widgets in scope are the app's objects, named once, in its stage (the first that
    // deletes them); the operator's step 1 does not name them again.
    expect(d.stages[0]!.objects.filter((o) => o.kind === 'Widget').map((o) => o.name)).toEqual(['w1', 'w2']);
    expect(d.stages[1]!.crdInstances).toEqual([]);
  }
});

test('an instance foreseen to outlive its deletion: its CRD’s release is skipped, its objects stay, its namespace is kept', () => {
  const why = `finalizer ${group}/cleanup: no controller for it appears to run`;
  const d = dryRunOf(plan(), resources, {
    failedGroupVersions: new Set(),
    instancesOf,
    outlivesDeletion: (o) => (o.name === 'w2' ? why : undefined),
  });
  const [app, operator] = d.stages;
  // The app's removal does not depend on the Widgets (its Helm uninstall deletes them).
  expect(app!.releases).toEqual([`${ns}/app`]);
  expect(app!.skipped).toEqual([]);
  expect(operator!.releases).toEqual([]);
  expect(operator!.removals).toEqual([]);
  expect(operator!.skipped).toEqual([
    {
      release: `${ns}/operator`,
      // The real run's words (stage-custom-resources.ts strandedReason).
      reason: `not uninstalled: 1 widgets.${group} object(s) still there; its controller must stay to finalize them`,
      instances: [{ object: { apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w2' }, why }],
    },
  ]);
  // Deleted with the app (named there, once), but the operator's own objects are not, and its
  // namespace is kept, so Helm's record survives for a rerun.
  expect(app!.objects.filter((o) => o.kind === 'Widget').map((o) => o.name)).toEqual(['w1', 'w2']);
  expect(operator!.crdInstances).toEqual([]);
  expect(operator!.objects).toEqual([]);
  expect(d.namespaces).toEqual([]);
  expect(d.objectCount).toBe(app!.objects.length);
});
