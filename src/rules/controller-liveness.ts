/**
 * Live evidence that a controller runs, read from the snapshot: a Lease that its holder renewed
 * recently enough, a workload with available replicas. A Lease that nobody renews, or a
 * Deployment scaled to zero, is a footprint of a controller, not evidence that it runs
 * (scenario S20: a stale leader-election Lease must not pass for a live operator).
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { fullObjectsOf, type LeaseObject, type WorkloadObject } from './kubernetes-objects.js';
import { formatDuration } from './snapshot-views.js';

/**
 * Seconds a Lease may be older than its `leaseDurationSeconds` and still count as held. Its
 * `renewTime` is written with the holder's clock and compared with the snapshot's start on the
 * machine that runs kube-sweep, so the grace covers clock skew between the two. client-go's
 * leader election renews every RetryPeriod (2 s by default) and gives up leadership after
 * RenewDeadline (10 s), within LeaseDuration (15 s) (k8s.io/client-go/tools/leaderelection), so a
 * live holder is always well inside the duration; 10 s of grace does not make a dead one live
 * for long.
 */
export const leaseGraceSeconds = 10;

/** Whether an object counts as a running controller, and the words that say why. */
export interface Liveness {
  readonly live: boolean;
  /** `1 of 1 replicas available`, `renewed 3s before the snapshot (leaseDurationSeconds 15)`. */
  readonly reason: string;
}

/**
 * Pure: whether `lease` was renewed within `leaseDurationSeconds` + `leaseGraceSeconds` before
 * `snapshotMs` (the snapshot's start, ms). A Lease with no renewTime (released, or never
 * acquired) or no duration is not live.
 */
export function leaseLiveness(lease: LeaseObject, snapshotMs: number): Liveness {
  const renew = lease.spec?.renewTime ?? lease.spec?.acquireTime;
  const duration = lease.spec?.leaseDurationSeconds;
  const renewed = renew ? Date.parse(renew) : Number.NaN;
  if (Number.isNaN(renewed)) return { live: false, reason: 'never renewed (no renewTime)' };
  const age = Math.max(0, Math.floor((snapshotMs - renewed) / 1000));
  if (duration === undefined)
    return {
      live: false,
      reason: `renewed ${formatDuration(age)} before the snapshot, no leaseDurationSeconds`,
    };
  const live = age <= duration + leaseGraceSeconds;
  return {
    live,
    reason:
      `renewed ${formatDuration(age)} before the snapshot, ${live ? 'within' : 'past'} its leaseDurationSeconds ` +
      `${duration} + ${leaseGraceSeconds} s grace` +
      (lease.spec?.holderIdentity ? `, holder ${lease.spec.holderIdentity}` : ', no holder'),
  };
}

/** Pure: whether a Deployment, StatefulSet or DaemonSet has at least one available replica. */
export function workloadLiveness(workload: WorkloadObject): Liveness {
  const daemonSet = workload.kind === 'DaemonSet';
  const available = (daemonSet ? workload.status?.numberAvailable : workload.status?.availableReplicas) ?? 0;
  const wanted = (daemonSet ? workload.status?.desiredNumberScheduled : workload.spec?.replicas) ?? 0;
  return {
    live: available > 0,
    reason: `${available} of ${wanted} ${daemonSet ? 'scheduled pods' : 'replicas'} available`,
  };
}

/** The resources that can show a controller running, as `<group>/<resource>`. */
export const liveEvidenceResources = [
  'apps/deployments',
  'apps/statefulsets',
  'apps/daemonsets',
  'coordination.k8s.io/leases',
] as const;

type EvidenceResource = 'deployments' | 'statefulsets' | 'daemonsets' | 'leases';

/**
 * Pure: the pods of a workload, not being deleted: a Deployment's through its ReplicaSets, a
 * StatefulSet's or DaemonSet's directly (ownerReferences, by UID).
 */
