import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { deletionRefusalOf } from '../cluster/refusal.js';
import { describeRefusal, type RefusedRequest } from '../kube/refusal.js';
import type { NamespaceProtection } from '../plan/protected-namespaces.js';
import { guardNamespace } from './scope-guard.js';
import { WaitTimeoutError, systemClock, waitFor, type Clock } from '../util/wait.js';
import { watchWindowSeconds } from './wait-gone.js';
import { startHeartbeat, type WaitingOn } from './wait-progress.js';
import { watchNamespaces, type NamespaceObject } from './namespace-watch.js';
import { inputRef, Inputs } from '../words/input-words.js';
import type { NamespaceCondition, NamespaceOutcome } from '../model/teardown-result.js';

/** What `requestNamespaceDeletion` did: which namespaces were absent, and when it asked (ms). */
export interface NamespaceDeletion {
  readonly names: readonly string[];
  readonly absent: ReadonlySet<string>;
  /** Namespaces whose DELETE the API server refused, with its answer (not deleted, not waited for). */
  readonly refused: ReadonlyMap<string, RefusedRequest>;
  /**
   * Namespaces the guard found protected just before their DELETE (scope-guard.ts), with why:
   * no DELETE was sent (not deleted, not waited for).
   */
  readonly guarded: ReadonlyMap<string, string>;
  readonly requestedAt: number;
  /** The resourceVersion of each namespace as the DELETE answered it (a watch starts there). */
  readonly versions: ReadonlyMap<string, string>;
}

/** How many times a namespace is read again when it changed between the guard's read and its DELETE. */
const guardRetries = 3;

/**
 * Sends DELETE for each namespace, each one first read again and judged by the plan's
 * protection (`guardNamespace`, scope-guard.ts: the control-plane and kube-* names, the
 * `protect` input, the kube-sweep.io/protected=true label as it is now): a protected one gets no
 * DELETE and is recorded in `guarded`, with why. The DELETE carries the uid and resourceVersion
 * just read as preconditions, so a namespace changed in between (labelled protected a moment
 * later) answers 409 Conflict and is read and judged again (`guardRetries` times). 404: absent;
 * already Terminating: not asked again; any other answer of the API server
 * (`isFailedDeletion` in cluster/refusal.ts: a 4xx refusal, or a 5xx the retries did not get
 * past, as a webhook with `failurePolicy: Fail` whose backend times out answers): recorded in
 * `refused` with the server's message, and the next one is still asked. Never PUTs /finalize
 * (which strands the namespace's objects in etcd: scenario S10).
 * @throws what the API throws that is no answer (ClusterAccessError: the server stopped answering).
 */
export async function requestNamespaceDeletion(
  api: ApiClient,
  names: readonly string[],
  options: { clock?: Clock; log?: (line: string) => void; protection?: NamespaceProtection },
): Promise<NamespaceDeletion> {
  const requestedAt = (options.clock ?? systemClock).now();
  const absent = new Set<string>();
  const refused = new Map<string, RefusedRequest>();
  const guarded = new Map<string, string>();
  const versions = new Map<string, string>();
  for (const name of names) {
    const asked = await guardedDelete(api, name, options);
    if (asked.status === 'absent') absent.add(name);
    else if (asked.status === 'guarded') guarded.set(name, asked.reason);
    else if (asked.status === 'refused') refused.set(name, asked.refusal);
    else if (asked.resourceVersion) versions.set(name, asked.resourceVersion);
  }
  return { names, absent, refused, guarded, requestedAt, versions };
}

/** What became of one namespace's DELETE (`guardedDelete`). */
type AskedDeletion =
  | { readonly status: 'absent' }
  | { readonly status: 'guarded'; readonly reason: string }
  | { readonly status: 'refused'; readonly refusal: RefusedRequest }
  /** Deletion requested, or already Terminating (or conflicting every time): waited for. */
  | { readonly status: 'asked'; readonly resourceVersion?: string };

