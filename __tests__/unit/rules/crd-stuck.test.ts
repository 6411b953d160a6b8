import { crdStuckRule } from '../../../src/rules/crd-stuck.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

test('S06: CRDStuckTerminating lists the instance that holds it and never strips the CRD finalizer', () => {
  const { fixture, inventory } = loadRecordedFixture('s06-crd-stuck');
  const { crd, namespace: ns, group } = fixture.names;
  const findings = crdStuckRule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    code: 'CRDStuckTerminating',
    severity: 'error',
    scope: 'environment',
    object: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd },
  });
  expect(f!.message).toMatch(
    new RegExp(
      `^CustomResourceDefinition ${crd!.replace(/\./g, '\\.')} has been Terminating for \\d+s: 1 instance remains, waiting for finalizer example\\.com/cleanup$`,
    ),
  );
  expect(f!.evidence.map((e) => e.replace(/deletionTimestamp [^)]+/, 'deletionTimestamp …'))).toEqual([
    'Terminating=True (InstanceDeletionInProgress): CustomResource deletion is in progress',
    'finalizers of the CRD: customresourcecleanup.apiextensions.k8s.io',
    `instance ${ns}/w1 [example.com/cleanup] (deletionTimestamp …)`,
  ]);
  expect(f!.remediation.commands).toEqual([
    `kubectl get widgets.${group} -A`,
    `kubectl get widgets.${group} w1 -n ${ns} -o yaml`,
    '# Do NOT remove customresourcecleanup.apiextensions.k8s.io from the CRD (its instances would stay in etcd)',
    expect.stringMatching(/^# WARNING: removing finalizers/),
    `kubectl patch widgets.${group} w1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
  ]);
});

test('when its instances could not be listed the finding says so instead of "0 remain"', () => {
  const { fixture, inventory } = loadRecordedFixture('s06-crd-stuck');
  const { group } = fixture.names;
  const gap = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.filter((o) => o.resource !== 'widgets'),
    coverage: [{ resource: `widgets.${group}/v1`, reason: 'failed', message: 'HTTP 500' }],
  }));
  const [f] = crdStuckRule.check(gap, replayContext(fixture));
  expect(f!.message).toMatch(/its instances could not be listed$/);
  expect(f!.evidence).toContain(`widgets.${group} could not be listed: see coverage`);
});

test('below the threshold nothing is reported', () => {
  const { fixture, inventory } = loadRecordedFixture('s06-crd-stuck');
  expect(crdStuckRule.check(inventory, replayContext(fixture, { stuckAfterSeconds: 3600 }))).toEqual([]);
});
