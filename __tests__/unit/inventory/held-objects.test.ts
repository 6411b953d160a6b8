/** The pure parts of reading held objects whole (src/inventory/held-objects.ts). */
import {
  finalizerManagersOf,
  finalizerRemovalOps,
  removalOutcome,
} from '../../../src/inventory/held-objects.js';

test('finalizerManagersOf reads who owns each finalizer entry in managedFields, and skips bad shapes', () => {
  expect(
    finalizerManagersOf([
      {
        manager: 'widget-manager',
        operation: 'Update',
        fieldsV1: { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"a.io/x"': {} } } },
      },
      {
        manager: 'kubectl-patch',
        fieldsV1: { 'f:metadata': { 'f:finalizers': { 'v:"a.io/x"': {}, 'v:"b.io/y"': {} } } },
      },
      { manager: 'widget-manager', fieldsV1: { 'f:metadata': { 'f:finalizers': { 'v:"a.io/x"': {} } } } },
      { manager: '', fieldsV1: { 'f:metadata': { 'f:finalizers': { 'v:"c"': {} } } } },
      { manager: 'x', fieldsV1: { 'f:metadata': { 'f:finalizers': { 'v:not-json': {}, 'v:3': {} } } } },
      null,
      'junk',
    ]),
  ).toEqual({ 'a.io/x': ['widget-manager', 'kubectl-patch'], 'b.io/y': ['kubectl-patch'] });
  expect(finalizerManagersOf(undefined)).toEqual({});
  expect(finalizerManagersOf({ manager: 'x' })).toEqual({});
});

test('finalizerRemovalOps tests each removed entry at the index seen, then removes from the highest', () => {
  expect(finalizerRemovalOps(['a', 'b', 'a'], 'a')).toEqual([
    { op: 'test', path: '/metadata/finalizers/2', value: 'a' },
    { op: 'test', path: '/metadata/finalizers/0', value: 'a' },
    { op: 'remove', path: '/metadata/finalizers/2' },
    { op: 'remove', path: '/metadata/finalizers/0' },
  ]);
  expect(finalizerRemovalOps(['a'], 'z')).toEqual([]);
});

test.each([
  [403, 'admission webhook "v.x" denied the request: no', 'refused'],
  [400, 'admission webhook "v.x" denied the request: no', 'refused'],
  [403, "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: x", 'refused'],
  [422, 'Widget.x "w" is invalid: ...', 'refused'],
  [403, 'widgets.x "w" is forbidden: User "ci" cannot patch resource "widgets"', 'unchecked'],
  [400, 'admission webhook "v.x" does not support dry run', 'unchecked'],
  [500, 'Internal error occurred: failed calling webhook "v.x": service "v" not found', 'refused'],
  [500, 'etcdserver: request timed out', 'unchecked'],
  [404, 'not found', 'unchecked'],
])('removalOutcome(%d, %j) = %s', (status, message, outcome) => {
  expect(removalOutcome(status, message)).toBe(outcome);
});