/**
 * The guard (`guardNamespace`), then the DELETE of one namespace with the uid and
 * resourceVersion the guard read as preconditions; a 409 reads and judges it again
 * (`guardRetries` times). See `requestNamespaceDeletion`.
 * @throws what the API throws other than 404, 409 and a refusal.
 */
async function guardedDelete(
  api: ApiClient,
  name: string,
  options: { log?: (line: string) => void; protection?: NamespaceProtection },
): Promise<AskedDeletion> {
  for (let attempt = 0; ; attempt++) {
    const guard = await guardNamespace(api, name, options.protection);
    if (guard.status === 'absent') return { status: 'absent' };
    if (guard.status === 'protected') {
      options.log?.(
        `namespace ${name}: not deleted: it is protected (${guard.reason}), read just before its DELETE`,
      );
      return { status: 'guarded', reason: guard.reason };
    }
    if (guard.terminating) {
      options.log?.(`namespace ${name}: already terminating`);
      return {
        status: 'asked',
        ...(guard.resourceVersion ? { resourceVersion: guard.resourceVersion } : {}),
      };
    }
    const preconditions = {
      ...(guard.uid ? { uid: guard.uid } : {}),
      ...(guard.resourceVersion ? { resourceVersion: guard.resourceVersion } : {}),
    };
    try {
      const ns = await api.request<NamespaceObject | undefined>({
        method: 'DELETE',
        path: `/api/v1/namespaces/${encodeURIComponent(name)}`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions },
      });
      options.log?.(`namespace ${name}: deletion requested`);
      const resourceVersion = ns?.metadata?.resourceVersion;
      return { status: 'asked', ...(resourceVersion ? { resourceVersion } : {}) };
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) return { status: 'absent' };
      // 409: changed since the guard read it (or Terminating already): read and judge it again.
      if (error instanceof KubernetesApiError && error.status === 409) {
        if (attempt < guardRetries) continue;
        options.log?.(
          `namespace ${name}: its DELETE conflicted ${guardRetries + 1} times (it keeps changing); left to the wait`,
        );
        return { status: 'asked' };
      }
      const refusal = deletionRefusalOf(error, {
        step: 'delete-namespace',
        object: { apiVersion: 'v1', kind: 'Namespace', name },
        environmentNamespace: name,
      });
      if (!refusal) throw error;
      options.log?.(`namespace ${name}: deletion ${describeRefusal(refusal)}`);
      return { status: 'refused', refusal };
    }
  }
}

export interface NamespaceWaitOptions {
  readonly timeoutMs: number;
  /** True when `timeoutMs` is what was left of the overall `timeout`, less than `stage-timeout`. */
  readonly cutShort?: boolean;
  readonly clock?: Clock;
  readonly log?: (line: string) => void;
  /** false: GET each namespace per round, as before watches (default true). */
  readonly watch?: boolean;
  /**
   * Namespaces not to wait for, each with why (an object in it is known not to go:
   * known-blockers.ts): read once after the wait; one still there is `stuck` with
   * `waitSkipped` set to that reason. Default none.
   */
  readonly lookOnce?: ReadonlyMap<string, string>;
}

/** What `awaitNamespacesGone` knows of the namespaces it waits for, updated as it reads them. */
interface NamespaceTracker {
  /** The namespaces, in the order of the deletions. */
  readonly names: readonly string[];
  /** When each namespace's deletion was requested (ms). */
  readonly requestedAt: ReadonlyMap<string, number>;
  /** Namespaces that were not there when their deletion was requested. */
  readonly absent: ReadonlySet<string>;
  /** Namespaces whose deletion was refused. */
  readonly refused: ReadonlyMap<string, RefusedRequest>;
  /** Namespaces found protected just before their DELETE, with why. */
  readonly guarded: ReadonlyMap<string, string>;
  /** The latest resourceVersion seen of each namespace (a watch starts from the oldest). */
  readonly versions: Map<string, string>;
  /** When each namespace was seen gone (ms). */
  readonly goneAt: Map<string, number>;
  /** Each namespace as last read (for its conditions and finalizers). */
  readonly last: Map<string, NamespaceObject>;
  /** Namespaces that could not be read (an answer other than 404: a 403, a 5xx), with the error. */
  readonly unchecked: Map<string, string>;
  /** Namespaces not waited for (`NamespaceWaitOptions.lookOnce`): never pending. */
  readonly notAwaited: ReadonlySet<string>;
}

