/**
 * The prediction model (teardown/prediction.ts computes it from the snapshot before any change):
 * what each object, namespace and release a teardown touches is expected to do, and after the
 * run what happened that it did not say (surprises). Data the engine hands report/.
 */
import { groupOf } from '../kube/api-version.js';

/** What deleting one object is expected to lead to. */
export type Expected = 'goes' | 'waits' | 'hangs' | 'stays';

/** An object's reference in a prediction (apiVersion, kind, namespace when namespaced, name). */
export interface PredictedRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

/** One object the teardown would touch (or leave), with what is expected of it and why. */
export interface PredictedObject {
  readonly object: PredictedRef;
  readonly expected: Expected;
  /** Why: the finalizer and the controller search, the Helm policy, the skip decision. */
  readonly evidence: string;
  /** For `hangs` and `stays`: what to do about it, before the teardown (a quoted command when one helps). */
  readonly remedy?: string;
  /** The release (`namespace/name`) it belongs to, when one does. */
  readonly release?: string;
  /** Its finalizers in the snapshot (a teardown skips the wait on a hang whose finalizers are unchanged). */
  readonly finalizers?: readonly string[];
}

/** One namespace of the scope, with what is expected of it. */
export interface PredictedNamespace {
  readonly name: string;
  readonly expected: 'goes' | 'hangs' | 'stays';
  readonly evidence: string;
  readonly remedy?: string;
}

/** One release of the plan, with what is expected of it. */
export interface PredictedRelease {
  readonly release: string;
  readonly expected: 'goes' | 'stays';
  readonly evidence: string;
}

/** The prediction: every object, namespace and release the teardown would touch, with the outcome expected. */
export interface Prediction {
  /** Sorted: hangs, stays, waits, goes; then kind, namespace, name. Each object once. */
  readonly objects: readonly PredictedObject[];
  readonly namespaces: readonly PredictedNamespace[];
  readonly releases: readonly PredictedRelease[];
  /** How many objects of each outcome (`objects` counted). */
  readonly counts: Readonly<Record<Expected, number>>;
}

/** Something that happened which the prediction did not say. */
export interface Surprise {
  readonly object: PredictedRef;
  /** What the prediction said (`unpredicted`: it did not name the object at all). */
  readonly expected: Expected | 'unpredicted';
  /** What happened: `left` (still there after the teardown), `gone`. */
  readonly actual: 'left' | 'gone';
  readonly message: string;
}

/**
 * Pure: an object's identity across a teardown's prediction and its waits: API group (not
 * version), kind, namespace, name.
 */
export const predictedId = (o: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
  JSON.stringify([groupOf(o.apiVersion), o.kind, o.namespace ?? '', o.name]);
