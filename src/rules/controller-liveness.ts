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
 * Pure: a function that tells the liveness of a listed Deployment, StatefulSet, DaemonSet or
 * Lease (by its metadata; the whole object is found by UID). Objects of other kinds, and
 * objects whose whole body the snapshot does not hold, are not live.
 */
export function livenessReader(inventory: Inventory): (o: ObjectMetadata) => Liveness {
  const wholes = new Map<string, { resource: EvidenceResource; whole: unknown }>();
  for (const resource of ['deployments', 'statefulsets', 'daemonsets', 'leases'] as const)
    for (const whole of fullObjectsOf(inventory, resource))
      if (whole.metadata?.uid) wholes.set(whole.metadata.uid, { resource, whole });
  const snapshotMs = Date.parse(inventory.takenAt);
  return (o) => {
    const key = `${groupOf(o.apiVersion)}/${o.resource}`;
    if (!(liveEvidenceResources as readonly string[]).includes(key))
      return { live: false, reason: `a ${o.kind} is no evidence that a controller runs` };
    const found = wholes.get(o.uid);
    if (!found) return { live: false, reason: 'its status is not in the snapshot' };
    return found.resource === 'leases'
      ? leaseLiveness(found.whole as LeaseObject, snapshotMs)
      : workloadLiveness({ ...(found.whole as WorkloadObject), kind: o.kind });
  };
}