/** Pure: the namespaces of several deletions, merged into one tracker with nothing seen gone yet. */
function trackerOf(
  deletions: readonly NamespaceDeletion[],
  notAwaited: ReadonlySet<string> = new Set(),
): NamespaceTracker {
  const requestedAt = new Map<string, number>();
  const absent = new Set<string>();
  const refused = new Map<string, RefusedRequest>();
  const guarded = new Map<string, string>();
  const versions = new Map<string, string>();
  for (const d of deletions) {
    for (const n of d.names) requestedAt.set(n, d.requestedAt);
    d.absent.forEach((n) => absent.add(n));
    d.refused.forEach((r, n) => refused.set(n, r));
    d.guarded.forEach((why, n) => guarded.set(n, why));
    d.versions.forEach((v, n) => versions.set(n, v));
  }
  return {
    names: [...requestedAt.keys()],
    requestedAt,
    absent,
    refused,
    guarded,
    versions,
    goneAt: new Map(),
    last: new Map(),
    unchecked: new Map(),
    notAwaited,
  };
}

/** Pure: the namespaces neither absent, refused, guarded, unreadable nor seen gone yet, in order. */
function pendingOf(t: NamespaceTracker): string[] {
  return t.names.filter(
    (n) =>
      !t.absent.has(n) &&
      !t.refused.has(n) &&
      !t.guarded.has(n) &&
      !t.goneAt.has(n) &&
      !t.unchecked.has(n) &&
      !t.notAwaited.has(n),
  );
}

/**
 * One GET round: reads each pending namespace, recording it and its resourceVersion; a 404
 * records it gone at `clock.now()`; any other answer (a 403, a 5xx the retries did not get
 * past) records it `unchecked` with the error, and it is not read again: what was deleted so
 * far stays in the result, and the scan afterwards looks at it again.
 * @returns in `waitFor`'s shape: done when none is pending, with the pending names.
 * @throws ClusterAccessError (no answer at all) and what is no answer of the API server.
 */
async function getPending(
  api: ApiClient,
  t: NamespaceTracker,
  clock: Clock,
): Promise<{ done: boolean; value: string[] }> {
  for (const name of pendingOf(t)) {
    try {
      const ns = await api.request<NamespaceObject>({
        path: `/api/v1/namespaces/${encodeURIComponent(name)}`,
      });
      t.last.set(name, ns);
      if (ns.metadata?.resourceVersion) t.versions.set(name, ns.metadata.resourceVersion);
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) t.goneAt.set(name, clock.now());
      else if (error instanceof KubernetesApiError) t.unchecked.set(name, error.message);
      else throw error;
    }
  }
  return { done: pendingOf(t).length === 0, value: pendingOf(t) };
}

/**
 * Pure: a pending namespace for the progress line: its finalizers (metadata.finalizers, then
 * spec.finalizers such as `kubernetes`) as last read, its deletionTimestamp, and what its
 * NamespaceFinalizersRemaining (else NamespaceContentRemaining) condition says holds it.
 */
