import pLimit, { type LimitFunction } from 'p-limit';
import type { ApiClient, WatchEvent } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { collectionPath, metadataListAccept } from '../inventory/list.js';
import { WaitTimeoutError, systemClock, waitFor, type Clock } from '../util/wait.js';
import type { KindAddress } from './resource-index.js';
import type { Blocker } from '../model/teardown-result.js';
import { startHeartbeat, waitingOnObject } from './wait-progress.js';
import { predictedId } from '../model/prediction.js';

/**
 * Pure: an object's identity across a teardown's prediction and its waits: API group (not
 * version), kind, namespace, name (model/prediction.ts `predictedId`).
 */
export const objectId = predictedId;

/** An object teardown waits for. */
export interface AwaitedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly address: KindAddress;
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

/** Last seen metadata per object (`memberKey(collection, name)`); absent: gone. */
type Presence = Map<string, Meta>;

/** The key of one object in a `Presence`: its collection's path and its name. */
const memberKey = (path: string, name: string) => `${path}\u0000${name}`;

/** What the parts of `waitUntilGone` share: the objects, their groups and what is known of them. */
interface GoneWait {
  readonly api: ApiClient;
  readonly objects: readonly AwaitedObject[];
  /** Collection path → the objects listed from it. */
  readonly groups: ReadonlyMap<string, AwaitedObject[]>;
  readonly present: Presence;
  readonly clock: Clock;
  /** When the wait ends, in ms on `clock`. */
  readonly deadline: number;
  /** Lists the given groups, updating `present` (`listGroups`); returns their resourceVersions. */
  readonly list: (which: readonly [string, AwaitedObject[]][]) => Promise<Map<string, string>>;
}

/** Pure: the objects by the collection they are listed from (its path), in the order given. */
function groupByCollection(objects: readonly AwaitedObject[]): Map<string, AwaitedObject[]> {
  const groups = new Map<string, AwaitedObject[]>();
  for (const o of objects) (groups.get(groupKey(o)) ?? groups.set(groupKey(o), []).get(groupKey(o))!).push(o);
  return groups;
}

/** Pure: the objects `present` still holds, as blockers sorted by kind, namespace and name. */
function blockersOf(objects: readonly AwaitedObject[], present: ReadonlyMap<string, Meta>): Blocker[] {
  return objects
    .filter((o) => present.has(memberKey(groupKey(o), o.name)))
    .map((o) => {
      const meta = present.get(memberKey(groupKey(o), o.name))!;
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
}

/** Pure: the groups with at least one object `present` still holds. */
function pendingGroupsOf(
  groups: ReadonlyMap<string, AwaitedObject[]>,
  present: ReadonlyMap<string, Meta>,
): [string, AwaitedObject[]][] {
  return [...groups].filter(([path, members]) => members.some((o) => present.has(memberKey(path, o.name))));
}

/**
 * Lists the given groups with metadata-only lists, at most `limit` at once, and records in
 * `present` which of their objects are still there. A 404 (the kind or the namespace is gone)
 * counts all the group's objects gone.
 * @returns each list's resourceVersion by collection path ('' when the list had none; no entry
 *   for a collection that answered 404).
 * @throws what the API throws other than 404.
 */
async function listGroups(
  api: ApiClient,
  which: readonly [string, AwaitedObject[]][],
  present: Presence,
  limit: LimitFunction,
): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  await Promise.all(
    which.map(([path, members]) =>
      limit(async () => {
        let list: MetadataList;
        try {
          list = await api.request<MetadataList>({ path, accept: metadataListAccept });
        } catch (error) {
          if (error instanceof KubernetesApiError && error.status === 404) {
            for (const o of members) present.delete(memberKey(path, o.name)); // kind or namespace gone
            return;
          }
          throw error;
        }
        const seen = new Map((list.items ?? []).map((i) => [i.metadata?.name ?? '', i.metadata ?? {}]));
        for (const o of members) {
          const meta = seen.get(o.name);
          if (meta) present.set(memberKey(path, o.name), meta);
          else present.delete(memberKey(path, o.name));
        }
        versions.set(path, list.metadata?.resourceVersion ?? '');
      }),
    ),
  );
  return versions;
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
    /**
     * A progress line every 10 s while the wait lasts (wait-progress.ts): `what` names what is
     * awaited ("the stage's objects"), `log` takes the line.
     */
    heartbeat?: { readonly what: string; readonly log: (line: string) => void };
  },
): Promise<Blocker[]> {
  if (objects.length === 0) return [];
  if (!options.heartbeat || options.timeoutMs <= 0) return waitGone(api, objects, options);
  const present: Presence = new Map();
  const stop = startHeartbeat({
    what: options.heartbeat.what,
    budgetMs: options.timeoutMs,
    log: options.heartbeat.log,
    read: () => ({ left: blockersOf(objects, present).map(waitingOnObject), total: objects.length }),
  });
  try {
    return await waitGone(api, objects, options, present);
  } finally {
    stop();
  }
}

