import pLimit from 'p-limit';
import type { ApiClient, WatchEvent } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { collectionPath, metadataListAccept } from '../inventory/list.js';
import { WaitTimeoutError, systemClock, waitFor, type Clock } from '../util/wait.js';
import type { KindAddress } from './resource-index.js';

/** An object teardown waits for. */
export interface AwaitedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly address: KindAddress;
}

/** An object still present when the wait ended, with what holds it. */
export interface Blocker {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** Finalizers still on the object; empty for an object that was never deleted. */
  readonly finalizers: readonly string[];
  /** RFC 3339; absent when nobody asked to delete it (e.g. helm uninstall failed). */
  readonly deletionTimestamp?: string;
}

interface Meta {
  name?: string;
  namespace?: string;
  finalizers?: string[];
  deletionTimestamp?: string;
}
interface MetadataList {
  metadata?: { resourceVersion?: string };
  items?: { metadata?: Meta }[];
}

/** The metadata-only form of a watch's events (falls back to whole objects where not served). */
export const metadataWatchAccept =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;q=0.9';

/** Longest single watch in seconds; after it the objects are listed again and a new watch starts. */
export const watchWindowSeconds = 60;

const groupKey = (o: AwaitedObject) =>
  collectionPath(o.address, o.address.namespaced ? o.namespace : undefined);
const resourceKey = (a: KindAddress) => `${a.group}/${a.version}/${a.resource}`;

/**
 * Pure: the oldest of several resourceVersions, or undefined when one is not a decimal number.
 * resourceVersions are opaque to clients (Kubernetes API concepts, "Resource versions"); every
 * etcd3-backed server gives decimal revisions, and only then is one watch from the oldest of
 * several lists known to miss nothing. Otherwise each list is watched on its own.
 */
export function oldestResourceVersion(versions: readonly string[]): string | undefined {
  if (versions.length === 0 || !versions.every((v) => /^\d+$/.test(v))) return undefined;
  return versions.reduce((a, b) => (BigInt(a) <= BigInt(b) ? a : b));
}

/**
 * Waits until every object is gone. It lists once per (resource, namespace) with a metadata-only
 * list, then watches from those lists' resourceVersion (one watch per resource: the namespace's
 * collection when all its objects are in one namespace, else the cluster-wide collection), so
 * the last object's disappearance is seen within the event's delivery, not at the next poll.
 * A watch that ends (after `watchWindowSeconds`) is followed by a new list and watch; a watch
 * that fails (403 on watch, 410 Gone, a dropped connection, a server that serves no watch)
 * falls back to the lists, one per (resource, namespace) per round, backing off between
 * rounds (util/wait.ts), for the rest of `timeoutMs`.
 * @returns the objects still there when `timeoutMs` ran out (empty: all gone), with their
 *   finalizers and deletionTimestamp as last seen.
 * @throws what the API throws other than 404 on a list (the caller reports it).
 */
export async function waitUntilGone(
  api: ApiClient,
  objects: readonly AwaitedObject[],
  options: {
    timeoutMs: number;
    clock?: Clock;
    concurrency?: number;
    onProgress?: (left: number) => void;
    /** false: lists only, as before watches (default true). */
    watch?: boolean;
    /** Told why a watch failed, before the wait goes on with lists. */
    onWatchFailed?: (message: string) => void;
  },
): Promise<Blocker[]> {
  if (objects.length === 0) return [];
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.timeoutMs;
  const groups = new Map<string, AwaitedObject[]>();
  for (const o of objects) (groups.get(groupKey(o)) ?? groups.set(groupKey(o), []).get(groupKey(o))!).push(o);
  /** Last seen metadata per object (`${collection}\0${name}`); absent: gone. */
  const present = new Map<string, Meta>();
  const limit = pLimit(options.concurrency ?? 8);

  const blockers = (): Blocker[] =>
    objects
      .filter((o) => present.has(`${groupKey(o)}\u0000${o.name}`))
      .map((o) => {
        const meta = present.get(`${groupKey(o)}\u0000${o.name}`)!;
        return {
          apiVersion: o.apiVersion,
          kind: o.kind,
          ...(o.namespace ? { namespace: o.namespace } : {}),
          name: o.name,
          finalizers: meta.finalizers ?? [],
          ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}),
        };
      })
      .sort(
        (a, b) =>
          a.kind.localeCompare(b.kind) ||
          (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
          a.name.localeCompare(b.name),
      );
  const pendingGroups = () =>
    [...groups].filter(([path, members]) => members.some((o) => present.has(`${path}\u0000${o.name}`)));

  /** Lists the given groups; returns each list's resourceVersion ('' when the collection is gone). */
  const listGroups = async (which: [string, AwaitedObject[]][]) => {
    const versions = new Map<string, string>();
    await Promise.all(
      which.map(([path, members]) =>
        limit(async () => {
          let list: MetadataList;
          try {
            list = await api.request<MetadataList>({ path, accept: metadataListAccept });
          } catch (error) {
            if (error instanceof KubernetesApiError && error.status === 404) {
              for (const o of members) present.delete(`${path}\u0000${o.name}`); // kind or namespace gone
              return;
            }
            throw error;
          }
          const seen = new Map((list.items ?? []).map((i) => [i.metadata?.name ?? '', i.metadata ?? {}]));
          for (const o of members) {
            const meta = seen.get(o.name);
            if (meta) present.set(`${path}\u0000${o.name}`, meta);
            else present.delete(`${path}\u0000${o.name}`);
          }
          versions.set(path, list.metadata?.resourceVersion ?? '');
        }),
      ),
    );
    return versions;
  };
  const round = async () => {
    await listGroups(pendingGroups());
    const left = blockers();
    options.onProgress?.(left.length);
    return left;
  };

  let versions = await listGroups([...groups]);
  options.onProgress?.(present.size);
  // Below a second a watch is not worth its request: the lists take the rest.
  let watching = options.watch !== false && options.timeoutMs >= 1000;
  let lastProgress = clock.now();
  const onChange = () => {
    // At most one progress call a second while events arrive.
    if (present.size > 0 && clock.now() - lastProgress < 1000) return;
    lastProgress = clock.now();
    options.onProgress?.(present.size);
  };
  let goneRetries = 0;
  while (watching && present.size > 0 && deadline - clock.now() > 0) {
    try {
      await watchPending(api, groups, present, pendingGroups(), versions, {
        seconds: Math.min(watchWindowSeconds, (deadline - clock.now()) / 1000),
        onChange,
      });
    } catch (error) {
      if ((error as Error)?.name === 'ClusterAccessError') throw error;
      // 410 Gone: the lists are older than the watch cache; list again (a few times). Anything
      // else: lists only, for the rest of the time.
      if (!(error instanceof KubernetesApiError && error.status === 410 && ++goneRetries <= 3)) {
        options.onWatchFailed?.(
          `watch of ${objects.length} objects failed (${(error as Error)?.message ?? String(error)}); listing instead`,
        );
        watching = false;
        break;
      }
    }
    // The window ended (or 410): list what is left, then watch from there.
    if (present.size > 0 && deadline - clock.now() > 0) versions = await listGroups(pendingGroups());
  }
  // All gone, or the time ran out while watching (the watch kept what is left up to date).
  if (present.size === 0 || watching || deadline - clock.now() <= 0) return blockers();
  try {
    await waitFor(
      async () => {
        const left = await round();
        return { done: left.length === 0, value: left };
      },
      { timeoutMs: deadline - clock.now(), description: `${objects.length} objects to be gone`, clock },
    );
    return [];
  } catch (error) {
    if (error instanceof WaitTimeoutError) return (error.last as Blocker[] | undefined) ?? [];
    throw error;
  }
}

