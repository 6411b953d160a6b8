/**
 * The inventory's metadata lists as protobuf (issue 26) against the real API server: the same
 * objects listed as protobuf and as JSON give the same snapshot (ConfigMaps with every kept field
 * set, one being deleted, and a custom resource); a server answering JSON to the protobuf request
 * is read as JSON; a page that cannot be decoded is a failed list (a coverage gap), not a crash.
 * A `__proto__` label or annotation key cannot be set here: the API server refuses it (not a
 * qualified name), so that case is in the unit tests (__tests__/unit/inventory/protobuf-metadata.test.ts).
 */
import type { ApiClient } from '../../src/cluster/api-client.js';
import { collectInventory } from '../../src/inventory/collect.js';
import { metadataListAccept } from '../../src/inventory/list.js';
import { listMetadata, type MetadataFormat } from '../../src/inventory/metadata-list.js';
import type { GroupVersionResource, ObjectMetadata } from '../../src/inventory/types.js';
import { createWidgetCrd, waitCrdEstablished, whenServed } from './support/widgets.js';
import { adminApi, createNamespace, deleteIfPresent, uniqueName } from './support/cluster.js';

let client: ApiClient;
const api = () => client;
const ns = uniqueName('inv-proto');
const group = `${uniqueName('proto')}.example.com`;
const crd = `widgets.${group}`;
const configMaps: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };
const widgets: GroupVersionResource = { group, version: 'v1', resource: 'widgets' };
const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

const post = (path: string, body: unknown) =>
  api().request<{ metadata: { uid: string } }>({ method: 'POST', path, body });
const dropFinalizers = (path: string) =>
  api().request({
    method: 'PATCH',
    path,
    contentType: 'application/merge-patch+json',
    body: { metadata: { finalizers: null } },
  });

beforeAll(async () => {
  client = await adminApi();
  await createNamespace(api(), ns, { 'kube-sweep.io/test': 'protobuf' });
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const owner = await post(cms, { metadata: { name: 'owner' } });
  await post(cms, {
    metadata: {
      name: 'every-field',
      labels: { 'app.kubernetes.io/name': 'web', tier: 'front', empty: '' },
      annotations: {
        [lastApplied]: '{"kind":"ConfigMap"}',
        description: 'ünïcødé ✓ 日本語 and a long text '.repeat(4),
        '10': 'numeric key',
        'example.com/empty': '',
      },
      finalizers: ['example.com/hold', 'example.com/second'],
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'owner',
          uid: owner.metadata.uid,
          controller: true,
          blockOwnerDeletion: false,
        },
        {
          apiVersion: 'example.com/v1',
          kind: 'Thing',
          name: 'elsewhere',
          uid: 'b6a0a9a0-0000-4000-8000-000000000001',
        },
      ],
    },
    data: { big: 'x'.repeat(5000) },
  });
  await post(cms, { metadata: { name: 'deleting', finalizers: ['example.com/hold'] } });
  await api().request({ method: 'DELETE', path: `${cms}/deleting` });
  for (let i = 0; i < 5; i++) await post(cms, { metadata: { name: `plain-${i}` } });

  await createWidgetCrd(api(), group);
  await waitCrdEstablished(api(), crd);
  for (const name of ['w1', 'w2', 'w3'])
    await whenServed(`widget ${name} to be created`, () =>
      post(`/apis/${group}/v1/namespaces/${ns}/widgets`, {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: {
          name,
          labels: { widget: name },
          annotations: { note: `the ${name}` },
          finalizers: name === 'w1' ? ['example.com/cleanup'] : [],
          ownerReferences:
            name === 'w2'
              ? [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }]
              : [],
        },
        spec: { size: name.length },
      }),
    );
  await api().request({ method: 'DELETE', path: `/apis/${group}/v1/namespaces/${ns}/widgets/w1` });
});

afterAll(async () => {
  await dropFinalizers(`/api/v1/namespaces/${ns}/configmaps/every-field`).catch(() => {});
  await dropFinalizers(`/api/v1/namespaces/${ns}/configmaps/deleting`).catch(() => {});
  await dropFinalizers(`/apis/${group}/v1/namespaces/${ns}/widgets/w1`).catch(() => {});
  await deleteIfPresent(api(), `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`);
  await deleteIfPresent(api(), `/api/v1/namespaces/${ns}`);
  await client.close();
});

/** One resource's objects in the test namespace, listed `format`, 2 per page. */
async function listed(client: ApiClient, gvr: GroupVersionResource, kind: string, format: MetadataFormat) {
  const objects: ObjectMetadata[] = [];
  const apiVersion = gvr.group ? `${gvr.group}/${gvr.version}` : gvr.version;
  const result = await listMetadata(client, gvr, {
    pageSize: 2,
    namespace: ns,
    keep: { apiVersion, kind, resource: gvr.resource, pool: new Map() },
    format,
    onObject: (meta) => objects.push(meta),
  });
  return { objects, ...result };
}

