import { findingKey } from '../../../src/rules/findings.js';
import {
  blockingDependents,
  foregroundWait,
  inForegroundDeletion,
} from '../../../src/rules/foreground-deletion.js';
import { runRules } from '../../../src/rules/index.js';
import { diagnoseLeftovers } from '../../../src/rules/leftover-diagnosis.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const cleanup = 'example.com/cleanup';

function load() {
  const { fixture, inventory } = loadRecordedFixture('foreground-deletion');
  const ns = fixture.names.namespace!;
  const inNs = inventory.byNamespace.get(ns)!;
  return {
    fixture,
    inventory,
    ns,
    owner: inNs.find((o) => o.name === 'owner')!,
    dependent: inNs.find((o) => o.name === 'dependent')!,
  };
}

test('the owner in foreground deletion waits for its blockOwnerDeletion dependent', () => {
  const { inventory, ns, owner, dependent } = load();
  expect(inForegroundDeletion(owner)).toBe(true);
  expect(inForegroundDeletion(dependent)).toBe(false);
  expect(blockingDependents(inventory, owner)).toEqual([dependent]);
  const wait = foregroundWait(inventory, [owner]);
  expect(wait.dependents).toEqual([dependent]);
  expect(wait.message).toBe(
    `the garbage collector removes it only when the dependent with blockOwnerDeletion is gone (configmaps ${ns}/dependent)`,
  );
  expect(wait.evidence).toEqual([
    `configmaps ${ns}/owner waits for dependent configmaps ${ns}/dependent [${cleanup}] (deleting since ${dependent.deletionTimestamp}) (blockOwnerDeletion)`,
  ]);
});

test('a dependent without blockOwnerDeletion is not waited for: the evidence says the garbage collector should finish', () => {
  const { inventory, owner } = load();
  const loose = withInventory(inventory, (data) => ({
    ...data,
    objects: data.objects.map((o) =>
      o.ownerReferences
        ? { ...o, ownerReferences: o.ownerReferences.map((r) => ({ ...r, blockOwnerDeletion: false })) }
        : o,
    ),
  }));
  const wait = foregroundWait(loose, [owner]);
  expect(wait.dependents).toEqual([]);
  expect(wait.message).toBe(
    'no dependent with blockOwnerDeletion remains, so the garbage collector should remove it',
  );
  expect(wait.evidence[0]).toMatch(/waits for no dependent with blockOwnerDeletion in the snapshot/);
});

test('linking: the foregroundDeletion finding is caused by the finding about what holds the dependent; a leftover owner roots there', () => {
  const { fixture, inventory, ns, owner } = load();
  const findings = runRules(inventory, replayContext(fixture));
  const foreground = findings.find(
    (f) => f.key === findingKey('StuckFinalizer', finalizerGroupSubject(ns, 'foregroundDeletion')),
  )!;
  const held = findings.find((f) => f.key.endsWith(`:${finalizerGroupSubject(ns, cleanup)}`))!;
  expect(foreground.message).toMatch(
    /waited up to \S+ for finalizer foregroundDeletion to be removed: the garbage collector removes it only when/,
  );
  expect(foreground.remediation.summary).toMatch(/^Resolve what holds the dependents it waits for/);
  expect(foreground.causedBy).toEqual([held.key]);
  const [d] = diagnoseLeftovers(
    [{ object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: owner.name }, source: 'stage' }],
    findings,
    inventory,
  );
  expect(d).toMatchObject({ findings: [foreground.key], rootCauses: [held.key] });
});