/**
 * One watch per resource over the pending groups (see waitUntilGone), all at once; resolves
 * when every pending object is gone or the window ends, updating `present` as events arrive.
 */
async function watchPending(
  api: ApiClient,
  groups: ReadonlyMap<string, AwaitedObject[]>,
  present: Map<string, Meta>,
  pending: readonly [string, AwaitedObject[]][],
  versions: ReadonlyMap<string, string>,
  options: { seconds: number; onChange: () => void },
): Promise<void> {
  // The lists just made may have found everything gone.
  const stillPending = pending.filter(([path, members]) =>
    members.some((o) => present.has(`${path}\u0000${o.name}`)),
  );
  if (stillPending.length === 0 || options.seconds <= 0) return;
  const byResource = new Map<string, [string, AwaitedObject[]][]>();
  for (const g of stillPending) {
    const k = resourceKey(g[1][0]!.address);
    (byResource.get(k) ?? byResource.set(k, []).get(k)!).push(g);
  }
  const watches: { path: string; resourceVersion: string; collections: Set<string> }[] = [];
  for (const list of byResource.values()) {
    const oldest = oldestResourceVersion(list.map(([path]) => versions.get(path) ?? ''));
    if (list.length > 1 && oldest !== undefined) {
      const address = list[0]![1][0]!.address;
      watches.push({
        path: collectionPath(address),
        resourceVersion: oldest,
        collections: new Set(list.map(([p]) => p)),
      });
    } else {
      for (const [path] of list) {
        const rv = versions.get(path);
        if (rv) watches.push({ path, resourceVersion: rv, collections: new Set([path]) });
      }
    }
  }
  if (stillPending.some(([path]) => !watches.some((w) => w.collections.has(path))))
    throw new Error('a list gave no resourceVersion to watch from');
  const wanted = new Set(stillPending.flatMap(([p, members]) => members.map((o) => `${p}\u0000${o.name}`)));
  const pendingIn = (collections: Set<string>) =>
    [...collections].some((p) => groups.get(p)!.some((o) => present.has(`${p}\u0000${o.name}`)));
  const stop = new AbortController();
  // The server ends each watch after whole seconds; the window may be shorter.
  const timer = setTimeout(() => stop.abort(), options.seconds * 1000);
  try {
    await Promise.all(
      watches.map((w) =>
        api.watch(
          {
            path: w.path,
            resourceVersion: w.resourceVersion,
            accept: metadataWatchAccept,
            timeoutSeconds: options.seconds,
            signal: stop.signal,
          },
          (event: WatchEvent) => {
            const meta = (event.object.metadata ?? {}) as Meta;
            if (event.type === 'BOOKMARK' || !meta.name) return false;
            const address = groups.get([...w.collections][0]!)![0]!.address;
            const collection = collectionPath(address, address.namespaced ? meta.namespace : undefined);
            const key = `${collection}\u0000${meta.name}`;
            if (!w.collections.has(collection) || !wanted.has(key)) return false;
            if (event.type === 'DELETED') present.delete(key);
            else present.set(key, meta);
            options.onChange();
            return !pendingIn(w.collections);
          },
        ),
      ),
    );
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
