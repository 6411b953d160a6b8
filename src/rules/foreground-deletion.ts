/**
 * Foreground deletion along owner chains. An owner deleted with `propagationPolicy: Foreground`
 * gets a deletionTimestamp and the `foregroundDeletion` finalizer; kube-controller-manager's
 * garbage collector deletes its dependents and removes the finalizer only once every dependent
 * whose ownerReference to it has `blockOwnerDeletion: true` is gone
 * (kubernetes/kubernetes pkg/controller/garbagecollector/garbagecollector.go,
 * processDeletingDependentsItem and node.blockingDependents). So what holds such an owner is
 * what holds those dependents.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { capLines, describeObject } from './snapshot-views.js';

/** The finalizer the API server adds to an owner deleted with propagationPolicy Foreground. */
export const foregroundFinalizer = 'foregroundDeletion';

/** Whether `o` is an owner held in foreground deletion (deletionTimestamp and the finalizer). */
export function inForegroundDeletion(o: ObjectMetadata): boolean {
  return o.deletionTimestamp !== undefined && (o.finalizers ?? []).includes(foregroundFinalizer);
}

/**
 * Pure: the dependents of `owner` in the snapshot whose ownerReference to it (matched by UID)
 * has `blockOwnerDeletion: true`: the ones its foreground deletion waits for.
 */
export function blockingDependents(inventory: Inventory, owner: ObjectMetadata): ObjectMetadata[] {
  return (inventory.dependentsByOwnerUid.get(owner.uid) ?? []).filter((d) =>
    (d.ownerReferences ?? []).some((r) => r.uid === owner.uid && r.blockOwnerDeletion === true),
  );
}

/** `pods ns/web-0 [example.com/hold] (deleting since T)` or `... (not being deleted)`. */
function describeDependent(d: ObjectMetadata): string {
  const finalizers = d.finalizers?.length ? ` [${d.finalizers.join(', ')}]` : '';
  const state = d.deletionTimestamp ? `deleting since ${d.deletionTimestamp}` : 'not being deleted';
  return `${describeObject(d)}${finalizers} (${state})`;
}

/** What the foreground deletions of `owners` wait for: the message part and evidence lines. */
export interface ForegroundWait {
  /** Every blocking dependent of the owners, in snapshot order, without duplicates. */
  readonly dependents: readonly ObjectMetadata[];
  /** `they wait for 2 dependents with blockOwnerDeletion: configmaps ns/a, ...` */
  readonly message: string;
  readonly evidence: readonly string[];
}

/**
 * Pure: the dependents that the foreground deletion of each owner waits for, named, with their
 * finalizers and state. An owner with no blocking dependent in the snapshot is said so: the
 * garbage collector should drop its finalizer on its next pass (is it running?).
 */
export function foregroundWait(inventory: Inventory, owners: readonly ObjectMetadata[]): ForegroundWait {
  const evidence: string[] = [];
  const seen = new Set<string>();
  const dependents: ObjectMetadata[] = [];
  for (const owner of owners) {
    const blocking = blockingDependents(inventory, owner);
    if (blocking.length === 0) {
      evidence.push(
        `${describeObject(owner)} waits for no dependent with blockOwnerDeletion in the snapshot: the garbage ` +
          'collector removes foregroundDeletion on its next pass (if it stays, is kube-controller-manager running?)',
      );
      continue;
    }
    evidence.push(
      ...capLines(
        blocking.map(
          (d) => `${describeObject(owner)} waits for dependent ${describeDependent(d)} (blockOwnerDeletion)`,
        ),
      ),
    );
    for (const d of blocking) {
      if (seen.has(d.uid)) continue;
      seen.add(d.uid);
      dependents.push(d);
    }
  }
  const names = dependents.slice(0, 3).map(describeObject).join(', ');
  const more = dependents.length > 3 ? `, … ${dependents.length - 3} more` : '';
  const message = dependents.length
    ? `the garbage collector removes it only when ${dependents.length === 1 ? 'the dependent' : `the ${dependents.length} dependents`} with blockOwnerDeletion ${dependents.length === 1 ? 'is' : 'are'} gone (${names}${more})`
    : 'no dependent with blockOwnerDeletion remains, so the garbage collector should remove it';
  return { dependents, message, evidence };
}