/** `waitUntilGone` without its heartbeat; `present` is shared with the heartbeat's reads. */
async function waitGone(
  api: ApiClient,
  objects: readonly AwaitedObject[],
  options: Parameters<typeof waitUntilGone>[2],
  present: Presence = new Map(),
): Promise<Blocker[]> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.timeoutMs;
  const limit = pLimit(options.concurrency ?? 8);
  const wait: GoneWait = {
    api,
    objects,
    groups: groupByCollection(objects),
    present,
    clock,
    deadline,
    list: (which) => listGroups(api, which, present, limit),
  };
  const versions = await wait.list([...wait.groups]);
  options.onProgress?.(present.size);
  // Below a second a watch is not worth its request: the lists take the rest.
  const watching =
    options.watch !== false && options.timeoutMs >= 1000 && (await watchUntilGone(wait, versions, options));
  // All gone, or the time ran out while watching (the watch kept what is left up to date).
  if (present.size === 0 || watching || deadline - clock.now() <= 0) return blockersOf(objects, present);
  return pollUntilGone(wait, options.onProgress);
}

/**
 * The watch part of `waitUntilGone`: watches the pending groups from `versions`, window after
 * window (a new list between windows), until every object is gone or the deadline passes. A
 * 410 Gone lists again and watches on (three times at most).
 * @returns true when it watched to the end; false when a watch failed (`onWatchFailed` was
 *   told why) and the rest of the wait is lists.
 * @throws ClusterAccessError from a watch; what the API throws other than 404 on a list.
 */
async function watchUntilGone(
  wait: GoneWait,
  versions: ReadonlyMap<string, string>,
  options: { onProgress?: (left: number) => void; onWatchFailed?: (message: string) => void },
): Promise<boolean> {
  const { api, objects, groups, present, clock, deadline } = wait;
  let lastProgress = clock.now();
  const onChange = () => {
    // At most one progress call a second while events arrive.
    if (present.size > 0 && clock.now() - lastProgress < 1000) return;
    lastProgress = clock.now();
    options.onProgress?.(present.size);
  };
  let from = versions;
  let goneRetries = 0;
  while (present.size > 0 && deadline - clock.now() > 0) {
    try {
      await watchPending(api, groups, present, pendingGroupsOf(groups, present), from, {
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
        return false;
      }
    }
    // The window ended (or 410): list what is left, then watch from there.
    if (present.size > 0 && deadline - clock.now() > 0)
      from = await wait.list(pendingGroupsOf(groups, present));
  }
  return true;
}

/**
 * The list part of `waitUntilGone`: lists the pending groups round after round, backing off
 * between rounds (util/wait.ts), until every object is gone or the deadline passes.
 * @returns the objects still there at the deadline (empty: all gone).
 * @throws what the API throws other than 404 on a list.
 */
async function pollUntilGone(wait: GoneWait, onProgress?: (left: number) => void): Promise<Blocker[]> {
  const { objects, groups, present, clock } = wait;
  try {
    await waitFor(
      async () => {
        await wait.list(pendingGroupsOf(groups, present));
        const left = blockersOf(objects, present);
        onProgress?.(left.length);
        return { done: left.length === 0, value: left };
      },
      { timeoutMs: wait.deadline - clock.now(), description: `${objects.length} objects to be gone`, clock },
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
