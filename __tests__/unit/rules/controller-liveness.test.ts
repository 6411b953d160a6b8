import {
  leaseGraceSeconds,
  leaseLiveness,
  workloadLiveness,
} from '../../../src/rules/controller-liveness.js';

const snapshot = Date.parse('2026-11-30T12:00:00Z');
const ago = (seconds: number) => new Date(snapshot - seconds * 1000).toISOString();

test.each([
  ['renewed 2 s ago, duration 15', { leaseDurationSeconds: 15, renewTime: ago(2) }, true],
  [
    'renewed at the edge of duration + grace',
    { leaseDurationSeconds: 15, renewTime: ago(15 + leaseGraceSeconds) },
    true,
  ],
  [
    'renewed one second past duration + grace',
    { leaseDurationSeconds: 15, renewTime: ago(16 + leaseGraceSeconds) },
    false,
  ],
  ['renewed after the snapshot started', { leaseDurationSeconds: 15, renewTime: ago(-3) }, true],
  ['renewed 30 minutes ago, duration 60 (S20)', { leaseDurationSeconds: 60, renewTime: ago(1800) }, false],
  ['acquired but never renewed, within duration', { leaseDurationSeconds: 60, acquireTime: ago(5) }, true],
  ['no renewTime (released)', { leaseDurationSeconds: 15 }, false],
  ['no leaseDurationSeconds', { renewTime: ago(1) }, false],
])('leaseLiveness: %s → live %s', (_name, spec, live) => {
  expect(leaseLiveness({ spec }, snapshot).live).toBe(live);
});

test('leaseLiveness says how old the renewal is against duration and grace, and the holder', () => {
  expect(
    leaseLiveness(
      { spec: { holderIdentity: 'w-7f9c_0a1b', leaseDurationSeconds: 60, renewTime: ago(1800) } },
      snapshot,
    ),
  ).toEqual({
    live: false,
    reason:
      'renewed 30m before the snapshot, past its leaseDurationSeconds 60 + 10 s grace, holder w-7f9c_0a1b',
  });
});

test.each([
  [
    'a Deployment with one available replica',
    { kind: 'Deployment', spec: { replicas: 1 }, status: { availableReplicas: 1 } },
    true,
    '1 of 1 replicas available',
  ],
  [
    'a Deployment scaled to zero',
    { kind: 'Deployment', spec: { replicas: 0 }, status: {} },
    false,
    '0 of 0 replicas available',
  ],
  [
    'a StatefulSet whose pods are not ready',
    { kind: 'StatefulSet', spec: { replicas: 3 }, status: { replicas: 3 } },
    false,
    '0 of 3 replicas available',
  ],
  [
    'a DaemonSet with available pods',
    { kind: 'DaemonSet', status: { numberAvailable: 2, desiredNumberScheduled: 3 } },
    true,
    '2 of 3 scheduled pods available',
  ],
])('workloadLiveness: %s → live %s', (_name, workload, live, reason) => {
  expect(workloadLiveness(workload)).toEqual({ live, reason });
});