test('ConfigMaps and a custom resource listed as protobuf and as JSON give the same snapshot', async () => {
  for (const [gvr, kind] of [
    [configMaps, 'ConfigMap'],
    [widgets, 'Widget'],
  ] as const) {
    const json = await listed(api(), gvr, kind, 'json');
    const proto = await listed(api(), gvr, kind, 'protobuf');
    // Every page came as protobuf (continue tokens included), none when JSON was asked for.
    expect(proto.protobufPages).toBe(proto.pages);
    expect(proto.pages).toBeGreaterThan(1);
    expect(json.protobufPages).toBe(0);
    expect(proto.objects).toEqual(json.objects);
    expect(JSON.stringify(proto.objects)).toBe(JSON.stringify(json.objects));
  }
  // The fields were there to compare (the lists are not both empty or both missing a field).
  const { objects } = await listed(api(), configMaps, 'ConfigMap', 'protobuf');
  const every = objects.find((o) => o.name === 'every-field')!;
  expect(every.labels).toEqual({ 'app.kubernetes.io/name': 'web', tier: 'front', empty: '' });
  expect(Object.keys(every.annotations!).sort()).toEqual(['10', 'description', 'example.com/empty']);
  expect(every.annotations!.description).toContain('ünïcødé ✓ 日本語');
  expect(every.finalizers).toEqual(['example.com/hold', 'example.com/second']);
  expect(every.ownerReferences).toEqual([
    expect.objectContaining({
      kind: 'ConfigMap',
      name: 'owner',
      controller: true,
      blockOwnerDeletion: false,
    }),
    {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      name: 'elsewhere',
      uid: 'b6a0a9a0-0000-4000-8000-000000000001',
    },
  ]);
  expect(every.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(objects.find((o) => o.name === 'deleting')!.deletionTimestamp).toMatch(
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  );
  const { objects: ws } = await listed(api(), widgets, 'Widget', 'protobuf');
  expect(ws.map((w) => [w.name, w.labels, w.finalizers, w.deletionTimestamp !== undefined])).toEqual([
    ['w1', { widget: 'w1' }, ['example.com/cleanup'], true],
    ['w2', { widget: 'w2' }, undefined, false],
    ['w3', { widget: 'w3' }, undefined, false],
  ]);
  expect(ws[1]!.ownerReferences).toEqual([expect.objectContaining({ kind: 'ConfigMap', name: 'owner' })]);
});

test('collectInventory gives the same objects with protobuf lists (the default) as with JSON lists', async () => {
  const lines: string[] = [];
  const proto = await collectInventory(api(), { pageSize: 3, concurrency: 4, log: (l) => lines.push(l) });
  const json = await collectInventory(api(), { pageSize: 3, concurrency: 4, metadataFormat: 'json' });
  // What the test made (kube-root-ca.crt and the default ServiceAccount may come between the two looks).
  const mine = (objects: readonly ObjectMetadata[]) =>
    objects.filter(
      (o) =>
        o.namespace === ns &&
        (o.resource === 'widgets' || /^(owner|every-field|deleting|plain-)/.test(o.name)),
    );
  expect(mine(proto.objects).length).toBe(11);
  expect(mine(proto.objects)).toEqual(mine(json.objects));
  expect(JSON.stringify(mine(proto.objects))).toBe(JSON.stringify(mine(json.objects)));
  // Cluster-scoped objects that do not change between the two looks: the CRD's and the namespace's.
  const named = (objects: readonly ObjectMetadata[], name: string) => objects.filter((o) => o.name === name);
  expect(named(proto.objects, ns)).toEqual(named(json.objects, ns));
  expect(named(proto.objects, crd)).toEqual(named(json.objects, crd));
  const listsLine = lines.find((l) => l.startsWith('lists: '))!;
  const [, pages, protobufPages] = /in (\d+) pages \((\d+) protobuf\)/.exec(listsLine)!;
  expect(Number(protobufPages)).toBeGreaterThan(0);
  expect(Number(protobufPages)).toBeLessThanOrEqual(Number(pages));
});

/** The admin client with `requestBytes` changed by `change` (everything else the real server's). */
function withBytes(client: ApiClient, change: ApiClient['requestBytes']): ApiClient {
  return { ...client, requestBytes: change, request: (req) => client.request(req) };
}

test('a server that answers the protobuf request with JSON is read as JSON', async () => {
  // As an aggregated API serving JSON only would: the request goes out asking JSON.
  let asked = '';
  const jsonOnly = withBytes(api(), (req) => {
    asked = req.accept ?? '';
    return api().requestBytes({ ...req, accept: metadataListAccept });
  });
  const viaJson = await listed(jsonOnly, widgets, 'Widget', 'protobuf');
  expect(asked).toMatch(
    /^application\/vnd\.kubernetes\.protobuf;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1,/,
  );
  expect(viaJson.protobufPages).toBe(0);
  expect(viaJson.objects).toEqual((await listed(api(), widgets, 'Widget', 'protobuf')).objects);
});

test('a protobuf page that cannot be decoded is a failed list in the coverage, the other lists are kept', async () => {
  const truncated = withBytes(api(), async (req) => {
    const answer = await api().requestBytes(req);
    return req.path.endsWith(`/apis/${group}/v1/widgets`)
      ? { ...answer, body: answer.body.subarray(0, answer.body.length - 7) }
      : answer;
  });
  const inventory = await collectInventory(truncated, { pageSize: 500, concurrency: 4 });
  expect(inventory.coverage).toContainEqual({
    resource: `widgets.${group}/v1`,
    reason: 'failed',
    message: expect.stringMatching(
      new RegExp(
        `^the protobuf page of /apis/${group}/v1/widgets \\(\\d+ bytes\\) cannot be read: .*(index out of range|runs past the end)`,
      ),
    ),
  });
  expect(inventory.objects.filter((o) => o.apiVersion === `${group}/v1`)).toEqual([]);
  expect(
    inventory.objects.filter((o) => o.namespace === ns && o.resource === 'configmaps').length,
  ).toBeGreaterThanOrEqual(7);
});
