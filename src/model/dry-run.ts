/**
 * What a dry run and a plan show before anything is deleted, as data: the dry run's stages
 * (teardown/dry-run.ts `dryRunOf` builds them) and the blast radius (teardown/blast-radius.ts
 * `blastRadiusOf`). The result model: report/ renders it without importing teardown/.
 */
import type { ObjectRef } from '../inventory/types.js';
import type { PlannedRemoval } from './teardown-result.js';

/** An object a teardown would delete (or leave on purpose). */
export type DryRunObject = ObjectRef;

/** A release the teardown would skip, why, and the custom resources foreseen to hold it. */
export interface DryRunSkip {
  readonly release: string;
  /** What the real run would say (`strandedReason`, the decision it makes). */
  readonly reason: string;
  /** The instances of its CRDs foreseen to outlive their deletion, each with the snapshot's reason. */
  readonly instances: readonly { readonly object: DryRunObject; readonly why: string }[];
}

/** What one stage of the teardown would do. */
export interface DryRunStage {
  readonly index: number;
  /** Releases the stage would remove (keys `namespace/name`); the skipped ones are in `skipped`. */
  readonly releases: readonly string[];
  /**
   * How each release would be removed (`uninstall-mode`): `namespace`, with the namespaces the
   * stage's end deletes, or `helm` (`helm uninstall`), with why not by namespace.
   */
  readonly removals: readonly (PlannedRemoval & { readonly reason?: string })[];
  /**
   * Releases the stage would not uninstall: instances of their CRDs that the snapshot foretells
   * would still be there after their wait (`outlivesDeletion`). Their objects are not deleted
   * and their namespace is kept, as in the real run.
   */
  readonly skipped: readonly DryRunSkip[];
  /** Instances of the stage's CRDs in the scoped namespaces, deleted first (from the snapshot). */
  readonly crdInstances: readonly DryRunObject[];
  /** Objects of the releases' manifests that go with the uninstall. */
  readonly objects: readonly DryRunObject[];
  /** Objects with `helm.sh/resource-policy: keep`, which Helm leaves in place. */
  readonly kept: readonly DryRunObject[];
}

/** `dry-run: true` with `mode: teardown`: what the teardown would delete, and that it deleted nothing. */
export interface DryRunSummary {
  readonly stages: readonly DryRunStage[];
  /** Namespaces that would be deleted (never a protected one, nor the namespace of a skipped release). */
  readonly namespaces: readonly string[];
  /** Total objects named above (CRD instances, manifest objects and namespaces; kept ones excluded). */
  readonly objectCount: number;
}

/** An object a teardown deletes outside the namespaces it deletes, and who deletes it. */
export interface BlastRadiusObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent for a cluster-scoped object. */
  readonly namespace?: string;
  readonly name: string;
  /** The release (`namespace/name`) whose manifest holds it. */
  readonly release: string;
  /**
   * `helm`: `helm uninstall` deletes it; `kube-sweep`: kube-sweep deletes it itself, with its own
   * identity (`uninstall-mode: auto`, the release removed with its namespaces).
   */
  readonly by: 'helm' | 'kube-sweep';
}

/**
 * Everything a teardown of the plan deletes, named, shown first by the plan and the dry run
 * (issue 21): the namespaces (with all they hold), the releases (and how each goes), the
 * cluster-scoped objects of their manifests, and their namespaced objects outside the namespaces
 * in scope. Objects kept by `helm.sh/resource-policy: keep` are not in it.
 */
export interface BlastRadius {
  readonly namespaces: readonly string[];
  readonly releases: readonly PlannedRemoval[];
  readonly clusterScoped: readonly BlastRadiusObject[];
  /** Namespaced objects of the releases outside the namespaces in scope. */
  readonly otherNamespaces: readonly BlastRadiusObject[];
}
