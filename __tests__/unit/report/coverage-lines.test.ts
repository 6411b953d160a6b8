import type { CoverageGap } from '../../../src/inventory/types.js';
import { coverageWarnings, roleFileOf } from '../../../src/report/coverage-lines.js';

const forbidden = (resource: string): CoverageGap => ({
  resource,
  reason: 'forbidden',
  message: 'forbidden',
});

test('forbidden gaps are one line that counts them, names five and the role file of the mode; other gaps one line each', () => {
  const gaps = [
    ...['a/v1', 'b/v1', 'c/v1', 'd/v1', 'e/v1', 'f/v1', 'g/v1'].map(forbidden),
    { resource: 'widgets.example.com/v1', reason: 'failed', message: 'HTTP 503' } as const,
  ];
  expect(coverageWarnings(gaps, 'scan')).toEqual([
    'could not read 7 resources (403 forbidden): a/v1, b/v1, c/v1, d/v1, e/v1 and 2 more. Findings may be missing: ' +
      'bind this identity to the ClusterRole in rbac/kube-sweep-scan.yaml (kubectl apply -f rbac/kube-sweep-scan.yaml, ' +
      'then a ClusterRoleBinding; README "Permissions"); the report lists each gap with the rule that grants it',
    'could not read widgets.example.com/v1 (failed): HTTP 503',
  ]);
  expect(coverageWarnings([forbidden('a/v1')], 'teardown')[0]).toMatch(
    /^could not read 1 resource \(403 forbidden\): a\/v1\. .*rbac\/kube-sweep-teardown\.yaml/,
  );
  expect(coverageWarnings([], 'scan')).toEqual([]);
});

test('the role file: teardown and reap change the cluster, the other modes only read', () => {
  expect(['teardown', 'reap', 'scan', 'plan', 'inventory', 'merge'].map(roleFileOf)).toEqual([
    'rbac/kube-sweep-teardown.yaml',
    'rbac/kube-sweep-teardown.yaml',
    'rbac/kube-sweep-scan.yaml',
    'rbac/kube-sweep-scan.yaml',
    'rbac/kube-sweep-scan.yaml',
    'rbac/kube-sweep-scan.yaml',
  ]);
});