function waitingOnNamespace(name: string, t: NamespaceTracker): WaitingOn {
  const ns = t.last.get(name);
  // The namespace controller's word on what it waits for: finalizers first, then content.
  const held = ['NamespaceFinalizersRemaining', 'NamespaceContentRemaining']
    .map((type) => ns?.status?.conditions?.find((c) => c.type === type && c.status === 'True'))
    .find((c) => c !== undefined);
  return {
    label: `namespace ${name}`,
    finalizers: [...(ns?.metadata?.finalizers ?? []), ...(ns?.spec?.finalizers ?? [])],
    ...(ns?.metadata?.deletionTimestamp ? { deletionTimestamp: ns.metadata.deletionTimestamp } : {}),
    ...(held?.message ? { heldBy: held.message } : {}),
  };
}

/**
 * Waits until the namespaces of one or more `requestNamespaceDeletion` calls are gone, reading
 * each one's conditions while it is Terminating: a watch on namespaces from the DELETE
 * answers' resourceVersion (a fieldSelector on the name when there is one namespace), so a
 * namespace's end is seen when it happens; when the watch fails or cannot start, one GET per
 * namespace per round with backoff (util/wait.ts). A watch that ends (after
 * `watchWindowSeconds`) is followed by a GET round and a new watch.
 * @returns one outcome per namespace, in the order of the deletions; `durationMs` from its
 *   deletion request.
 */
export async function awaitNamespacesGone(
  api: ApiClient,
  deletions: readonly NamespaceDeletion[],
  options: NamespaceWaitOptions,
): Promise<NamespaceOutcome[]> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.timeoutMs;
  const lookOnce = options.lookOnce ?? new Map<string, string>();
  const t = trackerOf(deletions, new Set(lookOnce.keys()));
  const check = () => getPending(api, t, clock);
  const waited = options.timeoutMs > 0;
  // A namespace whose DELETE answered 409 has no version yet: one GET round first.
  if (pendingOf(t).some((n) => !t.versions.has(n))) await check();
  const stop =
    waited && options.log
      ? startHeartbeat({
          what: 'namespaces',
          budgetMs: options.timeoutMs,
          log: options.log,
          read: () => ({ left: pendingOf(t).map((n) => waitingOnNamespace(n, t)), total: t.names.length }),
        })
      : () => undefined;
  try {
    const watching =
      options.watch !== false &&
      waited &&
      (await watchUntilNamespacesGone(api, t, check, { deadline, clock, log: options.log }));
    if (!watching) {
      try {
        await waitFor(check, {
          timeoutMs: Math.max(1, deadline - clock.now()),
          description: `namespaces ${t.names.join(', ')} to be gone`,
          clock,
        });
      } catch (error) {
        if (!(error instanceof WaitTimeoutError)) throw error;
      }
    }
  } finally {
    stop();
  }
  // The namespaces held by known blockers: one look, after the wait for the others.
  const looked = t.names.filter((n) => lookOnce.has(n) && !t.absent.has(n) && !t.refused.has(n));
  if (looked.length > 0) await getPending(api, { ...t, notAwaited: new Set(), names: looked }, clock);
  return t.names.map((name) => {
    const outcome = namespaceOutcome(name, t, { ...options, waited: waited || lookOnce.has(name), clock });
    if (outcome.status !== 'stuck' || !lookOnce.has(name)) return outcome;
    return { ...outcome, waitSkipped: lookOnce.get(name)! };
  });
}

/**
 * The watch part of `awaitNamespacesGone`: watches the pending namespaces window after window
 * (a GET round between windows) until none is pending or the deadline passes. A 410 Gone runs
 * a GET round and watches on (three times at most).
 * @returns true when it watched to the end; false when a watch (or a GET round between
 *   windows) failed, which is logged, and the rest of the wait is GET rounds.
 * @throws ClusterAccessError; what a GET round after a 410 throws.
 */
