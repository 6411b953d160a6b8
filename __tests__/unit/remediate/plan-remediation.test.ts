import { planRemediation } from '../../../src/remediate/plan-remediation.js';
import { runRules } from '../../../src/rules/index.js';
import { loadRecordedFixture, replayContext } from '../rules/support/recorded-fixture.js';

function scenario(name: string) {
  const { fixture, inventory } = loadRecordedFixture(name);
  return { fixture, inventory, findings: runRules(inventory, replayContext(fixture)) };
}

test('S10: re-create, remove only the named finalizer, delete; nothing outside the environment', () => {
  const { fixture, inventory, findings } = scenario('s10-orphan-in-missing-namespace');
  const ns = fixture.names.namespace!;
  const policy = {
    forceRemoveFinalizers: ['example.com/cleanup'],
    environmentNamespaces: new Set([ns]),
    clusterWide: false,
  };
  const plan = planRemediation(findings, inventory, policy);
  expect(plan.actions.map((a) => [a.type, a.type === 'remove-finalizer' ? a.object.name : ''])).toEqual([
    ['recreate-namespace', ''],
    ['remove-finalizer', 'cm1'],
    ['remove-finalizer', 'w1'],
    ['delete-namespace', ''],
  ]);
  // Not named: the namespace is still re-created and deleted, no finalizer is touched.
  const unnamed = planRemediation(findings, inventory, {
    ...policy,
    forceRemoveFinalizers: ['example.com/other'],
  });
  expect(unnamed.actions.map((a) => a.type)).toEqual(['recreate-namespace', 'delete-namespace']);
  // Outside the environment: nothing, each finding said why.
  const outside = planRemediation(findings, inventory, { ...policy, environmentNamespaces: new Set() });
  expect(outside.actions).toEqual([]);
  expect(
    outside.skipped.every((s) => s.reason.includes(`namespace ${ns} is outside the scope of the inputs`)),
  ).toBe(true);
  expect(
    planRemediation(findings, inventory, { ...policy, environmentNamespaces: new Set(), clusterWide: true })
      .actions,
  ).toHaveLength(4);
});

test('S01: an APIService whose backend namespace is outside the scope is left alone unless cluster-wide', () => {
  const { inventory, findings } = scenario('s01-stale-apiservice');
  const policy = { forceRemoveFinalizers: [], environmentNamespaces: new Set<string>(), clusterWide: false };
  const plan = planRemediation(findings, inventory, policy);
  expect(plan.actions).toEqual([]);
  expect(plan.skipped.map((s) => s.reason)).toEqual(['its backend is outside the scope of the inputs']);
  expect(
    planRemediation(findings, inventory, { ...policy, clusterWide: true }).actions.map((a) => a.type),
  ).toEqual(['delete-apiservice']);
});

test('no findings, no actions', () => {
  const { inventory } = scenario('s01-stale-apiservice');
  expect(
    planRemediation([], inventory, {
      forceRemoveFinalizers: ['x'],
      environmentNamespaces: new Set(),
      clusterWide: true,
    }),
  ).toEqual({ actions: [], skipped: [] });
});

test('S10: a namespace the protect input or the label protects is never touched, even cluster-wide', () => {
  expect.hasAssertions();
  const { fixture, inventory, findings } = scenario('s10-orphan-in-missing-namespace');
  const ns = fixture.names.namespace!;
  const policy = {
    forceRemoveFinalizers: ['example.com/cleanup'],
    environmentNamespaces: new Set([ns]),
    clusterWide: true,
  };
  for (const protection of [
    { patterns: [ns], labelled: [] },
    { patterns: [], labelled: [ns] },
  ]) {
    const plan = planRemediation(findings, inventory, { ...policy, protection });
    expect(plan.actions).toEqual([]);
    expect(plan.skipped.length).toBeGreaterThan(0);
    expect(plan.skipped.every((s) => s.reason.includes(`namespace ${ns} is protected (`))).toBe(true);
  }
});
