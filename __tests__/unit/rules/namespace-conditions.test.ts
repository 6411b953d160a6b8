import {
  parseDiscoveryFailure,
  parseFailingWebhooks,
  parseRemainingFinalizers,
  parseRemainingResources,
  readNamespaceDeletionState,
} from '../../../src/rules/namespace-conditions.js';
import { fullObjectsOf } from '../../../src/rules/kubernetes-objects.js';
import { loadRecordedFixture } from './support/recorded-fixture.js';

/** The conditions of the Terminating namespace of a recorded scenario. */
function recordedConditions(name: string) {
  const { fixture, inventory } = loadRecordedFixture(name);
  const ns = fullObjectsOf(inventory, 'namespaces').find((n) => n.metadata?.name === fixture.names.namespace);
  return { fixture, conditions: ns!.status!.conditions! };
}

describe('parseDiscoveryFailure', () => {
  test.each([
    [
      'aggregated discovery (1.26+)',
      'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery: metrics.k8s.io/v1beta1',
      [
        {
          groupVersion: 'metrics.k8s.io/v1beta1',
          error: 'stale GroupVersion discovery: metrics.k8s.io/v1beta1',
        },
      ],
    ],
    [
      'legacy discovery',
      'Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
      [
        {
          groupVersion: 'metrics.k8s.io/v1beta1',
          error: 'the server is currently unable to handle the request',
        },
      ],
    ],
    [
      'two group-versions, sorted, one error with a comma in it',
      'Discovery failed for some groups, 2 failing: unable to retrieve the complete list of server APIs: custom.metrics.k8s.io/v1beta2: Get "https://x", retry later, metrics.k8s.io/v1beta1: the server is currently unable to handle the request',
      [
        { groupVersion: 'custom.metrics.k8s.io/v1beta2', error: 'Get "https://x", retry later' },
        {
          groupVersion: 'metrics.k8s.io/v1beta1',
          error: 'the server is currently unable to handle the request',
        },
      ],
    ],
    ['another form: no group-versions', 'some other discovery error', []],
  ])('%s', (_name, message, expected) => {
    expect(parseDiscoveryFailure(message)).toEqual(expected);
  });

  test('the recorded message of S01', () => {
    const { fixture, conditions } = recordedConditions('s01-stale-apiservice');
    const state = readNamespaceDeletionState(conditions);
    expect(state.failing.map((c) => c.type)).toEqual(['NamespaceDeletionDiscoveryFailure']);
    expect(state.failingGroupVersions).toEqual([
      {
        groupVersion: `${fixture.names.group}/v1beta1`,
        error: `stale GroupVersion discovery: ${fixture.names.group}/v1beta1`,
      },
    ]);
  });
});

test('parseRemainingResources: core resources end with a bare dot (recorded S02)', () => {
  const { fixture, conditions } = recordedConditions('s02-operator-gone-finalizer');
  expect(readNamespaceDeletionState(conditions).remainingResources).toEqual([
    { resource: 'services', group: '', count: 1 },
    { resource: 'widgets', group: fixture.names.group, count: 1 },
  ]);
  expect(parseRemainingResources('Some resources are remaining: pods. has 2 resource instances')).toEqual([
    { resource: 'pods', group: '', count: 2 },
  ]);
});

test.each([
  [
    'current builds',
    'Some content in the namespace has finalizers remaining: example.com/cleanup in 2 resource instances, kubernetes.io/pvc-protection in 1 resource instances',
  ],
  [
    'older builds',
    'Some finalizers are remaining: example.com/cleanup in 2 resource instances, kubernetes.io/pvc-protection in 1 resource instances',
  ],
])('parseRemainingFinalizers (%s)', (_name, message) => {
  expect(parseRemainingFinalizers(message)).toEqual([
    { finalizer: 'example.com/cleanup', count: 2 },
    { finalizer: 'kubernetes.io/pvc-protection', count: 1 },
  ]);
});

test('parseFailingWebhooks: the recorded ContentDeletionFailed message of S04', () => {
  const { fixture, conditions } = recordedConditions('s04-webhook-backend-missing');
  const state = readNamespaceDeletionState(conditions);
  expect(state.failing.map((c) => c.type)).toEqual(['NamespaceDeletionContentFailure']);
  expect(state.failingWebhooks).toEqual([fixture.names.webhook]);
  expect(
    parseFailingWebhooks('unexpected items still remain in namespace: p for gvr: /v1, Resource=pods'),
  ).toEqual([]);
});

test('a namespace without conditions has nothing failing', () => {
  expect(readNamespaceDeletionState(undefined)).toEqual({
    failing: [],
    failingGroupVersions: [],
    remainingResources: [],
    remainingFinalizers: [],
    failingWebhooks: [],
  });
});
