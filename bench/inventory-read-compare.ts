/**
 * Paged lists against watch lists (issue 26): reads every listable resource of a cluster (the
 * same discovery and one-version-per-resource choice as collect.ts) twice per run, interleaved,
 * 8 resources at a time, as metadata: (1) paged lists, as the inventory reads them (list.ts
 * `listAll`, limit 500 + continue); (2) consistent watch lists (KEP-3157: `watch=true`,
 * `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan`, read up to the bookmark
 * annotated `k8s.io/initial-events-end`, then closed), one request per resource. Both parse
 * every item (JSON.parse of each page or of each event line) and count it. Prints each run's
 * wall time, items and requests, then the medians and their ratio. It prints figures; it is
 * not a test. The watch-list reader lives here only: kube-sweep reads with paged lists.
 *
 *   node --experimental-transform-types --disable-warning=ExperimentalWarning --import ./bench/ts-hooks.mjs \
 *     bench/inventory-read-compare.ts --kubeconfig <path> [--runs 3]
 */
import pLimit from 'p-limit';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createApiClient, type ApiClient, type WatchEvent } from '../src/cluster/api-client.js';
import { loadKubeconfig } from '../src/cluster/kubeconfig.js';
import { resourcesToList } from '../src/inventory/collect.js';
import { discover } from '../src/inventory/discovery.js';
import { collectionPath, listAll } from '../src/inventory/list.js';
import type { ServedResource } from '../src/inventory/types.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: process.env.KUBECONFIG ?? '' },
    runs: { type: 'string', default: '3' },
  },
});

const isEnd = (e: WatchEvent) =>
  e.type === 'BOOKMARK' &&
  (e.object.metadata?.annotations as Record<string, string> | undefined)?.['k8s.io/initial-events-end'] ===
    'true';

/** One resource as a consistent watch list; the number of objects, or throws when it ends early. */
async function watchList(api: ApiClient, r: ServedResource): Promise<number> {
  let items = 0;
  let ended = false;
  await api.watch(
    {
      path: collectionPath(r),
      resourceVersion: '',
      query: { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' },
      timeoutSeconds: 120,
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;q=0.9',
    },
    (e) => {
      if (e.type === 'ADDED') items++;
      ended = isEnd(e);
      return ended;
    },
  );
  if (!ended) throw new Error(`watch list of ${collectionPath(r)} ended before its end bookmark`);
  return items;
}

async function readAll(api: ApiClient, targets: ServedResource[], how: 'list' | 'watch') {
  const limit = pLimit(8);
  const before = api.sentRequests();
  const started = performance.now();
  const counts = await Promise.all(
    targets.map((r) =>
      limit(async () => {
        if (how === 'watch' && r.verbs.includes('watch')) return watchList(api, r);
        let n = 0;
        await listAll(api, r, { pageSize: 500, full: false, onItem: () => n++ });
        return n;
      }),
    ),
  );
  return {
    ms: Math.round(performance.now() - started),
    items: counts.reduce((a, b) => a + b, 0),
    requests: api.sentRequests() - before,
  };
}

const api = await createApiClient(loadKubeconfig(values.kubeconfig, '', process.env), { timeoutMs: 30_000 });
const targets = resourcesToList(await discover(api));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const times = { list: [] as number[], watch: [] as number[] };
for (let run = 0; run <= Number(values.runs); run++) {
  for (const how of run % 2 ? (['watch', 'list'] as const) : (['list', 'watch'] as const)) {
    const r = await readAll(api, targets, how);
    // Run 0 warms the server's caches and this process's code: not counted.
    if (run > 0) times[how].push(r.ms);
    console.log(
      `${run === 0 ? 'warm-up' : `run ${run}`} ${how === 'list' ? 'paged lists' : 'watch lists'}: ${r.ms} ms, ` +
        `${r.items} objects, ${r.requests} requests, load ${loadavg()[0]!.toFixed(1)}`,
    );
  }
}
const [list, watch] = [median(times.list), median(times.watch)];
console.log(
  `medians: paged lists ${list} ms, watch lists ${watch} ms, watch / paged ${(watch / list).toFixed(2)}`,
);
await api.close();
