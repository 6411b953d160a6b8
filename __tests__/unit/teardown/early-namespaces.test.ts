import { buildPlan } from '../../../src/plan/build-plan.js';
import { resourceIndex } from '../../../src/teardown/resource-index.js';
import { lastStageTouching } from '../../../src/teardown/release-objects.js';
import { oldestResourceVersion } from '../../../src/teardown/wait-gone.js';
import { recordedRelease } from '../support/fixtures.js';

test('a namespace is free once the releases of the last stage touching it are done; one no release touches, after the last stage', () => {
  // The app (stage 1) in a namespace of its own, the operator (stage 2) in another.
  const app = { ...recordedRelease('helm4-app.json'), namespace: 'app-ns' };
  const plan = buildPlan({
    scope: {
      namespaces: ['app-ns', 'fixture-helm4', 'no-release'],
      protectedMatched: [],
      unmatchedPatterns: [],
    },
    releaseRefs: [],
    foundReleases: [recordedRelease('helm4-operator.json'), app],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf: (_group, kind) =>
      ({ ConfigMap: 'configmaps', Deployment: 'deployments', Widget: 'widgets' })[kind],
    instancesOf: () => [],
  });
  expect(plan.stages.map((s) => s.releases)).toEqual([['app-ns/app'], ['fixture-helm4/operator']]);
  expect(Object.fromEntries(lastStageTouching(plan, resourceIndex([])))).toEqual({
    'app-ns': { stage: 0, releases: ['app-ns/app'] },
    'fixture-helm4': { stage: 1, releases: ['fixture-helm4/operator'] },
    'no-release': { stage: 1, releases: [] },
  });
});

test('the oldest of several resourceVersions, only when all are decimal revisions', () => {
  expect(oldestResourceVersion(['120', '99', '100000000000000000001'])).toBe('99');
  expect(oldestResourceVersion(['7'])).toBe('7');
  expect(oldestResourceVersion([])).toBeUndefined();
  expect(oldestResourceVersion(['12', 'abc'])).toBeUndefined();
  expect(oldestResourceVersion(['12', ''])).toBeUndefined();
});
