/**
 * The last check before each DELETE a teardown sends: the same protection the plan applied
 * (plan/protected-namespaces.ts `protectionReason`: the control-plane and kube-* names, the
 * `protect` input, the kube-sweep.io/protected=true label), with the namespace's labels read
 * again just before the request, so that a namespace labelled protected after the plan was made
 * is not deleted, nor anything in it.
 */
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import {
  isProtectedNamespace,
  nameProtectionOnly,
  protectionNow,
  protectionReason,
  type NamespaceProtection,
} from '../plan/protected-namespaces.js';

/** A namespace as the guard read it (core/v1 Namespace, the fields it uses). */
interface NamespaceRead {
  readonly metadata?: {
    readonly labels?: Readonly<Record<string, string>>;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly deletionTimestamp?: string;
  };
}

/**
 * What the guard found: `absent` (404); `protected` with the reason (`protectionReason` words);
 * `allowed` with the uid and resourceVersion it read (a DELETE can carry them as preconditions,
 * so that a change made after this read, such as the label, fails the DELETE with 409 Conflict
 * instead of being ignored) and whether the namespace is already Terminating.
 */
export type NamespaceGuard =
  | { readonly status: 'absent' }
  | { readonly status: 'protected'; readonly reason: string }
  | {
      readonly status: 'allowed';
      readonly uid?: string;
      readonly resourceVersion?: string;
      readonly terminating: boolean;
    };

/**
 * Reads namespace `name` now and judges it with the plan's protection (`protectionNow`: its
 * current labels added). A namespace protected by its name alone is judged without a request.
 * @param protection the plan's `scope.protection` (absent in plans built by hand: names only)
 * @throws what the API throws other than 404 (the caller sends no DELETE then).
 */
export async function guardNamespace(
  api: ApiClient,
  name: string,
  protection: NamespaceProtection = nameProtectionOnly,
): Promise<NamespaceGuard> {
  if (isProtectedNamespace(name)) return { status: 'protected', reason: protectionReason(name, protection)! };
  let ns: NamespaceRead;
  try {
    ns = await api.request<NamespaceRead>({ path: `/api/v1/namespaces/${encodeURIComponent(name)}` });
  } catch (error) {
    if (error instanceof KubernetesApiError && error.status === 404) return { status: 'absent' };
    throw error;
  }
  const reason = protectionReason(
    name,
    protectionNow(protection, { name, labels: ns?.metadata?.labels ?? {} }),
  );
  if (reason !== undefined) return { status: 'protected', reason };
  return {
    status: 'allowed',
    ...(ns?.metadata?.uid ? { uid: ns.metadata.uid } : {}),
    ...(ns?.metadata?.resourceVersion ? { resourceVersion: ns.metadata.resourceVersion } : {}),
    terminating: Boolean(ns?.metadata?.deletionTimestamp),
  };
}

/**
 * The first of `namespaces` (each read now, `guardNamespace`) that is protected, with why; a
 * namespace that is not there protects nothing. Undefined when none is.
 * @throws what the API throws other than 404.
 */
export async function protectedAmong(
  api: ApiClient,
  namespaces: Iterable<string>,
  protection: NamespaceProtection | undefined,
): Promise<{ readonly namespace: string; readonly reason: string } | undefined> {
  for (const namespace of new Set(namespaces)) {
    const guard = await guardNamespace(api, namespace, protection);
    if (guard.status === 'protected') return { namespace, reason: guard.reason };
  }
  return undefined;
}