function podsOf(inventory: Inventory, workload: ObjectMetadata): ObjectMetadata[] {
  const isPod = (o: ObjectMetadata) => groupOf(o.apiVersion) === '' && o.resource === 'pods';
  const children = inventory.dependentsByOwnerUid.get(workload.uid) ?? [];
  const owners =
    workload.resource === 'deployments'
      ? children.filter((c) => groupOf(c.apiVersion) === 'apps' && c.resource === 'replicasets')
      : [workload];
  return owners
    .flatMap((owner) => (inventory.dependentsByOwnerUid.get(owner.uid) ?? []).filter(isPod))
    .filter((p) => !p.deletionTimestamp);
}

/**
 * Pure: live Leases by the pod name their holder identity starts with: client-go's leader
 * election names the holder `<hostname>_<uuid>` and a pod's hostname is its name
 * (k8s.io/client-go/tools/leaderelection/resourcelock); a holder with no `_` is taken whole.
 * Node heartbeats (kube-node-lease) are left out.
 */
function leasesByHolderPod(
  inventory: Inventory,
  snapshotMs: number,
): Map<string, { lease: LeaseObject; liveness: Liveness }[]> {
  const byPod = new Map<string, { lease: LeaseObject; liveness: Liveness }[]>();
  for (const lease of fullObjectsOf(inventory, 'leases')) {
    const holder = lease.spec?.holderIdentity;
    if (!holder || lease.metadata?.namespace === 'kube-node-lease') continue;
    const liveness = leaseLiveness(lease, snapshotMs);
    if (!liveness.live) continue;
    const key = `${lease.metadata?.namespace ?? ''}\0${holder.split('_')[0]!}`;
    byPod.set(key, [...(byPod.get(key) ?? []), { lease, liveness }]);
  }
  return byPod;
}

/**
 * Pure: a function that tells the liveness of a listed Deployment, StatefulSet, DaemonSet or
 * Lease (by its metadata; the whole object is found by UID). A workload is live with an
 * available replica, or, with none available (a node's short NotReady window makes a running
 * pod unavailable), when one of its pods that is not being deleted holds a Lease in the
 * workload's namespace that was renewed in time (`leaseLiveness`): the pod runs and renews it.
 * Objects of other kinds, and objects whose whole body the snapshot does not hold, are not live.
 */
export function livenessReader(inventory: Inventory): (o: ObjectMetadata) => Liveness {
  const wholes = new Map<string, { resource: EvidenceResource; whole: unknown }>();
  for (const resource of ['deployments', 'statefulsets', 'daemonsets', 'leases'] as const)
    for (const whole of fullObjectsOf(inventory, resource))
      if (whole.metadata?.uid) wholes.set(whole.metadata.uid, { resource, whole });
  const snapshotMs = Date.parse(inventory.takenAt);
  let leases: ReturnType<typeof leasesByHolderPod> | undefined;
  return (o) => {
    const key = `${groupOf(o.apiVersion)}/${o.resource}`;
    if (!(liveEvidenceResources as readonly string[]).includes(key))
      return { live: false, reason: `a ${o.kind} is no evidence that a controller runs` };
    const found = wholes.get(o.uid);
    if (!found) return { live: false, reason: 'its status is not in the snapshot' };
    if (found.resource === 'leases') return leaseLiveness(found.whole as LeaseObject, snapshotMs);
    const workload = workloadLiveness({ ...(found.whole as WorkloadObject), kind: o.kind });
    if (workload.live) return workload;
    leases ??= leasesByHolderPod(inventory, snapshotMs);
    for (const pod of podsOf(inventory, o)) {
      const held = leases.get(`${o.namespace ?? ''}\0${pod.name}`)?.[0];
      if (held)
        return {
          live: true,
          reason:
            `${workload.reason}, but its pod ${pod.name} holds Lease ${o.namespace ?? ''}/${held.lease.metadata?.name ?? ''}, ` +
            held.liveness.reason,
        };
    }
    return workload;
  };
}
