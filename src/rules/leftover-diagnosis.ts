/**
 * A diagnosis for every object a teardown left behind: which findings explain it and which
 * root causes those lead to, even when the root cause lies outside the environment (a
 * cluster-scoped object, a CRD, an APIService, a webhook whose backend lived in another
 * namespace). Pure; it reads the scan's findings (all of them, before `scan-scope` filters)
 * and the snapshot taken after the teardown.
 */
import type { Inventory } from '../inventory/snapshot.js';
import { coverageLabel, type ObjectMetadata, type ObjectRef } from '../inventory/types.js';
import { findingKey, type Finding } from './findings.js';
import { intercepts, webhookConfigurations } from './admission-webhooks.js';
import { fullObjectsOf, refOfWhole } from './kubernetes-objects.js';
import { findingsByObject, objectIdentity } from './link.js';
import { groupOf } from '../kube/api-version.js';
import { finalizerGroupSubject } from './stuck-finalizer.js';

/**
 * Where the teardown saw a leftover: `stage` (an object of a release's manifest still there
 * when its stage's wait ended), `crd-instances` (a custom resource deleted before its CRD's
 * release), `hook` (made by a Helm hook and never deleted), `namespace` (a namespace still
 * Terminating, or not waited for, when the teardown ended, or whose deletion was refused).
 */
export type LeftoverSource = 'stage' | 'crd-instances' | 'hook' | 'namespace';

/** One object the teardown left behind, as the teardown saw it. */
export interface Leftover {
  readonly object: ObjectRef;
  readonly source: LeftoverSource;
  /** What the teardown knows beyond the object (e.g. its stage's release was not uninstalled). */
  readonly note?: string;
}

/** A leftover with its diagnosis, for the report (`leftovers`). */
export interface LeftoverDiagnosis {
  readonly object: ObjectRef;
  readonly source: LeftoverSource;
  /**
   * Keys of the findings that explain this object directly: findings about it, about its
   * finalizers, about its CRD or APIService, about admission webhooks that reject its deletion
   * or the removal of its finalizers. Sorted.
   */
  readonly findings: readonly string[];
  /**
   * Keys of the root causes: the `findings`, followed along `causedBy` to the findings nothing
   * else causes. Sorted. Empty when no finding explains the object (see `reason`).
   */
  readonly rootCauses: readonly string[];
  /** One sentence: the object's state in the snapshot after the teardown, and the teardown's note. */
  readonly reason: string;
}

/** Pure: whether the snapshot still holds a leftover's object. */
export function leftoverStillThere(inventory: Inventory, ref: ObjectRef): boolean {
  return findObject(inventory, ref) !== undefined;
}

/**
 * Pure: whether the snapshot could not read the kind of `ref`, so that its absence proves
 * nothing: listing its resource left a coverage gap (403, 5xx, cut at the deadline), or
 * discovery of its group-version failed. A kind the cluster no longer serves at all (its CRD
 * is gone) is read: its objects are gone with it.
 */
export function leftoverUnreadable(inventory: Inventory, ref: ObjectRef): boolean {
  const gaps = new Set(inventory.coverage.map((g) => g.resource));
  const group = groupOf(ref.apiVersion);
  if (inventory.failedGroupVersions.some((f) => f.groupVersion === ref.apiVersion)) return true;
  return inventory.resources.some(
    (r) => r.group === group && r.kind === ref.kind && gaps.has(coverageLabel(r)),
  );
}

/** The snapshot's object for a leftover (matched by group, kind, namespace and name). */
function findObject(inventory: Inventory, ref: ObjectRef): ObjectMetadata | undefined {
  const id = objectIdentity(ref);
  const candidates =
    ref.namespace !== undefined
      ? (inventory.byNamespace.get(ref.namespace) ?? [])
      : inventory.objects.filter((o) => o.namespace === undefined && o.name === ref.name);
  return candidates.find((o) => objectIdentity(o) === id);
}

/**
 * Keys of the findings that can explain `o`: about the object itself, about each finalizer it
 * carries (the finalizer group of its namespace), about its CRD's conversion webhook being gone,
 * about the APIService of its group (discovery fails), and about admission webhooks that
 * intercept DELETE or UPDATE of its resource (they reject the delete or the finalizer's removal).
 */
