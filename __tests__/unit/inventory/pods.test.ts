import { podsToFetch } from '../../../src/inventory/pods.js';
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
