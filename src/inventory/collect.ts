import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { unavailableAPIServices } from './apiservices.js';
import { discover, type DiscoveryResult } from './discovery.js';
import { listAll, toObjectMetadata } from './list.js';
import { fetchPods, podsToFetch } from './pods.js';
import { readEtcd, type EtcdAccess, type EtcdData } from './etcd.js';
import { buildInventory, type Inventory } from './snapshot.js';
import {
  fullObjectResources,
  projectWholeObject,
  type CoverageGap,
  type FailedGroupVersion,
  type FullObjects,
  type ObjectMetadata,
  type ServedResource,
} from './types.js';

export interface CollectOptions {
  /** `limit` of one list page. */
  readonly pageSize: number;
  /** How many lists run at once. */
  readonly concurrency: number;
  /** Progress lines (one per phase, with counts and timings). */
  readonly log?: (line: string) => void;
  readonly now?: () => number;
  /** Also read etcd's custom-resource keys (etcd.ts); unset: etcd is not read. */
  readonly etcd?: EtcdAccess;
  /** Timeout of the etcd requests, in ms (default 30 s). */
  readonly etcdTimeoutMs?: number;
}

/**
 * Pure: picks one version per (group, resource) to list: the group's preferred version when it
 * serves the resource, else the first version that does; only resources with the `list` verb.
 * Sorted by group then resource, so runs are deterministic.
 */
export function resourcesToList(discovery: DiscoveryResult): ServedResource[] {
  const chosen = new Map<string, ServedResource>();
  for (const r of discovery.resources) {
    if (!r.verbs.includes('list')) continue;
    const key = `${r.group}/${r.resource}`;
    const current = chosen.get(key);
    const preferred = discovery.preferredVersions.get(r.group) ?? (r.group === '' ? 'v1' : undefined);
    if (!current || (r.version === preferred && current.version !== preferred)) chosen.set(key, r);
  }
  return [...chosen.values()].sort(
    (a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource),
  );
}

function label(r: { group: string; version: string; resource: string }): string {
  return r.group ? `${r.resource}.${r.group}/${r.version}` : `${r.resource}/${r.version}`;
}

/** RBAC rule that would grant listing a resource, for coverage hints. */
export function rbacHint(r: { group: string; resource: string }): string {
  return `apiGroups: ["${r.group}"], resources: ["${r.resource}"], verbs: ["list"]`;
}

function gapOf(r: ServedResource, error: unknown): CoverageGap {
  if (error instanceof KubernetesApiError && error.status === 403) {
    return {
      resource: label(r),
      reason: 'forbidden',
      message: error.apiMessage || 'forbidden',
      hint: rbacHint(r),
    };
  }
  const message =
    error instanceof KubernetesApiError
      ? `HTTP ${error.status}${error.reason ? ` ${error.reason}` : ''}: ${error.apiMessage}`
      : ((error as Error)?.message ?? String(error));
  return { resource: label(r), reason: 'failed', message };
}

/**
 * Reads the whole cluster into one snapshot: /version, discovery (failed group-versions
 * recorded), then every listable resource, paged and bounded in parallel, as metadata only
 * except the kinds in `fullObjectResources` (kept whole or as `projectWholeObject` trims them), and then the few Pods the rules need whole
 * (pods.ts: one GET per Pod with a deletionTimestamp, one namespaced list per namespace that
 * holds a deleting PersistentVolumeClaim). A list that is forbidden or fails becomes a
 * `coverage` entry; nothing is silently skipped.
 * @throws ClusterAccessError when the API server cannot be reached at all (unreachable, TLS).
 */
