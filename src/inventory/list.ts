import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import type { GroupVersionResource, ObjectMetadata, OwnerReference } from './types.js';

/** Accept header that asks for metav1.PartialObjectMetadataList (server-side metadata-only list). */
export const metadataListAccept =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9';

/** The collection path of a resource, across all namespaces: /api/v1/pods, /apis/apps/v1/deployments. */
export function collectionPath(gvr: GroupVersionResource, namespace?: string): string {
  const base = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  return namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${gvr.resource}`
    : `${base}/${gvr.resource}`;
}

export interface RawMetadata {
  name?: string;
  namespace?: string;
  uid?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RawList<T> {
  metadata?: { continue?: string; resourceVersion?: string };
  items?: T[];
}

const droppedAnnotations = new Set(['kubectl.kubernetes.io/last-applied-configuration']);
/** Their lengths: most keys are told apart by length alone, without hashing a new string. */
const droppedLengths = new Set([...droppedAnnotations].map((key) => key.length));

/**
 * Interned strings of one inventory: JSON.parse makes a new string for every value of every
 * page, and the metadata of many objects repeats the same namespaces, creation times, label
 * values and short annotation values. The snapshot keeps one copy of each (memory: about
 * 10 MiB fewer per 50,000 objects with Helm-style labels, bench/README.md).
 */
export type StringPool = Map<string, string>;

/** Values longer than this are not interned: they are usually unique (descriptions, blobs). */
const internedLength = 64;

/** Pure apart from `pool`: the pool's copy of `value` (added when new); non-strings and long strings as they are. */
export function intern<T>(pool: StringPool | undefined, value: T): T {
  if (!pool || typeof value !== 'string' || value.length > internedLength) return value;
  const held = pool.get(value);
  if (held !== undefined) return held as T;
  pool.set(value, value);
  return value;
}

/**
 * A copy of a label or annotation map without the dropped annotations, its values interned;
 * undefined when nothing is left. Keys keep their order; a `__proto__` key stays an own property.
 */
function keptMap(
  map: Record<string, string> | undefined,
  pool: StringPool | undefined,
): Record<string, string> | undefined {
  if (!map) return undefined;
  // Not a map (only from a broken or hostile server): kept as it is when it has keys, as before.
  if (typeof map !== 'object' || Array.isArray(map)) return Object.keys(map).length ? map : undefined;
  let out: Record<string, string> | undefined;
  for (const key of Object.keys(map)) out = keepEntry(out, key, map[key]!, pool);
  return out;
}

/**
 * Pure apart from `out` and `pool`: adds one label or annotation to `out` (created when
 * undefined) unless its key is a dropped annotation, the value interned; a `__proto__` key
 * becomes an own property. The one rule of what a kept label or annotation map holds, for the
 * JSON lists (`toObjectMetadata`) and the protobuf ones (protobuf-metadata.ts).
 * @returns `out`, or the new map (undefined when nothing was added to an undefined `out`).
 */
export function keepEntry(
  out: Record<string, string> | undefined,
  key: string,
  value: string,
  pool: StringPool | undefined,
): Record<string, string> | undefined {
  if (isDroppedKey(key)) return out;
  out ??= {};
  const kept = intern(pool, value);
  if (key === '__proto__')
    Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
  else out[key] = kept;
  return out;
}

/** Is `key` an annotation the snapshot drops (its value is never decoded by the protobuf path)? */
export function isDroppedKey(key: string): boolean {
  return droppedLengths.has(key.length) && droppedAnnotations.has(key);
}

/**
 * Pure (apart from adding to `pool`): keeps the fields rules read from one item's metadata. The
 * apiVersion/kind are the resource's own (a PartialObjectMetadataList reports items as
 * meta.k8s.io PartialObjectMetadata). Absent and empty fields are left out; the
 * last-applied-configuration annotation is dropped. With `pool`, the namespace, the creation time
 * and short label and annotation values are interned (StringPool).
 */
export function toObjectMetadata(
  meta: RawMetadata,
  apiVersion: string,
  kind: string,
  resource: string,
  pool?: StringPool,
): ObjectMetadata {
  return assembleMetadata(
    {
      name: meta.name,
      uid: meta.uid,
      namespace: intern(pool, meta.namespace),
      creationTimestamp: intern(pool, meta.creationTimestamp),
      deletionTimestamp: meta.deletionTimestamp,
      finalizers: meta.finalizers,
      ownerReferences: meta.ownerReferences,
      labels: keptMap(meta.labels, pool),
      annotations: keptMap(meta.annotations, pool),
    },
    apiVersion,
    kind,
    resource,
  );
}

/**
 * An item's metadata fields once kept (strings interned, label and annotation maps through
 * keepEntry), before they become an ObjectMetadata; empty and null values are allowed here.
 */
export interface KeptFields {
  name?: string | undefined;
  uid?: string | undefined;
  namespace?: string | undefined;
  creationTimestamp?: string | undefined;
  deletionTimestamp?: string | undefined;
  finalizers?: readonly string[] | undefined;
  ownerReferences?: readonly OwnerReference[] | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
}

/**
 * Pure: the snapshot's ObjectMetadata of kept fields, for the JSON lists (toObjectMetadata) and the
 * protobuf ones (protobuf-metadata.ts) alike. Fields are set one by one in a fixed order (no object
 * spreads: this runs once per listed object), so every object has the same shape; absent and empty
 * fields are left out; name and uid are '' when absent.
 */
export function assembleMetadata(
  fields: KeptFields,
  apiVersion: string,
  kind: string,
  resource: string,
): ObjectMetadata {
  const out: { -readonly [K in keyof ObjectMetadata]: ObjectMetadata[K] } = {
    apiVersion,
    kind,
    resource,
    name: fields.name ?? '',
    uid: fields.uid ?? '',
  };
  if (fields.namespace) out.namespace = fields.namespace;
  if (fields.creationTimestamp) out.creationTimestamp = fields.creationTimestamp;
  if (fields.deletionTimestamp) out.deletionTimestamp = fields.deletionTimestamp;
  if (fields.finalizers?.length) out.finalizers = fields.finalizers;
  if (fields.ownerReferences?.length) out.ownerReferences = fields.ownerReferences;
  if (fields.labels) out.labels = fields.labels;
  if (fields.annotations) out.annotations = fields.annotations;
  return out;
}

export interface ListOptions {
  /** `limit` of one page. */
  readonly pageSize: number;
  /** Whole objects (true) or PartialObjectMetadata (false). */
  readonly full: boolean;
  readonly labelSelector?: string;
  /** List only this namespace (default: across all namespaces). */
  readonly namespace?: string;
  /** Called for every item; lets the caller keep what it needs and drop the rest (memory). */
  readonly onItem: (item: { metadata?: RawMetadata } & Record<string, unknown>) => void;
}

/**
 * Lists one resource across all namespaces (or in `options.namespace`), page by page (`limit` + `continue`). When the
 * continue token expires (410 Gone, the list took longer than etcd's compaction window), the
 * list starts again once from the beginning with items seen so far reported again.
 * @returns the number of pages read.
 * @throws KubernetesApiError (403 Forbidden and others) from the API; the caller records coverage.
 */
export async function listAll(
  api: ApiClient,
  gvr: GroupVersionResource,
  options: ListOptions,
): Promise<number> {
  const path = collectionPath(gvr, options.namespace);
  return pageThrough(async (token) => {
    const page: RawList<{ metadata?: RawMetadata } & Record<string, unknown>> = await api.request({
      path,
      query: { limit: options.pageSize, continue: token, labelSelector: options.labelSelector },
      ...(options.full ? {} : { accept: metadataListAccept }),
    });
    for (const item of page.items ?? []) options.onItem(item);
    return page.metadata?.continue || undefined;
  });
}

/**
 * The paging loop of a list: calls `readPage` with no token, then with each continue token it
 * returns, until it returns none. When the token expires (410 Gone, the list took longer than
 * etcd's compaction window), the list starts again once from the beginning.
 * @returns the number of pages read (those of a restarted list included).
 * @throws what `readPage` throws (a second 410 too).
 */
export async function pageThrough(
  readPage: (token: string | undefined) => Promise<string | undefined>,
): Promise<number> {
  let pages = 0;
  for (let restart = 0; ; restart++) {
    let token: string | undefined;
    try {
      do {
        token = await readPage(token);
        pages++;
      } while (token);
      return pages;
    } catch (error) {
      if (restart === 0 && error instanceof KubernetesApiError && error.status === 410) continue;
      throw error;
    }
  }
}
