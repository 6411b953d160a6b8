import { inFaceTerms } from '../../../src/report/face.js';
import {
  isProtected,
  isProtectedNamespace,
  nameProtectionOnly,
  namespaceProtection,
  protectionNow,
  protectionReason,
} from '../../../src/plan/protected-namespaces.js';

test.each([
  ['kube-system', 'a control-plane namespace'],
  ['default', 'a control-plane namespace'],
  ['kube-flannel', 'every kube-* namespace is protected'],
  ['kube-', 'every kube-* namespace is protected'],
  ['kubeflow', undefined],
  ['pr-12', undefined],
])('by name alone, %s: %s', (name, reason) => {
  expect(protectionReason(name, nameProtectionOnly)).toBe(reason);
  expect(isProtectedNamespace(name)).toBe(reason !== undefined);
});

test('the protect input and the label protect more namespaces', () => {
  const protection = namespaceProtection(
    ['infra-*', 'shared'],
    [
      { name: 'vault', labels: { 'kube-sweep.io/protected': 'true' } },
      { name: 'pr-1', labels: { 'kube-sweep.io/protected': 'false' } },
      { name: 'pr-2' },
    ],
  );
  expect(protection).toEqual({ patterns: ['infra-*', 'shared'], labelled: ['vault'] });
  expect(inFaceTerms('action', protectionReason('infra-db', protection)!)).toBe(
    "input 'protect' matches it ('infra-*')",
  );
  expect(protectionReason('vault', protection)).toBe('labelled kube-sweep.io/protected=true');
  expect(isProtected('shared', protection)).toBe(true);
  expect(isProtected('pr-1', protection)).toBe(false);
  expect(isProtected('pr-2', protection)).toBe(false);
});

test('protectionNow: a label added since the plan protects from then on; one the plan saw is never taken back', () => {
  const planned = namespaceProtection(
    ['infra-*'],
    [{ name: 'vault', labels: { 'kube-sweep.io/protected': 'true' } }],
  );
  const now = protectionNow(planned, { name: 'pr-3', labels: { 'kube-sweep.io/protected': 'true' } });
  expect(now).toEqual({ patterns: ['infra-*'], labelled: ['pr-3', 'vault'] });
  expect(protectionReason('pr-3', now)).toBe('labelled kube-sweep.io/protected=true');
  // The label removed after the plan: still protected; another value than exactly "true": not.
  expect(isProtected('vault', protectionNow(planned, { name: 'vault', labels: {} }))).toBe(true);
  expect(
    isProtected(
      'pr-4',
      protectionNow(planned, { name: 'pr-4', labels: { 'kube-sweep.io/protected': 'True' } }),
    ),
  ).toBe(false);
});
