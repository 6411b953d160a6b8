import { resolveScope } from '../../../src/plan/scope.js';
import { parseLabelSelector } from '../../../src/plan/label-selector.js';

const namespaces = [
  { name: 'default' },
  { name: 'kube-system' },
  { name: 'pr-12', labels: { env: 'pr' } },
  { name: 'pr-13', labels: { env: 'pr' } },
  { name: 'staging', labels: { env: 'staging' } },
  { name: 'review-a', labels: { env: 'pr' } },
];

test('names, globs and the selector add up; protected namespaces are set apart', () => {
  const scope = resolveScope(
    {
      namespacePatterns: ['pr-*', 'kube-*', 'nothing-*'],
      selector: parseLabelSelector('env=pr'),
      selectorText: 'env=pr',
      releases: [],
    },
    namespaces,
  );
  expect(scope).toEqual({
    namespaces: ['pr-12', 'pr-13', 'review-a'],
    protectedMatched: ['kube-system'],
    unmatchedPatterns: ['nothing-*'],
  });
});

test('a glob matching everything never puts protected namespaces in the deletable set', () => {
  const scope = resolveScope(
    { namespacePatterns: ['*'], selector: [], selectorText: '', releases: [] },
    namespaces,
  );
  expect(scope.namespaces).toEqual(['pr-12', 'pr-13', 'review-a', 'staging']);
  expect(scope.protectedMatched).toEqual(['default', 'kube-system']);
});

test('globs are matched exactly, not as substrings', () => {
  const scope = resolveScope(
    { namespacePatterns: ['pr-1'], selector: [], selectorText: '', releases: [] },
    namespaces,
  );
  expect(scope.namespaces).toEqual([]);
  expect(scope.unmatchedPatterns).toEqual(['pr-1']);
});
