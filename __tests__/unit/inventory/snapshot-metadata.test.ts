/**
 * The inventory's per-object work, rewritten for speed (issue 26), keeps its results: what
 * toObjectMetadata keeps of an item's metadata (fields, their order, the dropped annotation),
 * and the order buildInventory sorts objects in (field by field with localeCompare, ties in
 * list order).
 */
import { toObjectMetadata, type StringPool } from '../../../src/inventory/list.js';
import { buildInventory, type InventoryData } from '../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

test('toObjectMetadata keeps the fields rules read, in a fixed order, and drops the last-applied annotation', () => {
  const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-rs', controller: true };
  const meta = {
    annotations: { b: '2', [lastApplied]: '{"big":"json"}', a: '1', '10': 'numeric key' },
    labels: { 'app.kubernetes.io/name': 'web', team: 'x' },
    ownerReferences: [owner],
    finalizers: ['example.com/hold'],
    deletionTimestamp: '2026-12-01T00:00:01Z',
    creationTimestamp: '2026-12-01T00:00:00Z',
    uid: 'u-1',
    namespace: 'ns',
    name: 'cm',
  };
  for (const pool of [undefined, new Map<string, string>()]) {
    const kept = toObjectMetadata(meta, 'v1', 'ConfigMap', 'configmaps', pool);
    expect(JSON.stringify(kept)).toBe(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        resource: 'configmaps',
        name: 'cm',
        uid: 'u-1',
        namespace: 'ns',
        creationTimestamp: '2026-12-01T00:00:00Z',
        deletionTimestamp: '2026-12-01T00:00:01Z',
        finalizers: ['example.com/hold'],
        ownerReferences: [owner],
        labels: { 'app.kubernetes.io/name': 'web', team: 'x' },
        annotations: { '10': 'numeric key', b: '2', a: '1' },
      }),
    );
  }
  // The item's own maps are not changed.
  expect(meta.annotations[lastApplied]).toBe('{"big":"json"}');
});

test('toObjectMetadata leaves out absent and empty fields, and an annotation map holding only last-applied', () => {
  const kept = toObjectMetadata(
    {
      name: 'n',
      namespace: '',
      finalizers: [],
      ownerReferences: [],
      labels: {},
      annotations: { [lastApplied]: '{}' },
    },
    'v1',
    'Secret',
    'secrets',
    new Map(),
  );
  expect(Object.keys(kept)).toEqual(['apiVersion', 'kind', 'resource', 'name', 'uid']);
  expect(kept).toEqual({ apiVersion: 'v1', kind: 'Secret', resource: 'secrets', name: 'n', uid: '' });
});

test('toObjectMetadata keeps a __proto__ key as an own property and shares repeated values through the pool', () => {
  const hostile = JSON.parse('{"name":"n","uid":"u","labels":{"__proto__":"x","a":"b"}}') as {
    name: string;
    labels: Record<string, string>;
  };
  const kept = toObjectMetadata(hostile, 'v1', 'ConfigMap', 'configmaps', new Map());
  expect(Object.keys(kept.labels!)).toEqual(['__proto__', 'a']);
  expect(Object.getPrototypeOf(kept.labels)).toBe(Object.prototype);
  const pool: StringPool = new Map();
  toObjectMetadata({ name: 'a', namespace: 'team-a', labels: { tier: 'web' } }, 'v1', 'Pod', 'pods', pool);
  toObjectMetadata({ name: 'b', namespace: 'team-a', labels: { tier: 'web' } }, 'v1', 'Pod', 'pods', pool);
  expect([...pool.keys()].sort()).toEqual(['team-a', 'web']);
  // Long values (descriptions, blobs) are not pooled.
  toObjectMetadata({ name: 'c', annotations: { d: 'x'.repeat(65) } }, 'v1', 'Pod', 'pods', pool);
  expect(pool.size).toBe(2);
});

/** The order buildInventory promises, written the plain way (the comparator it used before issue 26). */
function compareFieldByField(a: ObjectMetadata, b: ObjectMetadata): number {
  return (
    a.resource.localeCompare(b.resource) ||
    a.apiVersion.localeCompare(b.apiVersion) ||
    (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
    a.name.localeCompare(b.name)
  );
}

test('buildInventory sorts like localeCompare field by field, with case, accents and cluster-scoped objects, ties in list order', () => {
  const resources = ['configmaps', 'Configmaps', 'things', 'thïngs', 'events', 'a-b', 'a_b'];
  const namespaces = [undefined, '', 'ns-a', 'NS-a', 'ns-b', 'ñs', 'ns-10', 'ns-9'];
  const names = ['x', 'X', 'x-1', 'x-10', 'x-2', 'é', 'e', 'E', 'x_1'];
  const objects: ObjectMetadata[] = [];
  let n = 0;
  // A fixed shuffle (no Math.random: the test must be repeatable).
  for (let i = 0; i < 1500; i++) {
    const k = (i * 7919) % 1499;
    const namespace = namespaces[k % namespaces.length];
    objects.push({
      apiVersion: ['v1', 'apps/v1', 'events.k8s.io/v1'][k % 3]!,
      kind: 'K',
      resource: resources[(k >> 3) % resources.length]!,
      ...(namespace === undefined ? {} : { namespace }),
      name: names[(k >> 1) % names.length]!,
      uid: `u-${n++}`,
    });
  }
  const data = { objects, full: { namespaces: [] } } as unknown as InventoryData;
  const sorted = buildInventory(data).objects;
  const expected = [...objects].sort(compareFieldByField);
  expect(sorted.map((o) => o.uid)).toEqual(expected.map((o) => o.uid));
  // Duplicates of all four fields stay in list order.
  expect(sorted.length).toBe(objects.length);
});
