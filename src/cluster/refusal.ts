import type { RefusedRequest } from '../kube/refusal.js';
import { KubernetesApiError } from './errors.js';

/** Answers that are not a refusal: gone already (404), a conflict (409), try later (408, 429). */
const notRefusals = new Set([404, 408, 409, 429]);

/**
 * Pure: whether `error` is the API server refusing the request (a 4xx answer other than 404,
 * 408, 409 and 429): RBAC, admission, quota, validation. Retrying will not change it; the
 * caller records it and goes on. A 5xx, a transport error or anything else is not a refusal.
 */
export function isRefusal(error: unknown): error is KubernetesApiError {
  return (
    error instanceof KubernetesApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    !notRefusals.has(error.status)
  );
}

/**
 * Pure: the refusal that `error` is, for a request about `what`; undefined when `error` is not
 * a refusal (`isRefusal`).
 */
export function refusalOf(
  error: unknown,
  what: Pick<RefusedRequest, 'step' | 'object' | 'environmentNamespace'>,
): RefusedRequest | undefined {
  if (!isRefusal(error)) return undefined;
  return {
    step: what.step,
    request: `${error.method} ${error.path}`,
    object: what.object,
    ...(what.environmentNamespace !== undefined ? { environmentNamespace: what.environmentNamespace } : {}),
    status: error.status,
    reason: error.reason,
    message: error.apiMessage || error.message,
  };
}
