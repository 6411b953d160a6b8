import { ownerReferenceRule } from '../../../src/rules/owner-reference.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = ownerReferenceRule;

test('S14: OrphanedDependent for the orphaned ReplicaSet, InvalidOwnerReference for the cluster-scoped child', () => {
  const { fixture, inventory } = loadRecordedFixture('s14-owner-reference');
  const { namespace: ns, replicaSet, clusterRole } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.object.kind, f.object.namespace, f.object.name, f.scope])).toEqual([
    ['InvalidOwnerReference', 'ClusterRole', undefined, clusterRole, 'cluster'],
    ['OrphanedDependent', 'ReplicaSet', ns, replicaSet, 'environment'],
  ]);
  const hash = replicaSet!.slice(replicaSet!.lastIndexOf('-') + 1);
  expect(findings[1]!.evidence).toEqual([
    `it carries pod-template-hash=${hash} (made by a Deployment) but has no controller ownerReference, and nothing in namespace ${ns} will adopt it`,
    `label pod-template-hash=${hash}`,
  ]);
  // The ReplicaSet's pod still has its controller ownerReference: no finding for it.
  expect(findings.some((f) => f.object.kind === 'Pod')).toBe(false);
});

test('a dangling ownerReference (owner listed, gone) is OrphanedDependent; not in a Terminating namespace', () => {
  const { fixture, inventory } = loadRecordedFixture('s14-owner-reference');
  const { namespace: ns, replicaSet } = fixture.names;
  const pod = inventory.objects.find((o) => o.resource === 'pods' && o.namespace === ns)!;
  const withoutReplicaSet = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.filter((o) => o.name !== replicaSet),
  }));
  const findings = rule.check(withoutReplicaSet, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.object.kind, f.object.name])).toEqual([
    ['InvalidOwnerReference', 'ClusterRole', fixture.names.clusterRole],
    ['OrphanedDependent', 'Pod', pod.name],
  ]);
  expect(findings[1]!.evidence[0]).toMatch(
    new RegExp(
      `^its owner ReplicaSet ${replicaSet} \\(apps/v1, uid [-0-9a-f]+\\) does not exist, and the garbage collector has not deleted it$`,
    ),
  );
});

test('an owner kind in a group-version whose discovery failed is not judged', () => {
  const { fixture, inventory } = loadRecordedFixture('s14-owner-reference');
  const pod = inventory.objects.find(
    (o) => o.resource === 'pods' && o.namespace === fixture.names.namespace,
  )!;
  const unknownKind = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.map((o) =>
      o.uid === pod.uid
        ? {
            ...o,
            ownerReferences: [
              { apiVersion: 'gone.example.com/v1', kind: 'Thing', name: 't', uid: 'u1', controller: true },
            ],
          }
        : o,
    ),
    failedGroupVersions: [
      { groupVersion: 'gone.example.com/v1', message: 'stale GroupVersion discovery: gone.example.com/v1' },
    ],
  }));
  expect(rule.check(unknownKind, replayContext(fixture)).map((f) => f.object.kind)).toEqual([
    'ClusterRole',
    'ReplicaSet',
  ]);
});
