import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { wasCutAtDeadline } from '../util/retry.js';
import { unavailableAPIServices } from './apiservices.js';
import { discover, type DiscoveryResult } from './discovery.js';
import { listAll, toObjectMetadata, type StringPool } from './list.js';
import { listMetadata, type MetadataFormat } from './metadata-list.js';
import { fetchPods, podsToFetch } from './pods.js';
import { readReleaseRecords } from './helm-records.js';
import { readHeldBodies } from './held-objects.js';
import { readEtcd, type EtcdAccess, type EtcdData } from './etcd.js';
import { buildInventory, type Inventory } from './snapshot.js';
import {
  coverageLabel,
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
  /**
   * How the metadata lists ask for their pages (metadata-list.ts): 'protobuf' (the default:
   * protobuf preferred, JSON read when the server answers JSON) or 'json' (JSON only; the bench's
   * comparison and the tests that check both give the same snapshot).
   */
  readonly metadataFormat?: MetadataFormat;
}

/**
 * Resources that another group serves from the same storage, as `group/resource` → the
 * `group/resource` listed instead: events.k8s.io's Events are the core Events
 * (k8s.io/kubernetes pkg/registry/events/rest/storage_events.go builds them with the core
 * event store, pkg/registry/core/event/storage). Listing both read every Event twice.
 */
export const sameStorageAs: ReadonlyMap<string, string> = new Map([['events.k8s.io/events', '/events']]);

/** `sameStorageAs` by kind: `group/Kind` of an alias → the group its objects are listed under. */
const listedGroupByKind: ReadonlyMap<string, string> = new Map([['events.k8s.io/Event', '']]);

/**
 * Pure: the API group under which the snapshot holds objects of `group`'s `kind`: the group itself,
 * or for a group that serves another's storage (`sameStorageAs`), that other group
 * (events.k8s.io Event → core). A lookup of a manifest's object in the snapshot must use it, or
 * an events.k8s.io Event is never found (and never judged) although it exists.
 */
export function listedGroupOf(group: string, kind: string): string {
  return listedGroupByKind.get(`${group}/${kind}`) ?? group;
}

/**
 * Resources (`group/resource`) whose list reads nothing stored: a ComponentStatus list makes the
 * API server probe etcd, the scheduler and the controller manager on the spot and answer with
 * objects that have no UID and cannot be deleted (k8s.io/kubernetes
 * pkg/registry/core/componentstatus/rest.go `List`; deprecated since 1.19). Nothing there can be
 * a leftover, and a probe that times out would hold up the whole inventory.
 */
export const notStored: ReadonlySet<string> = new Set(['/componentstatuses']);

/**
 * Pure: picks one version per (group, resource) to list: the group's preferred version when it
 * serves the resource, else the first version that does; only resources with the `list` verb,
 * never one of `notStored`, and one of `sameStorageAs` only when what it aliases is not listed.
 * Sorted by group then resource, so runs are deterministic.
 */
export function resourcesToList(discovery: DiscoveryResult): ServedResource[] {
  const chosen = new Map<string, ServedResource>();
  for (const r of discovery.resources) {
    const key = `${r.group}/${r.resource}`;
    if (!r.verbs.includes('list') || notStored.has(key)) continue;
    const current = chosen.get(key);
    const preferred = discovery.preferredVersions.get(r.group) ?? (r.group === '' ? 'v1' : undefined);
    if (!current || (r.version === preferred && current.version !== preferred)) chosen.set(key, r);
  }
  for (const [alias, original] of sameStorageAs) if (chosen.has(original)) chosen.delete(alias);
  return [...chosen.values()].sort(
    (a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource),
  );
}

/** RBAC rule that would grant listing a resource, for coverage hints. */
export function rbacHint(r: { group: string; resource: string }): string {
  return `apiGroups: ["${r.group}"], resources: ["${r.resource}"], verbs: ["list"]`;
}

function gapOf(r: ServedResource, error: unknown): CoverageGap {
  if (error instanceof KubernetesApiError && error.status === 403) {
    return {
      resource: coverageLabel(r),
      reason: 'forbidden',
      message: error.apiMessage || 'forbidden',
      hint: rbacHint(r),
    };
  }
  const message =
    (error instanceof KubernetesApiError
      ? `HTTP ${error.status}${error.reason ? ` ${error.reason}` : ''}: ${error.apiMessage}`
      : ((error as Error)?.message ?? String(error))) +
    (wasCutAtDeadline(error) ? ' (not tried again: the overall timeout had run out)' : '');
  return { resource: coverageLabel(r), reason: 'failed', message };
}

