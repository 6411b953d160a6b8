import type { RefusedRequest } from '../kube/refusal.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectRef } from '../inventory/types.js';
import type { Finding } from './findings.js';
import type { FindingCode } from './codes.js';

/** What every rule gets besides the snapshot. */
export interface RuleContext {
  /** Evaluation time in ms since the epoch; ages (deletionTimestamp, conditions) are measured against it. */
  readonly now: number;
  /**
   * Seconds after an object's deletionTimestamp from which its deletion counts as stuck
   * (namespaces, finalizers, CRDs). Younger deletions are in progress and not reported.
   */
  readonly stuckAfterSeconds: number;
  /**
   * Namespaces of the environment being torn down. Findings about objects in them, or about
   * cluster-scoped objects whose backend Service lives in them, get scope `environment`.
   */
  readonly environmentNamespaces: ReadonlySet<string>;
  /**
   * Helm releases known to have been removed: uninstalled by this run's teardown. (Releases
   * uninstalled with --keep-history are known from the snapshot.) Default: none.
   */
  readonly removedReleases?: readonly { readonly namespace: string; readonly name: string }[];
  /**
   * Helm release Secrets in scope whose record could not be used (plan, dry run and teardown
   * decode them; src/helm/release-storage.ts): not decodable, inflating too far, or not a
   * valid release. Default: none.
   */
  readonly invalidReleaseRecords?: readonly InvalidReleaseRecord[];
  /**
   * Requests of this run's own (teardown deletes, remediation) that the API server refused,
   * as the run recorded them (rules/deletion-refused.ts). Default: none.
   */
  readonly refusals?: readonly RefusedRequest[];
  /**
   * Objects that Helm hooks of the releases this run's teardown handled made and nobody deleted,
   * each with that release (the teardown's `hookLeftovers`: it read the releases' stored hook
   * manifests). Helm sets no release annotation on hook objects, so nothing else can name their
   * release. Default: none.
   */
  readonly hookLeftovers?: readonly HookObjectOfRelease[];
}

/** An object a Helm hook of `release` made, as the teardown found it. */
export interface HookObjectOfRelease {
  readonly object: ObjectRef;
  readonly release: { readonly namespace: string; readonly name: string };
}

/** A Helm release Secret (or ConfigMap) whose record kube-sweep refused to use, and why. */
export interface InvalidReleaseRecord {
  /** The record's kind; default Secret. */
  readonly kind?: 'Secret' | 'ConfigMap';
  readonly namespace: string;
  /** The Secret's (or ConfigMap's) name. */
  readonly secret: string;
  /** Why (the decoder's message, which names the Secret). */
  readonly reason: string;
}

/** Defaults of the rule thresholds (the config module owns the user-facing inputs). */
export const defaultRuleSettings = {
  /** Five minutes: a namespace with a few thousand objects finishes well within that. */
  stuckAfterSeconds: 300,
} as const;

/**
 * One rule: a pure function from the snapshot to findings. Rules never call the API; what the
 * snapshot could not read (coverage gaps) makes a rule say less, never something false.
 */
export interface Rule {
  /** Kebab-case name, also the file name (`namespace-stuck`). */
  readonly name: string;
  readonly title: string;
  /** Every code the rule can emit. */
  readonly codes: readonly FindingCode[];
  check(inventory: Inventory, context: RuleContext): Finding[];
}
