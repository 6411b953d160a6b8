import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { collectionPath, metadataListAccept } from '../inventory/list.js';
import { WaitTimeoutError, waitFor, type Clock } from '../util/wait.js';
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

interface MetadataList {
  items?: { metadata?: { name?: string; finalizers?: string[]; deletionTimestamp?: string } }[];
}

function groupKey(o: AwaitedObject): string {
  return `${collectionPath(o.address, o.address.namespaced ? o.namespace : undefined)}`;
}

/**
 * Waits until every object is gone, with one metadata-only list per (resource, namespace)
 * per round instead of one GET per object, backing off between rounds (util/wait.ts).
 * @returns the objects still there when `timeoutMs` ran out (empty: all gone), with their
 *   finalizers and deletionTimestamp from the last round.
 * @throws what the API throws other than 404 on a list (the caller reports it).
 */
export async function waitUntilGone(
  api: ApiClient,
  objects: readonly AwaitedObject[],
  options: { timeoutMs: number; clock?: Clock; concurrency?: number; onProgress?: (left: number) => void },
): Promise<Blocker[]> {
  if (objects.length === 0) return [];
  const groups = new Map<string, AwaitedObject[]>();
  for (const o of objects) (groups.get(groupKey(o)) ?? groups.set(groupKey(o), []).get(groupKey(o))!).push(o);
  const limit = pLimit(options.concurrency ?? 8);
  const round = async (): Promise<Blocker[]> => {
    const left: Blocker[] = [];
    await Promise.all(
      [...groups].map(([path, members]) =>
        limit(async () => {
          let list: MetadataList;
          try {
            list = await api.request<MetadataList>({ path, accept: metadataListAccept });
          } catch (error) {
            if (error instanceof KubernetesApiError && error.status === 404) return; // kind or namespace gone
            throw error;
          }
          const present = new Map((list.items ?? []).map((i) => [i.metadata?.name ?? '', i.metadata ?? {}]));
          for (const o of members) {
            const meta = present.get(o.name);
            if (!meta) continue;
            left.push({
              apiVersion: o.apiVersion,
              kind: o.kind,
              ...(o.namespace ? { namespace: o.namespace } : {}),
              name: o.name,
              finalizers: meta.finalizers ?? [],
              ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}),
            });
          }
        }),
      ),
    );
    return left.sort(
      (a, b) =>
        a.kind.localeCompare(b.kind) ||
        (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
        a.name.localeCompare(b.name),
    );
  };
  try {
    await waitFor(
      async () => {
        const left = await round();
        options.onProgress?.(left.length);
        return { done: left.length === 0, value: left };
      },
      {
        timeoutMs: options.timeoutMs,
        description: `${objects.length} objects to be gone`,
        ...(options.clock ? { clock: options.clock } : {}),
      },
    );
    return [];
  } catch (error) {
    if (error instanceof WaitTimeoutError) return (error.last as Blocker[] | undefined) ?? [];
    throw error;
  }
}