export async function collectInventory(api: ApiClient, options: CollectOptions): Promise<Inventory> {
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const takenAt = new Date(now()).toISOString();
  const requestsBefore = api.sentRequests();

  const started = now();
  const version = await api.request<{ gitVersion?: string }>({ path: '/version' });
  const discovery = await discover(api);
  const discoveryMs = now() - started;
  const failedGroupVersions: FailedGroupVersion[] = [...discovery.failed];
  log(
    `discovery (${discovery.aggregated ? 'aggregated' : 'legacy'}): ${discovery.resources.length} resources, ` +
      `${failedGroupVersions.length} failed group-versions, ${discoveryMs} ms`,
  );

  const targets = resourcesToList(discovery);
  const fullKeys = new Set(fullObjectResources.map((r) => `${r.group}/${r.resource}`));
  const full: Record<string, unknown[]> = Object.fromEntries([
    ...fullObjectResources.map((r) => [r.resource, []]),
    ['pods', []],
  ]);
  const objects: ObjectMetadata[] = [];
  const seen = new Set<string>();
  const coverage: CoverageGap[] = failedGroupVersions.map((f) => ({
    resource: f.groupVersion,
    reason: 'discovery' as const,
    message: f.message,
  }));
  const limit = pLimit(options.concurrency);
  let pages = 0;
  const listStarted = now();
  await Promise.all(
    targets.map((r) =>
      limit(async () => {
        const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
        const isFull = fullKeys.has(`${r.group}/${r.resource}`);
        try {
          const read = await listAll(api, r, {
            pageSize: options.pageSize,
            full: isFull,
            onItem: (item) => {
              const meta = toObjectMetadata(item.metadata ?? {}, apiVersion, r.kind, r.resource);
              // The same object can be served under two groups (events and events.k8s.io).
              if (meta.uid) {
                if (seen.has(meta.uid)) return;
                seen.add(meta.uid);
              }
              objects.push(meta);
              if (isFull)
                full[r.resource]!.push({ ...projectWholeObject(r.resource, item), apiVersion, kind: r.kind });
            },
          });
          // Add after the await: `pages += await …` would read `pages` before other lists finished.
          pages += read;
        } catch (error) {
          if ((error as Error)?.name === 'ClusterAccessError') throw error;
          coverage.push(gapOf(r, error));
        }
      }),
    ),
  );
  // Whole Pods only where a rule needs their spec (pods.ts): deleting pods, pods next to a deleting claim.
  const podPlan = podsToFetch(objects);
  if (podPlan.namespaces.length + podPlan.pods.length > 0) {
    const fetched = await fetchPods(api, podPlan, options);
    full.pods = fetched.pods;
    coverage.push(...fetched.coverage);
    log(
      `whole pods: ${fetched.pods.length} (${podPlan.pods.length} deleting pods, all pods of ` +
        `${podPlan.namespaces.length} namespaces with a deleting claim)`,
    );
  }
  let etcd: EtcdData | undefined;
  if (options.etcd) {
    try {
      etcd = await readEtcd(options.etcd, options.etcdTimeoutMs ?? 30_000);
      log(`etcd: ${etcd.keys} keys, ${etcd.prefixes.length} custom-resource prefixes`);
    } catch (error) {
      coverage.push({ resource: 'etcd', reason: 'failed', message: (error as Error).message });
    }
  }
  const listMs = now() - listStarted;
  const known = new Set(failedGroupVersions.map((f) => f.groupVersion));
  for (const f of unavailableAPIServices(full.apiservices ?? [])) {
    if (known.has(f.groupVersion)) continue;
    known.add(f.groupVersion);
    failedGroupVersions.push(f);
    coverage.push({ resource: f.groupVersion, reason: 'discovery', message: f.message });
  }
  log(
    `lists: ${targets.length} resources, ${objects.length} objects in ${pages} pages, ` +
      `${coverage.length} coverage gaps, ${listMs} ms`,
  );
  coverage.sort((a, b) => a.resource.localeCompare(b.resource));
  return buildInventory({
    takenAt,
    server: api.server,
    serverVersion: version?.gitVersion ?? 'unknown',
    resources: discovery.resources,
    failedGroupVersions,
    objects,
    full: full as unknown as FullObjects,
    coverage,
    ...(etcd ? { etcd } : {}),
    stats: {
      discoveryMs,
      listMs,
      resourcesListed: targets.length,
      pages,
      requests: api.sentRequests() - requestsBefore,
    },
  });
}
