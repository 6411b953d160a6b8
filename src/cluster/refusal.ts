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
  return recordOf(error, what);
}

/** Pure: the record of an answer `error` to a request about `what`. */
function recordOf(
  error: KubernetesApiError,
  what: Pick<RefusedRequest, 'step' | 'object' | 'environmentNamespace'>,
): RefusedRequest {
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

/**
 * Pure: whether `error` is an answer of the API server to a DELETE that is neither success nor
 * "gone already" (404) nor "already being deleted" (409): a refusal (`isRefusal`), and also a
 * 5xx, 408 or 429 that the client's retries did not get past (a webhook with `failurePolicy:
 * Fail` that times out answers 500 every time). No answer at all (a transport error) is not one.
 */
export function isFailedDeletion(error: unknown): error is KubernetesApiError {
  return error instanceof KubernetesApiError && error.status !== 404 && error.status !== 409;
}

/**
 * Pure: the refusal that a failed DELETE of the teardown is (`isFailedDeletion`: any answer
 * but success, 404 and 409, so a 5xx of a failing webhook too), for a request about `what`;
 * undefined when `error` is no such answer (a transport error, a programming error).
 */
export function deletionRefusalOf(
  error: unknown,
  what: Pick<RefusedRequest, 'step' | 'object' | 'environmentNamespace'>,
): RefusedRequest | undefined {
  if (!isFailedDeletion(error)) return undefined;
  return recordOf(error, what);
}
