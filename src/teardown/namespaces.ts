import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { isProtectedNamespace } from '../plan/protected-namespaces.js';
import { WaitTimeoutError, waitFor, type Clock } from '../util/wait.js';

/** A namespace condition as the namespace controller writes it (k8s.io/api core/v1 NamespaceCondition). */
export interface NamespaceCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** What became of one namespace. Durations in ms. */
export interface NamespaceOutcome {
  readonly name: string;
  /**
   * `deleted`: gone; `stuck`: still Terminating when the wait ended; `absent`: was not there;
   * `not-waited`: deletion requested, but the overall `timeout` had run out (or ran out during
   *   the wait while the namespace's conditions named no cause), so it was not waited for.
   */
  readonly status: 'deleted' | 'stuck' | 'absent' | 'not-waited';
  readonly durationMs: number;
  /**
   * For `stuck`: the deletion conditions that are True (NamespaceDeletionDiscoveryFailure,
   * NamespaceDeletionContentFailure, NamespaceContentRemaining, NamespaceFinalizersRemaining,
   * NamespaceDeletionGroupVersionParsingFailure): their messages name the group-versions that
   * failed discovery, the resources that remain and the finalizers that hold them.
   */
  readonly blockingConditions: readonly NamespaceCondition[];
  /** `spec.finalizers` still on the namespace (normally [kubernetes] while content remains). */
  readonly finalizers: readonly string[];
  /**
   * `metadata.finalizers` on the namespace object itself: a controller's own hold, which no
   * condition reports and which the namespace controller never removes.
   */
  readonly metadataFinalizers: readonly string[];
}

interface NamespaceObject {
  metadata?: { deletionTimestamp?: string; finalizers?: string[] };
  spec?: { finalizers?: string[] };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/**
 * Deletes namespaces and waits until they are gone, reading each one's conditions while it is
 * Terminating. Never deletes a protected namespace, and never PUTs /finalize (which strands
 * the namespace's objects in etcd: scenario S10).
 * @throws Error when asked to delete a protected namespace (a programming error upstream)
 */
export async function deleteNamespaces(
  api: ApiClient,
  names: readonly string[],
  options: {
    timeoutMs: number;
    /** True when `timeoutMs` is what was left of the overall `timeout`, less than `stage-timeout`. */
    cutShort?: boolean;
    clock?: Clock;
    log?: (line: string) => void;
  },
): Promise<NamespaceOutcome[]> {
  const bad = names.find(isProtectedNamespace);
  if (bad) throw new Error(`refusing to delete protected namespace ${bad}`);
  const clockNow = () => (options.clock ? options.clock.now() : Date.now());
  const started = clockNow();
  const absent = new Set<string>();
  for (const name of names) {
    try {
      await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${encodeURIComponent(name)}` });
      options.log?.(`namespace ${name}: deletion requested`);
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) absent.add(name);
      else if (error instanceof KubernetesApiError && error.status === 409)
        options.log?.(`namespace ${name}: already terminating`);
      else throw error;
    }
  }
  const goneAt = new Map<string, number>();
  const last = new Map<string, NamespaceObject>();
  const pending = () => names.filter((n) => !absent.has(n) && !goneAt.has(n));
  const check = async () => {
    for (const name of pending()) {
      try {
        last.set(
          name,
          await api.request<NamespaceObject>({ path: `/api/v1/namespaces/${encodeURIComponent(name)}` }),
        );
      } catch (error) {
        if (error instanceof KubernetesApiError && error.status === 404) goneAt.set(name, clockNow());
        else throw error;
      }
    }
    return { done: pending().length === 0, value: pending() };
  };
  const waited = options.timeoutMs > 0;
  try {
    await waitFor(check, {
      timeoutMs: Math.max(1, options.timeoutMs),
      description: `namespaces ${names.join(', ')} to be gone`,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  } catch (error) {
    if (!(error instanceof WaitTimeoutError)) throw error;
  }
  return names.map((name): NamespaceOutcome => {
    const none = { blockingConditions: [], finalizers: [], metadataFinalizers: [] };
    if (absent.has(name)) return { name, status: 'absent', durationMs: 0, ...none };
    if (goneAt.has(name))
      return { name, status: 'deleted', durationMs: goneAt.get(name)! - started, ...none };
    if (!waited) {
      options.log?.(`namespace ${name}: deletion requested, not waited for (the overall timeout ran out)`);
      return { name, status: 'not-waited', durationMs: 0, ...none };
    }
    const ns = last.get(name);
    const blocking = (ns?.status?.conditions ?? [])
      .filter((c) => c.status === 'True')
      .map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? '', message: c.message ?? '' }))
      .sort((a, b) => a.type.localeCompare(b.type));
    const metadataFinalizers = ns?.metadata?.finalizers ?? [];
    for (const c of blocking)
      options.log?.(`namespace ${name} is stuck: ${c.type} (${c.reason}): ${c.message}`);
    if (metadataFinalizers.length > 0) {
      options.log?.(
        `namespace ${name} is held by its own metadata.finalizers [${metadataFinalizers.join(', ')}]: the controller that set them must remove them`,
      );
    }
    if (blocking.length === 0 && metadataFinalizers.length === 0) {
      if (options.cutShort) {
        // Nothing says it is stuck: the overall timeout ran out while it was still being deleted.
        options.log?.(
          `namespace ${name}: still Terminating when the overall timeout ran out after ${Math.round((clockNow() - started) / 1000)} s; its conditions name no cause (raise 'timeout')`,
        );
        return { name, status: 'not-waited', durationMs: clockNow() - started, ...none };
      }
      options.log?.(
        `namespace ${name} is still Terminating and its conditions name no cause yet (still in progress?)`,
      );
    }
    return {
      name,
      status: 'stuck',
      durationMs: clockNow() - started,
      blockingConditions: blocking,
      finalizers: ns?.spec?.finalizers ?? [],
      metadataFinalizers,
    };
  });
}
