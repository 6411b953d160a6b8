import { KubernetesApiError } from './errors.js';

/**
 * What kube-sweep was doing when a request was refused: deleting a namespace of the scope
 * (`delete-namespace`), deleting a release's object outside the deleted namespaces itself
 * (`delete-object`, `uninstall-mode: auto`), emptying a namespace whose deletion was accepted
 * (`empty-namespace`, one deletecollection), or an action of `remediate: safe` (`remediation`).
 */
export type RefusedStep = 'delete-namespace' | 'delete-object' | 'empty-namespace' | 'remediation';

/**
 * A request kube-sweep sent to change the cluster that the API server answered with a
 * refusal: RBAC (403 Forbidden), an admission denial (a ValidatingAdmissionPolicy: 422 Invalid
 * unless its `reason` says otherwise; a webhook: the status it chose), a quota (403); for a
 * DELETE of the teardown (`deletionRefusalOf`), also any other answer that is not success once
 * the client's retries are spent: a 5xx (a webhook with `failurePolicy: Fail` whose backend
 * timed out or cannot be reached makes the API server answer 500 InternalError), a 429. The
 * server's message is kept as it came (untrusted text: renderers escape it).
 */
export interface RefusedRequest {
  readonly step: RefusedStep;
  /** The request as sent, method and path (`DELETE /api/v1/namespaces/pr-1`). */
  readonly request: string;
  /**
   * The object the request was for; for a deletecollection (`empty-namespace`), the namespace
   * whose collection it was.
   */
  readonly object: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly namespace?: string;
    readonly name: string;
  };
  /** The namespace of the environment the request served (a release's own namespace), if any. */
  readonly environmentNamespace?: string;
  /**
   * HTTP status of the answer: 400–499 but 404, 408, 409 and 429 (`refusalOf`); for a
   * teardown's DELETE (`deletionRefusalOf`) any status but 404 and 409 (500 for a failing webhook).
   */
  readonly status: number;
  /** Status.reason (Forbidden, Invalid, BadRequest), may be empty. */
  readonly reason: string;
  /** Status.message: what refused the request and why, as the server said it. */
  readonly message: string;
}

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

/** Pure: one line for logs and outcomes: `refused (HTTP 422 Invalid): <the server's message>`. */
export function describeRefusal(r: Pick<RefusedRequest, 'status' | 'reason' | 'message'>): string {
  return `refused (HTTP ${r.status}${r.reason ? ` ${r.reason}` : ''}): ${r.message}`;
}
