import { objectInMissingNamespaceRule } from '../../../src/rules/object-in-missing-namespace.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = objectInMissingNamespaceRule;

test('S10: every object of the force-finalized namespace, none of the namespace whose name extends it', () => {
  const { fixture, inventory } = loadRecordedFixture('s10-orphan-in-missing-namespace');
  const { namespace: ns, existingNamespace } = fixture.names;
  expect(inventory.namespaceNames.has(existingNamespace!)).toBe(true);
  expect(inventory.byNamespace.get(existingNamespace!)?.length).toBeGreaterThan(0);
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.object.kind, f.object.namespace, f.object.name, f.scope])).toEqual([
    ['OrphanInMissingNamespace', 'ConfigMap', ns, 'cm1', 'environment'],
    ['OrphanInMissingNamespace', 'Widget', ns, 'w1', 'environment'],
  ]);
  const [cm] = findings;
  expect(cm!.message).toBe(
    `configmaps ${ns}/cm1 is stored in namespace ${ns}, which does not exist: no namespace controller will ever delete it`,
  );
  expect(cm!.evidence).toEqual([
    `namespace ${ns} is not among the ${inventory.namespaceNames.size} namespaces listed`,
    'finalizers: example.com/cleanup',
    expect.stringMatching(/^deletionTimestamp: \d{4}-/),
    expect.stringMatching(/^creationTimestamp: \d{4}-/),
  ]);
  expect(cm!.remediation.commands).toEqual([
    `kubectl create namespace ${ns}`,
    `kubectl get configmaps cm1 -n ${ns} -o yaml`,
    `kubectl delete namespace ${ns} --wait=false`,
    expect.stringMatching(/^# WARNING: /),
    `kubectl patch configmaps cm1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
  ]);
});

test('nothing is concluded when Namespaces could not be listed', () => {
  const { fixture, inventory } = loadRecordedFixture('s10-orphan-in-missing-namespace');
  const gap = withInventory(inventory, (data) => ({
    ...data,
    full: { ...data.full, namespaces: [] },
    coverage: [{ resource: 'namespaces/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  expect(rule.check(gap, replayContext(fixture))).toEqual([]);
});

test('objects created after the snapshot started are skipped (their namespace may be newer than its list)', () => {
  const { fixture, inventory } = loadRecordedFixture('s10-orphan-in-missing-namespace');
  const later = new Date(Date.parse(inventory.takenAt) + 5000).toISOString();
  const newer = withInventory(inventory, (data) => ({
    ...data,
    objects: data.objects.map((o) =>
      o.namespace === fixture.names.namespace ? { ...o, creationTimestamp: later } : o,
    ),
  }));
  expect(rule.check(newer, replayContext(fixture))).toEqual([]);
});

test('a healthy snapshot has no orphans', () => {
  expect.hasAssertions();
  for (const name of ['s01-stale-apiservice', 's02-operator-gone-finalizer', 's14-owner-reference']) {
    const { fixture, inventory } = loadRecordedFixture(name);
    expect(rule.check(inventory, replayContext(fixture))).toEqual([]);
  }
});
