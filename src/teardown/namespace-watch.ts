/**
 * The namespace wait's watch (namespaces.ts `awaitNamespacesGone`): one window of events on the
 * namespaces it waits for, and the shape of a namespace it reads.
 */
import type { ApiClient } from '../cluster/api-client.js';
import { oldestResourceVersion } from './wait-gone.js';

/** What the wait reads of a namespace (k8s.io/api core/v1 Namespace, the fields it uses). */
export interface NamespaceObject {
  metadata?: { deletionTimestamp?: string; finalizers?: string[]; resourceVersion?: string };
  spec?: { finalizers?: string[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/**
 * One watch on namespaces from the oldest known resourceVersion of `names` (by name when
 * there is one); resolves when `done()` holds after an event or the window ends.
 * @throws Error when a version is missing or not comparable (the caller polls instead);
 *   KubernetesApiError from the watch.
 */
export async function watchNamespaces(
  api: ApiClient,
  names: readonly string[],
  versions: ReadonlyMap<string, string>,
  options: {
    seconds: number;
    onEvent: (name: string, type: string, ns: NamespaceObject) => void;
    done: () => boolean;
  },
): Promise<void> {
  const from = oldestResourceVersion(names.map((n) => versions.get(n) ?? ''));
  if (from === undefined) throw new Error('no comparable resourceVersion to watch namespaces from');
  const wanted = new Set(names);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), options.seconds * 1000);
  try {
    await api.watch(
      {
        path: '/api/v1/namespaces',
        resourceVersion: from,
        ...(names.length === 1 ? { query: { fieldSelector: `metadata.name=${names[0]}` } } : {}),
        timeoutSeconds: options.seconds,
        signal: stop.signal,
      },
      (event) => {
        const name = event.object.metadata?.name ?? '';
        if (event.type === 'BOOKMARK' || !wanted.has(name)) return false;
        options.onEvent(name, event.type, event.object as NamespaceObject);
        return options.done();
      },
    );
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
}
