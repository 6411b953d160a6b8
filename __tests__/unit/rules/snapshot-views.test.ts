import { compareFindings, type Finding } from '../../../src/rules/findings.js';
import { formatDuration, typeName } from '../../../src/rules/snapshot-views.js';

test.each([
  [0, '0s'],
  [42, '42s'],
  [60, '1m'],
  [750, '12m30s'],
  [7_500, '2h5m'],
  [277_200, '3d5h'],
])('formatDuration(%d) = %s', (seconds, text) => {
  expect(formatDuration(seconds)).toBe(text);
});

test('typeName spells the resource type as kubectl and the namespace controller do', () => {
  expect(typeName('services', '')).toBe('services');
  expect(typeName('widgets', 'example.com')).toBe('widgets.example.com');
});

test('findings sort by severity, code, scope (environment first), namespace, kind, name', () => {
  const f = (
    severity: Finding['severity'],
    code: Finding['code'],
    scope: Finding['scope'],
    name: string,
  ): Finding => ({
    key: `${code}:${name}`,
    code,
    rule: 'r',
    severity,
    object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'n', name },
    message: '',
    evidence: [],
    remediation: { summary: '', commands: [] },
    scope,
  });
  const sorted = [
    f('warning', 'StuckFinalizer', 'cluster', 'a'),
    f('error', 'StaleAPIService', 'cluster', 'b'),
    f('error', 'OrphanInMissingNamespace', 'cluster', 'a'),
    f('error', 'OrphanInMissingNamespace', 'environment', 'z'),
  ].sort(compareFindings);
  expect(sorted.map((x) => x.key)).toEqual([
    'OrphanInMissingNamespace:z',
    'OrphanInMissingNamespace:a',
    'StaleAPIService:b',
    'StuckFinalizer:a',
  ]);
});
