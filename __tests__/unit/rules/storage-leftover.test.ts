import { storageLeftoverRule } from '../../../src/rules/storage-leftover.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = storageLeftoverRule;

test('S13: ReleasedPersistentVolume names the gone claim, its namespace and the reclaim policy', () => {
  const { fixture, inventory } = loadRecordedFixture('s13-released-persistent-volume');
  const { namespace: ns, persistentVolume: pv } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    code: 'ReleasedPersistentVolume',
    severity: 'warning',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'PersistentVolume', name: pv },
  });
  expect(f!.message).toMatch(
    new RegExp(
      `^PersistentVolume ${pv} is Released since \\d+s: its claim ${ns}/data no longer exists \\(nor does its namespace\\), and with reclaimPolicy Retain no new claim can bind it$`,
    ),
  );
  expect(f!.evidence).toEqual([
    expect.stringMatching(/^status\.phase: Released \(since \d{4}-/),
    expect.stringMatching(
      new RegExp(`^spec\\.claimRef: ${ns}/data \\(uid [-0-9a-f]+\\): namespace ${ns} does not exist$`),
    ),
    'spec.persistentVolumeReclaimPolicy: Retain',
    'capacity: 1Gi',
    'storageClassName: (none)',
  ]);
  expect(f!.remediation.commands.slice(-2)).toEqual([
    expect.stringMatching(/^# WARNING: the next claim that binds this volume gets the old data/),
    `kubectl patch persistentvolume ${pv} --type json -p '[{"op":"remove","path":"/spec/claimRef"}]'`,
  ]);
});

test('a Delete volume is given the threshold to be reclaimed; a gap in claims means no conclusion', () => {
  const { fixture, inventory } = loadRecordedFixture('s13-released-persistent-volume');
  const deleting = withInventory(inventory, (d) => ({
    ...d,
    full: {
      ...d.full,
      persistentvolumes: d.full.persistentvolumes.map((p) => {
        const pv = p as { spec: object };
        return { ...pv, spec: { ...pv.spec, persistentVolumeReclaimPolicy: 'Delete' } };
      }),
    },
  }));
  expect(rule.check(deleting, replayContext(fixture, { stuckAfterSeconds: 3600 }))).toEqual([]);
  expect(rule.check(deleting, replayContext(fixture))).toHaveLength(1);
  const gap = withInventory(inventory, (d) => ({
    ...d,
    coverage: [{ resource: 'persistentvolumeclaims/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  expect(rule.check(gap, replayContext(fixture))).toEqual([]);
});
