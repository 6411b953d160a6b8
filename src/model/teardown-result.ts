/**
 * What a teardown reports, as data: each release's outcome, each stage's result, each
 * namespace's outcome, the objects Helm hooks left, and the whole teardown's result. The result
 * model: teardown/ builds it (run-teardown.ts returns it), the engine hands it to report/, which
 * renders it without importing teardown/.
 */
import type { RefusedRequest } from '../kube/refusal.js';

/** How a release would be removed: by `helm uninstall`, or with its namespaces (`uninstall-mode: auto`). */
export interface PlannedRemoval {
  /** `namespace/name`. */
  readonly release: string;
  readonly method: 'helm' | 'namespace';
  /**
   * `configmap` for a release of Helm's configmap driver (helm finds it only with
   * `HELM_DRIVER=configmap`); absent for a release stored in Secrets (Helm's default driver).
   */
  readonly helmDriver?: 'configmap';
}

/**
 * Pure: how a removal is said to a reader: `with its namespace`, `helm uninstall`, or for a
 * configmap-driver release `HELM_DRIVER=configmap helm uninstall` (the command a user would run).
 */
export function removalWords(r: Pick<PlannedRemoval, 'method' | 'helmDriver'>): string {
  if (r.method === 'namespace') return 'with its namespace';
  return `${r.helmDriver ? `HELM_DRIVER=${r.helmDriver} ` : ''}helm uninstall`;
}

/** Outcome of one `helm uninstall`. Durations in ms. */
export interface ReleaseOutcome {
  readonly release: string;
  /**
   * `skipped`: not uninstalled because custom resources of a CRD it ships are still there
   * (uninstalling would take their controller away and strand their finalizers).
   */
  readonly status: 'uninstalled' | 'failed' | 'skipped';
  /**
   * `helm`: by `helm uninstall`. `namespace`: without Helm, as `removalWithNamespaces` allows
   * (no delete hooks; its record and namespaced objects go with namespaces this teardown
   * deletes, its other objects deleted by kube-sweep in Helm's uninstall order).
   */
  readonly method: 'helm' | 'namespace';
  /**
   * `configmap` when `helm uninstall` ran for a release of Helm's configmap driver (with
   * `HELM_DRIVER=configmap`); absent for Secrets and for removals without Helm.
   */
  readonly helmDriver?: 'configmap';
  readonly helmStatusBefore: string;
  readonly durationMs: number;
  /** Helm's error (last lines of stderr) when it failed. */
  readonly message?: string;
}

/** Custom resources deleted before their CRD's release went. */
export interface CrdInstancesOutcome {
  readonly crd: string;
  readonly namespaces: readonly string[];
  /** Instances still there when the wait ended (with the finalizers that hold them). */
  readonly remaining: readonly Blocker[];
}

export interface StageResult {
  readonly index: number;
  readonly releases: readonly ReleaseOutcome[];
  readonly crdInstances: readonly CrdInstancesOutcome[];
  /** Objects of the stage's manifests still present when the wait ended. */
  readonly remaining: readonly Blocker[];
  /** Objects kept on purpose (annotation helm.sh/resource-policy: keep), not awaited. */
  readonly kept: readonly { apiVersion: string; kind: string; namespace?: string; name: string }[];
  /**
   * Manifest kinds the API no longer serves and whose group-version did not fail discovery:
   * their CRD went before the release that uses them (scenario S09), and their objects with it.
   */
  readonly unservedKinds: readonly string[];
  /** Manifest kinds whose group-version failed discovery: their objects could not be checked. */
  readonly unverifiableKinds: readonly string[];
  /** Requests that failed while deleting or waiting (e.g. 403): what they could not check. */
  readonly errors: readonly string[];
  /** When the stage started and ended (RFC 3339, ms precision); its budget runs from `startedAt`. */
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationMs: number;
  /**
   * Where the stage's time went, in ms: deleting and awaiting custom resources first, the
   * removal (`helm uninstall` processes, deletes of objects outside deleted namespaces, and
   * deleting and emptying the namespaces whose last stage this is), and the wait for the
   * manifests' objects.
   */
  readonly stepsMs: { readonly crdInstances: number; readonly uninstall: number; readonly wait: number };
}

/**
 * An object a Helm hook made that is still there, with the release whose hook made it: Helm
 * sets no release annotation on hook objects, so only the teardown, which read the release's
 * stored hook manifests, can name it.
 */
export interface HookLeftover extends Blocker {
  /** The release (`<namespace>/<name>`) whose stored hook manifest holds the object. */
  readonly release: string;
}

/** Result of a teardown; `leftovers` when anything remains or failed. */
export interface TeardownResult {
  readonly stages: readonly StageResult[];
  readonly namespaces: readonly NamespaceOutcome[];
  /**
   * Objects that Helm hooks of the torn-down releases created and nobody deleted (a hook
   * without a delete policy, e.g. a post-install ClusterRole): Helm never removes them. Looked
   * for right after each release is removed, before its namespaces may be deleted (a
   * namespaced one then goes with its namespace: report.ts `goneWithNamespace`), and after the
   * stages for the rest.
   */
  readonly hookLeftovers: readonly HookLeftover[];
  /** Checks after the stages that failed (e.g. looking for the hooks' objects): not verified. */
  readonly errors: readonly string[];
  /**
   * Requests of kube-sweep's own that the API server refused (RBAC, admission, quota), in the
   * order they were answered: a namespace's DELETE (that namespace is `refused`), a release's
   * object deleted without Helm (that release `failed`), a namespace's deletecollection (left to
   * the namespace controller). The teardown went on after each. Absent in reports written
   * before it existed.
   */
  readonly refusals?: readonly RefusedRequest[];
  readonly durationMs: number;
  /** True when the overall `timeout` ran out (later waits were cut short). */
  readonly timedOut: boolean;
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
}
