import { helmReleaseRecordInvalidRule } from '../../../src/rules/helm-release-record-invalid.js';
import { loadRecordedFixture, replayContext } from './support/recorded-fixture.js';

test('a refused release record is a HelmReleaseRecordInvalid warning about its Secret, with the reason', () => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  const reason =
    'release Secret pr-1/sh.helm.release.v1.web.v1 is not a valid Helm release: its release name is not one Helm allows';
  const [f, ...rest] = helmReleaseRecordInvalidRule.check(
    inventory,
    replayContext(fixture, {
      environmentNamespaces: new Set(['pr-1']),
      invalidReleaseRecords: [{ namespace: 'pr-1', secret: 'sh.helm.release.v1.web.v1', reason }],
    }),
  );
  expect(rest).toEqual([]);
  expect(f).toMatchObject({
    code: 'HelmReleaseRecordInvalid',
    severity: 'warning',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'Secret', namespace: 'pr-1', name: 'sh.helm.release.v1.web.v1' },
    evidence: [reason],
  });
  expect(f!.remediation.commands).toEqual([
    'kubectl get secret sh.helm.release.v1.web.v1 -n pr-1 --show-labels',
    expect.stringMatching(/^# WARNING: /),
    'kubectl delete secret sh.helm.release.v1.web.v1 -n pr-1',
  ]);
});

test('a clean snapshot with no refused record: no finding', () => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  expect(helmReleaseRecordInvalidRule.check(inventory, replayContext(fixture))).toEqual([]);
});