async function watchUntilNamespacesGone(
  api: ApiClient,
  t: NamespaceTracker,
  check: () => Promise<unknown>,
  options: { deadline: number; clock: Clock; log?: (line: string) => void },
): Promise<boolean> {
  const { deadline, clock } = options;
  let goneRetries = 0;
  while (pendingOf(t).length > 0 && deadline - clock.now() > 0) {
    try {
      await watchNamespaces(api, pendingOf(t), t.versions, {
        seconds: Math.min(watchWindowSeconds, (deadline - clock.now()) / 1000),
        onEvent: (name, type, ns) => {
          if (type === 'DELETED') t.goneAt.set(name, clock.now());
          else t.last.set(name, ns);
        },
        done: () => pendingOf(t).length === 0,
      });
      if (pendingOf(t).length > 0) await check();
    } catch (error) {
      if ((error as Error)?.name === 'ClusterAccessError') throw error;
      // 410 Gone: the versions are older than the watch cache; GET them afresh (a few times).
      if (error instanceof KubernetesApiError && error.status === 410 && ++goneRetries <= 3) await check();
      else {
        options.log?.(
          `watch of namespaces failed (${(error as Error)?.message ?? String(error)}); listing instead`,
        );
        return false;
      }
    }
  }
  return true;
}

/**
 * Pure: the deletion conditions of a namespace that are True, sorted by type (the namespace
 * controller's NamespaceDeletion* and Namespace*Remaining conditions).
 */
function blockingConditionsOf(ns: NamespaceObject | undefined): NamespaceCondition[] {
  return (ns?.status?.conditions ?? [])
    .filter((c) => c.status === 'True')
    .map((c) => ({ type: c.type, status: c.status, reason: c.reason ?? '', message: c.message ?? '' }))
    .sort((a, b) => a.type.localeCompare(b.type));
}

/**
 * What became of one namespace when the wait ended (see `NamespaceOutcome`), logging why one
 * that is still there is stuck, or that it was not waited for.
 */
function namespaceOutcome(
  name: string,
  t: NamespaceTracker,
  options: { waited: boolean; cutShort?: boolean; clock: Clock; log?: (line: string) => void },
): NamespaceOutcome {
  const { clock } = options;
  const since = t.requestedAt.get(name)!;
  const none = { blockingConditions: [], finalizers: [], metadataFinalizers: [] };
  if (t.absent.has(name)) return { name, status: 'absent', durationMs: 0, ...none };
  const refused = t.refused.get(name);
  if (refused) return { name, status: 'refused', durationMs: 0, message: describeRefusal(refused), ...none };
  const guarded = t.guarded.get(name);
  if (guarded !== undefined)
    return {
      name,
      status: 'protected',
      durationMs: 0,
      message: `protected (${guarded}) when read just before its DELETE`,
      ...none,
    };
  if (t.goneAt.has(name))
    return { name, status: 'deleted', durationMs: t.goneAt.get(name)! - since, ...none };
  const unchecked = t.unchecked.get(name);
  if (unchecked !== undefined) {
    options.log?.(`namespace ${name}: deletion requested, could not check it: ${unchecked}`);
    return {
      name,
      status: 'not-waited',
      message: `could not check: ${unchecked}`,
      durationMs: clock.now() - since,
      ...none,
    };
  }
  if (!options.waited) {
    options.log?.(`namespace ${name}: deletion requested, not waited for (the overall timeout ran out)`);
    return { name, status: 'not-waited', durationMs: 0, ...none };
  }
  const ns = t.last.get(name);
  const blocking = blockingConditionsOf(ns);
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
        `namespace ${name}: still Terminating when the overall timeout ran out after ${Math.round((clock.now() - since) / 1000)} s; its conditions name no cause (raise ${inputRef(Inputs.timeout)})`,
      );
      return { name, status: 'not-waited', durationMs: clock.now() - since, ...none };
    }
    options.log?.(
      `namespace ${name} is still Terminating and its conditions name no cause yet (still in progress?)`,
    );
  }
  return {
    name,
    status: 'stuck',
    durationMs: clock.now() - since,
    blockingConditions: blocking,
    finalizers: ns?.spec?.finalizers ?? [],
    metadataFinalizers,
  };
}
