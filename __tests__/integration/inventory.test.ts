/**
 * The inventory against the real API server: paging, custom resources, and a failing
 * APIService recorded in the snapshot instead of thrown.
 */
import type { ApiClient } from '../../src/cluster/api-client.js';
import { collectInventory } from '../../src/inventory/collect.js';
import { waitFor } from '../../src/util/wait.js';
import { createWidgetCrd, waitCrdEstablished, whenServed } from './support/widgets.js';
import {
  adminApi,
  createNamespace,
  deleteIfPresent,
  uniqueName,
  waitGone,
  createApiServiceWithoutBackend,
} from './support/cluster.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('pages through a resource with limit + continue and keeps every object once', async () => {
  const ns = uniqueName('inv-paging');
  await createNamespace(api, ns);
  try {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        api.request({
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/configmaps`,
          body: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `cm-${i}`, labels: { i: String(i) } },
            data: { big: 'x'.repeat(2000) },
          },
        }),
      ),
    );
    const inventory = await collectInventory(api, { pageSize: 10, concurrency: 4 });
    const mine = inventory.objects.filter((o) => o.namespace === ns && o.resource === 'configmaps');
    // 25 created + kube-root-ca.crt published by the root-ca-cert-publisher controller (may lag).
    const created = mine.filter((o) => o.name.startsWith('cm-'));
    expect(created.map((o) => o.name).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `cm-${i}`).sort());
    expect(new Set(mine.map((o) => o.uid)).size).toBe(mine.length);
    // Metadata only: labels are kept, data is not.
    expect(created[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', labels: expect.any(Object) });
    expect(created[0]).not.toHaveProperty('data');
    // The whole cluster has far more than 10 configmaps + other kinds, so many pages were read.
    const configmaps = inventory.objects.filter((o) => o.resource === 'configmaps').length;
    expect(inventory.stats.pages).toBeGreaterThanOrEqual(Math.ceil(configmaps / 10));
    // Every listed resource takes at least one page (concurrent lists must all be counted).
    expect(inventory.stats.pages).toBeGreaterThanOrEqual(
      inventory.stats.resourcesListed + Math.ceil(configmaps / 10) - 1,
    );
    expect(inventory.byNamespace.get(ns)?.length).toBeGreaterThanOrEqual(25);
    // Tests before this one on the same cluster delete their CRDs: one deleted between discovery
    // and its list is a true gap (HTTP 404) that kube-sweep must report; any other gap fails.
    const gaps = [];
    for (const gap of inventory.coverage) {
      const crd = gap.resource.split('/')[0]!;
      if (crd.includes('.') && / 404 /.test(` ${gap.message} `) && !(await servedCrd(crd))) continue;
      gaps.push(gap);
    }
    expect(gaps).toEqual([]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('an Event is listed once (events.k8s.io serves the core Events: only the core list is read); ComponentStatuses are not listed', async () => {
  const ns = uniqueName('inv-events');
  await createNamespace(api, ns);
  try {
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/events`,
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'seen-once' },
        involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'any' },
        reason: 'Test',
        message: 'listed once',
        type: 'Normal',
      },
    });
    const paths: string[] = [];
    const recording: ApiClient = {
      ...api,
      request: <T>(req: Parameters<ApiClient['request']>[0]) => {
        paths.push(req.path);
        return api.request<T>(req);
      },
      requestBytes: (req) => {
        paths.push(req.path);
        return api.requestBytes(req);
      },
    };
    const inventory = await collectInventory(recording, { pageSize: 500, concurrency: 4 });
    // The API server serves the same Event under both groups.
    const both = await api.request<{ items?: unknown[] }>({
      path: `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
    });
    expect(both.items).toHaveLength(1);
    expect(paths).toContain('/api/v1/events');
    expect(paths).not.toContain('/apis/events.k8s.io/v1/events');
    // ComponentStatuses are probes, not stored objects: never listed.
    expect(paths).not.toContain('/api/v1/componentstatuses');
    const events = inventory.objects.filter((o) => o.namespace === ns && o.name === 'seen-once');
    expect(events).toEqual([
      expect.objectContaining({ apiVersion: 'v1', kind: 'Event', resource: 'events' }),
    ]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('lists instances of a CRD created moments before', async () => {
  const group = `${uniqueName('inv')}.example.com`;
  const crd = `widgets.${group}`;
  const ns = uniqueName('inv-crd');
  await createNamespace(api, ns);
  await createWidgetCrd(api, group);
  try {
    await waitCrdEstablished(api, crd);
    for (const name of ['w1', 'w2', 'w3']) {
      await whenServed(`widget ${name} to be created`, () =>
        api.request({
          method: 'POST',
          path: `/apis/${group}/v1/namespaces/${ns}/widgets`,
          body: {
            apiVersion: `${group}/v1`,
            kind: 'Widget',
            metadata: { name, finalizers: name === 'w1' ? ['example.com/cleanup'] : [] },
          },
        }),
      );
    }
    const inventory = await collectInventory(api, { pageSize: 2, concurrency: 4 });
    expect(inventory.resources).toContainEqual(
      expect.objectContaining({
        group,
        version: 'v1',
        resource: 'widgets',
        kind: 'Widget',
        namespaced: true,
      }),
    );
    const widgets = inventory.objects.filter((o) => o.apiVersion === `${group}/v1`);
    expect(widgets.map((w) => [w.kind, w.namespace, w.name, w.finalizers ?? []])).toEqual([
      ['Widget', ns, 'w1', ['example.com/cleanup']],
      ['Widget', ns, 'w2', []],
      ['Widget', ns, 'w3', []],
    ]);
    expect(
      (inventory.full.customresourcedefinitions as { metadata: { name: string } }[]).map(
        (c) => c.metadata.name,
      ),
    ).toContain(crd);
    // Remove the finalizer so the namespace can go.
    await api.request({
      method: 'PATCH',
      path: `/apis/${group}/v1/namespaces/${ns}/widgets/w1`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
  } finally {
    await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a failing APIService is recorded in the snapshot, not thrown', async () => {
  const group = `${uniqueName('inv-agg')}.kube-sweep.test`;
  const name = `v1.${group}`;
  await createApiServiceWithoutBackend(api, { group, serviceName: 'nothing-here' });
  try {
    await waitFor(
      async () => {
        const s = await api.request<{ status?: { conditions?: { type: string; status: string }[] } }>({
          path: `/apis/apiregistration.k8s.io/v1/apiservices/${name}`,
        });
        const unavailable =
          s.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'False') ?? false;
        return { done: unavailable, value: unavailable };
      },
      { timeoutMs: 30_000, description: `APIService ${name} to be unavailable` },
    );
    const inventory = await collectInventory(api, { pageSize: 500, concurrency: 4 });
    const failed = inventory.failedGroupVersions.find((f) => f.groupVersion === `${group}/v1`);
    expect(failed).toBeDefined();
    expect(inventory.coverage).toContainEqual(
      expect.objectContaining({ resource: `${group}/v1`, reason: 'discovery' }),
    );
    // Everything else was still read.
    expect(inventory.objects.some((o) => o.resource === 'namespaces' && o.name === 'kube-system')).toBe(true);
  } finally {
    await deleteIfPresent(api, `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
    await waitGone(api, `/apis/apiregistration.k8s.io/v1/apiservices/${name}`);
  }
});

/** Whether the CRD `name` exists and is not being deleted. */
async function servedCrd(name: string): Promise<boolean> {
  try {
    const crd = (await api.request({
      method: 'GET',
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    })) as { metadata?: { deletionTimestamp?: string } };
    return !crd.metadata?.deletionTimestamp;
  } catch (error) {
    if ((error as { status?: number }).status === 404) return false;
    throw error;
  }
}
