/**
 * What became of a namespace a teardown deleted (`NamespaceOutcome`, with the conditions the
 * namespace controller set): the data namespaces.ts returns and report/ renders.
 */
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
   * `not-waited`: deletion requested, but the overall `timeout` had run out (or cut the wait
   *   short: less than a `stage-timeout` was left for it, and the namespace's conditions named no
   *   cause when it ended), so it was not waited for long enough. A namespace waited for a whole
   *   `stage-timeout` and still Terminating is `stuck`, whatever its conditions say.
   * `refused`: the API server refused its DELETE (RBAC, an admission policy or webhook, a
   *   quota); it is still there, not Terminating, and `message` quotes the server.
   * `protected`: kube-sweep sent no DELETE: read just before it, the namespace was protected
   *   (the `protect` input, the kube-sweep.io/protected=true label added after the plan was
   *   made: teardown/scope-guard.ts); it is still there, and `message` says why.
   */
  readonly status: 'deleted' | 'stuck' | 'absent' | 'not-waited' | 'refused' | 'protected';
  /**
   * For `refused`: `refused (HTTP <status> <reason>): <the server's message>`; for `protected`:
   * `protected (<why>) when read just before its DELETE`. For `not-waited` when the overall
   * timeout is not why: what stopped the wait (`could not check: <the error>` when reading the
   * namespace failed, or the run stopped before it was seen gone).
   */
  readonly message?: string;
  /**
   * From the namespace's deletion request until the wait saw it gone. The wait starts after
   * the last stage, so for a namespace deleted during an earlier stage this is an upper
   * bound (it may have gone long before).
   */
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
  /**
   * Set when the namespace was looked at once, not awaited: it holds an object known not to
   * go (predicted to hang, or already waited out; known-blockers.ts). Says which and why.
   */
  readonly waitSkipped?: string;
}