function candidateKeys(o: ObjectMetadata, inventory: Inventory, byObject: ReadonlyMap<string, string[]>) {
  const group = groupOf(o.apiVersion);
  const keys = [...(byObject.get(objectIdentity(o)) ?? [])];
  for (const finalizer of o.finalizers ?? []) {
    const subject = finalizerGroupSubject(o.namespace, finalizer);
    keys.push(findingKey('OperatorGoneFinalizer', subject), findingKey('StuckFinalizer', subject));
  }
  for (const crd of fullObjectsOf(inventory, 'customresourcedefinitions')) {
    if (crd.spec?.group !== group || crd.spec?.names?.kind !== o.kind) continue;
    // Not CRDStuckTerminating: a stuck CRD waits for its instances, it does not hold them.
    keys.push(
      findingKey(
        'ConversionWebhookBackendMissing',
        refOfWhole('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd.metadata),
      ),
    );
  }
  if (group !== '') {
    for (const apiService of fullObjectsOf(inventory, 'apiservices')) {
      if (apiService.spec?.group !== group) continue;
      keys.push(
        findingKey(
          'StaleAPIService',
          refOfWhole('apiregistration.k8s.io/v1', 'APIService', apiService.metadata),
        ),
      );
    }
  }
  for (const c of webhookConfigurations(inventory)) {
    if (c.webhooks.some((w) => ['DELETE', 'UPDATE'].some((op) => intercepts(w, group, o.resource, op))))
      keys.push(
        findingKey('WebhookBackendMissing', {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: c.kind,
          name: c.name,
        }),
      );
  }
  return keys;
}

/** Pure: the keys reachable from `seeds` along `causedBy` that nothing else causes (the roots). */
function rootsOf(seeds: readonly string[], byKey: ReadonlyMap<string, Finding>): string[] {
  const roots = new Set<string>();
  const seen = new Set<string>();
  const queue = [...seeds];
  while (queue.length > 0) {
    const key = queue.shift()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const causes = (byKey.get(key)?.causedBy ?? []).filter((k) => byKey.has(k));
    if (causes.length === 0) roots.add(key);
    else queue.push(...causes);
  }
  return [...roots].sort();
}

function stateOf(o: ObjectMetadata | undefined): string {
  if (!o) return 'gone by the scan after the teardown';
  if (!o.deletionTimestamp) return 'still there and not being deleted';
  return o.finalizers?.length
    ? `deleting since ${o.deletionTimestamp}, held by finalizer${o.finalizers.length === 1 ? '' : 's'} ${o.finalizers.join(', ')}`
    : `deleting since ${o.deletionTimestamp}, no finalizer left`;
}

/**
 * Pure: a diagnosis per leftover, in input order. `findings` are all findings of the scan after
 * the teardown, linked (runRules), before `scan-scope` and `ignore` filter them; `inventory` is
 * that scan's snapshot. A leftover the snapshot no longer holds is reported gone, with no finding.
 */
export function diagnoseLeftovers(
  leftovers: readonly Leftover[],
  findings: readonly Finding[],
  inventory: Inventory,
): LeftoverDiagnosis[] {
  const byKey = new Map(findings.map((f) => [f.key, f]));
  const byObject = findingsByObject(findings);
  return leftovers.map((l) => {
    const o = findObject(inventory, l.object);
    const direct = o
      ? [...new Set(candidateKeys(o, inventory, byObject).filter((k) => byKey.has(k)))].sort()
      : [];
    const rootCauses = rootsOf(direct, byKey);
    const state = stateOf(o);
    const reason =
      (direct.length === 0 && o ? `${state}; no finding explains it` : state) + (l.note ? `; ${l.note}` : '');
    return { object: l.object, source: l.source, findings: direct, rootCauses, reason };
  });
}

/**
 * Pure: the findings among `all` (in their order) whose keys are `seeds` or causes of them,
 * followed along `causedBy`: what an environment's findings and leftovers lead to, wherever it is.
 */
export function withCauses(all: readonly Finding[], seeds: Iterable<string>): Finding[] {
  const byKey = new Map(all.map((f) => [f.key, f]));
  const keep = new Set<string>();
  const queue = [...seeds];
  while (queue.length > 0) {
    const key = queue.pop()!;
    if (keep.has(key) || !byKey.has(key)) continue;
    keep.add(key);
    queue.push(...(byKey.get(key)!.causedBy ?? []));
  }
  return all.filter((f) => keep.has(f.key));
}
