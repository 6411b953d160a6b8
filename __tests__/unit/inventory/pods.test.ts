import { fullPodQuotaNamespaces, podsToFetch } from '../../../src/inventory/pods.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';

const meta = (resource: string, namespace: string, name: string, deleting = false): ObjectMetadata => ({
  apiVersion: 'v1',
  kind: resource === 'pods' ? 'Pod' : 'PersistentVolumeClaim',
  resource,
  namespace,
  name,
  uid: `${namespace}/${name}`,
  ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
});

test('whole pods: a list per namespace with a deleting claim, a GET per other deleting pod, none otherwise', () => {
  expect(podsToFetch([meta('pods', 'a', 'p'), meta('persistentvolumeclaims', 'a', 'c')])).toEqual({
    namespaces: [],
    pods: [],
  });
  expect(
    podsToFetch([
      meta('persistentvolumeclaims', 'b', 'c', true),
      meta('pods', 'b', 'user', true),
      meta('pods', 'a', 'p1', true),
      meta('pods', 'a', 'p2'),
    ]),
  ).toEqual({ namespaces: ['b'], pods: [{ namespace: 'a', name: 'p1' }] });
});

test('whole pods: a list per namespace whose count/pods quota is full (used >= hard), none for a quota with room', () => {
  const quota = (namespace: string, hard: string, used: string) => ({
    metadata: { namespace },
    status: { hard: { 'count/pods': hard, pods: '100' }, used: { 'count/pods': used, pods: '0' } },
  });
  const quotas = [
    quota('full', '2', '2'),
    quota('room', '3', '2'),
    quota('over', '1', '4'),
    quota('odd', '1k', '5k'),
  ];
  expect(fullPodQuotaNamespaces(quotas)).toEqual(['full', 'over']);
  expect(podsToFetch([meta('pods', 'a', 'p1', true)], quotas)).toEqual({
    namespaces: ['full', 'over'],
    pods: [{ namespace: 'a', name: 'p1' }],
  });
  expect(podsToFetch([], [quota('room', '3', '2'), { status: { used: { pods: '9' } } }])).toEqual({
    namespaces: [],
    pods: [],
  });
});
