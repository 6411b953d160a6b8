/**
 * The refusal model: a request kube-sweep sent to change the cluster that the API server
 * refused, as data every stage may carry and render (teardown and remediation record it, the
 * rules judge it, the report shows it). cluster/refusal.ts reads one from an API error.
 */
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
 * DELETE of the teardown (cluster/refusal.ts `deletionRefusalOf`), also any other answer that is
 * not success once the client's retries are spent: a 5xx (a webhook with `failurePolicy: Fail`
 * whose backend timed out or cannot be reached makes the API server answer 500 InternalError), a
 * 429. The server's message is kept as it came (untrusted text: renderers escape it).
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

/** Pure: one line for logs and outcomes: `refused (HTTP 422 Invalid): <the server's message>`. */
export function describeRefusal(r: Pick<RefusedRequest, 'status' | 'reason' | 'message'>): string {
  return `refused (HTTP ${r.status}${r.reason ? ` ${r.reason}` : ''}): ${r.message}`;
}