/** What the lists of every target resource gathered (see `listResources`). */
interface Listed {
  /** Every object's metadata, once per UID. */
  readonly objects: ObjectMetadata[];
  /** Whole objects of the `fullObjectResources` kinds by resource name, and `pods` (empty here). */
  readonly full: Record<string, unknown[]>;
  /** One gap per list that was forbidden or failed. */
  readonly gaps: CoverageGap[];
  /** Pages read over all lists. */
  readonly pages: number;
  /** How many of them the server sent as protobuf. */
  readonly protobufPages: number;
  /**
   * Time spent keeping the items of the pages (decoding protobuf pages, toObjectMetadata,
   * de-duplication, whole objects), in ms.
   */
  readonly itemsMs: number;
}

/**
 * Lists every target, `options.concurrency` at a time and `options.pageSize` per page, as
 * metadata (metadata-list.ts: protobuf unless `options.metadataFormat` is 'json'; kept once per
 * UID: events are served under two groups), and whole (JSON, trimmed by
 * `projectWholeObject`) for the kinds in `fullObjectResources`. A list that is forbidden or
 * fails becomes a gap.
 * @throws ClusterAccessError when the API server cannot be reached at all.
 */
async function listResources(
  api: ApiClient,
  targets: readonly ServedResource[],
  options: CollectOptions,
): Promise<Listed> {
  const fullKeys = new Set(fullObjectResources.map((r) => `${r.group}/${r.resource}`));
  const full: Record<string, unknown[]> = Object.fromEntries([
    ...fullObjectResources.map((r) => [r.resource, []]),
    ['pods', []],
  ]);
  const objects: ObjectMetadata[] = [];
  const seen = new Set<string>();
  const pool: StringPool = new Map();
  let itemsMs = 0;
  const gaps: CoverageGap[] = [];
  const limit = pLimit(options.concurrency);
  let pages = 0;
  let protobufPages = 0;
  // One object is kept once per UID: a group serving another's storage that `sameStorageAs` does
  // not name yet would otherwise put it in twice.
  const isNew = (meta: ObjectMetadata): boolean => {
    if (meta.uid && seen.has(meta.uid)) return false;
    if (meta.uid) seen.add(meta.uid);
    objects.push(meta);
    return true;
  };
  await Promise.all(
    targets.map((r) =>
      limit(async () => {
        const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
        try {
          if (!fullKeys.has(`${r.group}/${r.resource}`)) {
            const read = await listMetadata(api, r, {
              pageSize: options.pageSize,
              keep: { apiVersion, kind: r.kind, resource: r.resource, pool },
              ...(options.metadataFormat ? { format: options.metadataFormat } : {}),
              onObject: (meta) => {
                const started = performance.now();
                isNew(meta);
                itemsMs += performance.now() - started;
              },
            });
            // Add after the await: `pages += await …` would read `pages` before other lists finished.
            pages += read.pages;
            protobufPages += read.protobufPages;
            itemsMs += read.keepMs;
            return;
          }
          const read = await listAll(api, r, {
            pageSize: options.pageSize,
            full: true,
            onItem: (item) => {
              const started = performance.now();
              const meta = toObjectMetadata(item.metadata ?? {}, apiVersion, r.kind, r.resource, pool);
              if (isNew(meta))
                full[r.resource]!.push({ ...projectWholeObject(r.resource, item), apiVersion, kind: r.kind });
              itemsMs += performance.now() - started;
            },
          });
          pages += read;
        } catch (error) {
          if ((error as Error)?.name === 'ClusterAccessError') throw error;
          gaps.push(gapOf(r, error));
        }
      }),
    ),
  );
  return { objects, full, gaps, pages, protobufPages, itemsMs };
}

/**
 * Whole Pods only where a rule needs their spec or status (pods.ts): deleting pods, pods next to
 * a deleting claim, pods of a namespace whose `count/pods` quota is full (`quotas`: the whole
 * ResourceQuotas). Undefined when no Pod is needed (no request is sent).
 */
async function fetchNeededPods(
  api: ApiClient,
  objects: readonly ObjectMetadata[],
  quotas: readonly unknown[],
  options: CollectOptions,
  log: (line: string) => void,
): Promise<{ pods: unknown[]; coverage: CoverageGap[] } | undefined> {
  const podPlan = podsToFetch(objects, quotas);
  if (podPlan.namespaces.length + podPlan.pods.length === 0) return undefined;
  const fetched = await fetchPods(api, podPlan, options);
  log(
    `whole pods: ${fetched.pods.length} (${podPlan.pods.length} deleting pods, all pods of ` +
      `${podPlan.namespaces.length} namespaces with a deleting claim or a full count/pods quota)`,
  );
  return fetched;
}

/**
 * Reads etcd's custom-resource keys when `options.etcd` is set (etcd.ts). A failure is a
 * coverage gap on `etcd`, not an error; unset, etcd is not read and both are undefined.
 */
