/**
 * The streamed inventory (collect.ts `read: stream`, the look after a teardown) against the real
 * API server: one consistent watch list per resource reads the same objects as paged lists, and
 * a resource whose watch list cannot be had (no `watch` verb, or `watch` forbidden) is read as a
 * paged list instead, recorded with its reason, never as a coverage gap.
 */
import { createApiClient, type ApiClient } from '../../src/cluster/api-client.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import { collectInventory } from '../../src/inventory/collect.js';
import type { Inventory } from '../../src/inventory/snapshot.js';
import { adminApiForSuite, createNamespace, deleteIfPresent, uniqueName } from './support/cluster.js';
import { userKubeconfig, withClusterRole } from './support/identities.js';

const suiteApi = adminApiForSuite();

/** The ConfigMaps and the Namespace object of `ns` in a snapshot, as comparable lines. */
function mine(inventory: Inventory, ns: string): string[] {
  const configMaps = inventory.objects
    .filter((o) => o.namespace === ns && o.resource === 'configmaps')
    .map((o) => `${o.name} ${o.uid} ${JSON.stringify(o.labels ?? {})}`);
  const namespace = (inventory.full.namespaces as { metadata?: { name?: string; uid?: string } }[])
    .filter((n) => n.metadata?.name === ns)
    .map((n) => `namespace ${n.metadata?.uid}`);
  return [...configMaps, ...namespace].sort();
}

async function withConfigMaps<T>(api: ApiClient, fn: (ns: string) => Promise<T>): Promise<T> {
  const ns = uniqueName('inv-stream');
  await createNamespace(api, ns);
  try {
    for (let i = 0; i < 25; i++)
      await api.request({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, labels: { i: String(i) } },
        },
      });
    return await fn(ns);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}

test('one watch list per resource reads what paged lists read', async () => {
  expect.hasAssertions();
  const api = suiteApi();
  await withConfigMaps(api, async (ns) => {
    const listed = await collectInventory(api, { pageSize: 10, concurrency: 4 });
    const streamed = await collectInventory(api, { pageSize: 10, concurrency: 4, read: 'stream' });
    const ours = mine(streamed, ns);
    expect(ours.filter((l) => l.startsWith('cm-'))).toHaveLength(25);
    expect(ours).toContainEqual(expect.stringMatching(/^namespace /));
    expect(ours.filter((l) => l.startsWith('cm-') || l.startsWith('namespace'))).toEqual(
      mine(listed, ns).filter((l) => l.startsWith('cm-') || l.startsWith('namespace')),
    );
    // componentstatuses is served with get and list only: the one resource read as a paged list.
    expect(streamed.stats.streamFallbacks).toEqual([
      { resource: 'componentstatuses/v1', reason: 'no watch verb' },
    ]);
    expect(streamed.stats.streamed).toBe(streamed.stats.resourcesListed - 1);
    expect(streamed.coverage.filter((g) => g.reason !== 'discovery')).toEqual(
      listed.coverage.filter((g) => g.reason !== 'discovery'),
    );
    // A watch list is one request however many objects; the paged lists of 10 took more pages.
    expect(streamed.stats.pages).toBe(streamed.stats.resourcesListed);
    expect(listed.stats.pages).toBeGreaterThan(streamed.stats.pages);
    expect(listed.stats.streamed).toBeUndefined();
  });
});

test('a resource whose watch is forbidden is read as a paged list, with the reason, not as a gap', async () => {
  expect.hasAssertions();
  const api = suiteApi();
  const user = uniqueName('no-watch');
  await withConfigMaps(api, async (ns) => {
    const rules = [
      { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['watch'] },
    ];
    await withClusterRole(api, { name: user, user, rules }, async () => {
      const loaded = loadKubeconfig(await userKubeconfig(user), '', {});
      const limited = await createApiClient(loaded, { timeoutMs: 30_000 });
      try {
        const streamed = await collectInventory(limited, { pageSize: 10, concurrency: 4, read: 'stream' });
        expect(mine(streamed, ns).filter((l) => l.startsWith('cm-'))).toHaveLength(25);
        expect(streamed.coverage.filter((g) => g.reason !== 'discovery')).toEqual([]);
        const fallbacks = streamed.stats.streamFallbacks ?? [];
        // Only namespaces may be watched: every other resource fell back, configmaps because the watch was forbidden.
        expect(streamed.stats.streamed).toBe(1);
        expect(fallbacks).toHaveLength(streamed.stats.resourcesListed - 1);
        expect(fallbacks.find((f) => f.resource === 'configmaps/v1')?.reason).toMatch(/forbidden/);
      } finally {
        await limited.close();
      }
    });
  });
});
