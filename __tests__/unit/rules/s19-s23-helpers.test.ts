import { attacherFinalizer } from '../../../src/rules/csi-driver-gone.js';
import { serviceAccountOf } from '../../../src/rules/rbac-dangling-subjects.js';
import { holderPodName } from '../../../src/rules/stale-leader-lease.js';
import { claimNameParts } from '../../../src/rules/statefulset-claim-leftover.js';

test.each([
  ['driver.longhorn.io', 'external-attacher/driver-longhorn-io'],
  ['ebs.csi.aws.com', 'external-attacher/ebs-csi-aws-com'],
  ['rook-ceph.rbd.csi.ceph.com', 'external-attacher/rook-ceph-rbd-csi-ceph-com'],
  ['hostpath.csi.k8s.io', 'external-attacher/hostpath-csi-k8s-io'],
  // SanitizeDriverName replaces all but [a-zA-Z0-9-], underscores too, and appends X after a trailing -.
  ['my_driver.example.com', 'external-attacher/my-driver-example-com'],
  ['driver.example.', 'external-attacher/driver-example-X'],
])('attacherFinalizer(%j) = %j (external-attacher SanitizeDriverName)', (driver, finalizer) => {
  expect(attacherFinalizer(driver)).toBe(finalizer);
});

test.each([
  ['data-pg-0', [{ template: 'data', statefulSet: 'pg', ordinal: 0 }]],
  [
    'data-my-pg-12',
    [
      { template: 'data', statefulSet: 'my-pg', ordinal: 12 },
      { template: 'data-my', statefulSet: 'pg', ordinal: 12 },
    ],
  ],
  ['data-0', []],
  ['data-pg', []],
  ['data--0', []],
])('claimNameParts(%j)', (name, parts) => {
  expect(claimNameParts(name)).toEqual(parts);
});

test.each([
  [
    { kind: 'ServiceAccount', namespace: 'pr-7', name: 'deployer' },
    { namespace: 'pr-7', name: 'deployer' },
  ],
  [
    { kind: 'User', name: 'system:serviceaccount:pr-7:deployer' },
    { namespace: 'pr-7', name: 'deployer' },
  ],
  [
    { kind: 'Group', name: 'system:serviceaccounts:pr-7' },
    { namespace: 'pr-7', name: undefined },
  ],
  [{ kind: 'Group', name: 'system:serviceaccounts' }, undefined],
  [{ kind: 'User', name: 'alice' }, undefined],
  [{ kind: 'Group', name: 'system:masters' }, undefined],
])('serviceAccountOf(%j)', (subject, expected) => {
  const sa = serviceAccountOf(subject, 0);
  expect(sa && { namespace: sa.namespace, name: sa.name }).toEqual(expected);
});

test.each([
  ['cert-manager-7f9c6d-abcde_0a1b2c3d-1111', 'cert-manager-7f9c6d-abcde'],
  ['widget-controller-7f9c6d-abcde_0a1b', 'widget-controller-7f9c6d-abcde'],
  ['plain-holder', 'plain-holder'],
])('holderPodName(%j) = %j', (holder, pod) => {
  expect(holderPodName(holder)).toBe(pod);
});