async function readEtcdIfAsked(
  options: CollectOptions,
  log: (line: string) => void,
): Promise<{ etcd?: EtcdData; gap?: CoverageGap }> {
  if (!options.etcd) return {};
  try {
    const etcd = await readEtcd(options.etcd, options.etcdTimeoutMs ?? 30_000);
    log(`etcd: ${etcd.keys} keys, ${etcd.prefixes.length} custom-resource prefixes`);
    return { etcd };
  } catch (error) {
    return { gap: { resource: 'etcd', reason: 'failed', message: (error as Error).message } };
  }
}

/**
 * Pure: the group-versions of unavailable APIServices (apiservices.ts) that discovery did not
 * already record as failed, each once, in the APIServices' order.
 */
function newlyUnavailableGroupVersions(
  apiServices: readonly unknown[],
  failed: readonly FailedGroupVersion[],
): FailedGroupVersion[] {
  const known = new Set(failed.map((f) => f.groupVersion));
  const out: FailedGroupVersion[] = [];
  for (const f of unavailableAPIServices(apiServices)) {
    if (known.has(f.groupVersion)) continue;
    known.add(f.groupVersion);
    out.push(f);
  }
  return out;
}

/** Pure: the coverage gap of a failed group-version (reason `discovery`). */
function discoveryGap(f: FailedGroupVersion): CoverageGap {
  return { resource: f.groupVersion, reason: 'discovery', message: f.message };
}

/**
 * Reads the whole cluster into one snapshot: /version, discovery (failed group-versions
 * recorded), then every listable resource, paged and bounded in parallel, as metadata only
 * (PartialObjectMetadataList pages, protobuf where the server serves it) except the kinds in `fullObjectResources` (kept whole or as `projectWholeObject` trims them), and then the few Pods the rules need whole
 * (pods.ts: one GET per Pod with a deletionTimestamp, one namespaced list per namespace that
 * holds a deleting PersistentVolumeClaim or a ResourceQuota at its `count/pods` limit), and the bodies of the Helm release records that no
 * listed object's release annotations account for (helm-records.ts), and the status of the objects
 * held in deletion by finalizers that the lists keep as metadata (held-objects.ts). A list that is forbidden or fails becomes a
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
  log(
    `discovery (${discovery.aggregated ? 'aggregated' : 'legacy'}): ${discovery.resources.length} resources, ` +
      `${discovery.failed.length} failed group-versions, ${discoveryMs} ms`,
  );

  const targets = resourcesToList(discovery);
  const listStarted = now();
  const { objects, full, gaps, pages, protobufPages, itemsMs } = await listResources(api, targets, options);
  const coverage: CoverageGap[] = [...discovery.failed.map(discoveryGap), ...gaps];
  const pods = await fetchNeededPods(api, objects, full.resourcequotas ?? [], options, log);
  if (pods) {
    full.pods = pods.pods;
    coverage.push(...pods.coverage);
  }
  const helm = await readReleaseRecords(api, objects, options.concurrency);
  if (helm.records.length + helm.coverage.length + helm.undecodable.length)
    log(
      `helm release records read whole: ${helm.records.length} (${helm.coverage.length} failed, ` +
        `${helm.undecodable.length} not valid)`,
    );
  coverage.push(...helm.coverage);
  const held = await readHeldBodies(api, objects, options.concurrency);
  coverage.push(...held.coverage);
  const { etcd, gap: etcdGap } = await readEtcdIfAsked(options, log);
  if (etcdGap) coverage.push(etcdGap);
  const listMs = now() - listStarted;
  const unavailable = newlyUnavailableGroupVersions(full.apiservices ?? [], discovery.failed);
  const failedGroupVersions: FailedGroupVersion[] = [...discovery.failed, ...unavailable];
  coverage.push(...unavailable.map(discoveryGap));
  log(
    `lists: ${targets.length} resources, ${objects.length} objects in ${pages} pages (${protobufPages} protobuf), ` +
      `${coverage.length} coverage gaps, ${listMs} ms (${Math.round(itemsMs)} ms of it keeping the items)`,
  );
  coverage.sort((a, b) => a.resource.localeCompare(b.resource));
  const indexStarted = performance.now();
  const inventory = buildInventory({
    takenAt,
    server: api.server,
    serverVersion: version?.gitVersion ?? 'unknown',
    resources: discovery.resources,
    failedGroupVersions,
    objects,
    full: full as unknown as FullObjects,
    coverage,
    ...(etcd ? { etcd } : {}),
    helmRecords: helm.records,
    undecodableHelmRecords: helm.undecodable,
    heldBodies: held.bodies,
    stats: {
      discoveryMs,
      listMs,
      resourcesListed: targets.length,
      pages,
      requests: api.sentRequests() - requestsBefore,
    },
  });
  log(
    `snapshot: ${inventory.objects.length} objects sorted and indexed, ${Math.round(performance.now() - indexStarted)} ms`,
  );
  return inventory;
}
