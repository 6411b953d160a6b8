import { findingKey } from '../../../src/rules/findings.js';
import { runRules } from '../../../src/rules/index.js';
import { podUsesClaim, pvcProtectionBlockedRule } from '../../../src/rules/pvc-protection-blocked.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = pvcProtectionBlockedRule;
const { fixture, inventory } = loadRecordedFixture('s12-pvc-protection-blocked');
const { namespace: ns, node, persistentVolume: pv } = fixture.names;

test('S12: the claim names the pod that holds it, linked to that pod’s PodStuckTerminating', () => {
  const findings = runRules(inventory, replayContext(fixture)).filter(
    (f) => f.object.namespace === ns || f.object.name === ns,
  );
  const claim = findings.find((f) => f.code === 'PVCProtectionBlocked')!;
  const podKey = findingKey('PodStuckTerminating', {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: ns,
    name: 'user',
  });
  expect(claim).toMatchObject({ severity: 'error', scope: 'environment', causedBy: [podKey] });
  expect(claim.evidence).toEqual(
    expect.arrayContaining([
      'finalizers: kubernetes.io/pvc-protection',
      `spec.volumeName: ${pv}`,
      expect.stringMatching(
        new RegExp(`^used by pod ${ns}/user on node ${node} \\(phase Pending, Terminating since `),
      ),
    ]),
  );
  // pvc-protection is this rule's; stuck-finalizer leaves it alone.
  expect(findings.map((f) => f.code).sort()).toEqual([
    'NamespaceBlockedByFinalizer',
    'NamespaceContentDeletionFailed',
    'PVCProtectionBlocked',
    'PodStuckTerminating',
  ]);
  expect(findings.find((f) => f.code === 'NamespaceBlockedByFinalizer')!.causedBy).toEqual([claim.key]);
});

test('without a user pod the controller is suspected and the finalizer strip comes last; a pod gap is said', () => {
  const noPods = withInventory(inventory, (d) => ({ ...d, full: { ...d.full, pods: [] } }));
  const [f] = rule.check(noPods, replayContext(fixture));
  expect(f!.message).toMatch(
    /no scheduled pod uses it: the pvc-protection controller of kube-controller-manager does not seem to act$/,
  );
  expect(f!.remediation.commands.at(-2)).toMatch(/^# WARNING: removing finalizers/);
  expect(f!.remediation.commands.at(-1)).toBe(
    `kubectl patch persistentvolumeclaims data -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"kubernetes.io/pvc-protection"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
  );
  const gap = withInventory(noPods, (d) => ({
    ...d,
    coverage: [
      { resource: `pods/v1 (whole objects: namespace ${ns})`, reason: 'forbidden', message: 'forbidden' },
    ],
  }));
  const [g] = rule.check(gap, replayContext(fixture));
  expect(g!.message).toContain('which pods use it is unknown');
  expect(g!.remediation.commands.join('\n')).toContain('WARNING');
  expect(rule.check(inventory, replayContext(fixture, { stuckAfterSeconds: 3600 }))).toEqual([]);
});

test('podUsesClaim: scheduled pods only, direct claims and generic ephemeral volumes', () => {
  const volume = { name: 'data', persistentVolumeClaim: { claimName: 'data' } };
  expect(podUsesClaim({ spec: { nodeName: 'n', volumes: [volume] } }, 'data')).toBe(true);
  expect(podUsesClaim({ spec: { volumes: [volume] } }, 'data')).toBe(false);
  expect(podUsesClaim({ spec: { nodeName: 'n', volumes: [volume] } }, 'other')).toBe(false);
  const ephemeral = {
    metadata: { name: 'web-0' },
    spec: { nodeName: 'n', volumes: [{ name: 'scratch', ephemeral: {} }] },
  };
  expect(podUsesClaim(ephemeral, 'web-0-scratch')).toBe(true);
});
