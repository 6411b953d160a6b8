import type { Finding } from './findings.js';
import { leaseLiveness } from './controller-liveness.js';
import { buildFinding } from './finding-builder.js';
import { command, getYaml } from './kubectl.js';
import { fullObjectsOf, type LeaseObject } from './kubernetes-objects.js';
import type { Rule } from './rule.js';
import { describeObject, formatDuration, objectsOf, refOf, wasListed } from './snapshot-views.js';

const rule = 'stale-leader-lease';

/**
 * The control plane's own Leases, never reported: node heartbeats (namespace
 * kube-node-lease), kube-apiserver identity Leases (label `apiserver.kubernetes.io/identity`,
 * pkg/controlplane/apiserver), and the leader-election Leases of kube-controller-manager,
 * kube-scheduler and cloud-controller-manager in kube-system.
 */
export const controlPlaneLeases = {
  namespaces: ['kube-node-lease'],
  label: 'apiserver.kubernetes.io/identity',
  kubeSystem: ['kube-controller-manager', 'kube-scheduler', 'cloud-controller-manager'],
} as const;

/** How many lease durations a Lease must be unrenewed for before it counts as stale. */
export const staleAfterDurations = 3;

/** The pod name in a client-go / controller-runtime holder identity: `<hostname>_<uuid>`. */
export function holderPodName(holderIdentity: string): string {
  const underscore = holderIdentity.indexOf('_');
  return underscore > 0 ? holderIdentity.slice(0, underscore) : holderIdentity;
}

function isControlPlaneLease(lease: LeaseObject): boolean {
  const ns = lease.metadata?.namespace ?? '';
  if ((controlPlaneLeases.namespaces as readonly string[]).includes(ns)) return true;
  if (lease.metadata?.labels?.[controlPlaneLeases.label] !== undefined) return true;
  return (
    ns === 'kube-system' &&
    (controlPlaneLeases.kubeSystem as readonly string[]).includes(lease.metadata?.name ?? '')
  );
}

/**
 * stale-leader-lease (scenario S20): a coordination.k8s.io/v1 Lease outside the control plane's
 * own (`controlPlaneLeases`) that nobody has renewed for more than `staleAfterDurations` times
 * its `leaseDurationSeconds` (plus the grace of controller-liveness.ts), and whose holder is no
 * pod that exists (the holder identity of client-go leader election is `<pod name>_<uuid>`; an
 * empty holder is a released Lease). Controllers create their leader-election Lease at run
 * time, outside their Helm release, with no owner, and do not delete it on shutdown, so an
 * uninstall leaves it (kubernetes-sigs/kubebuilder#4712, cert-manager/cert-manager#7873).
 * Severity info: the next instance takes the Lease over once it expires. Skipped: Leases with
 * ownerReferences (they go with their owner), Leases being deleted. Not judged unless Leases and
 * Pods were listed.
 */
export const staleLeaderLeaseRule: Rule = {
  name: rule,
  title: 'Leader-election Leases of controllers that no longer run',
  codes: ['StaleLeaderLease'],
  check(inventory, context) {
    if (!wasListed(inventory, 'coordination.k8s.io', 'leases') || !wasListed(inventory, '', 'pods'))
      return [];
    const pods = new Set(
      objectsOf(inventory, '', 'pods')
        .filter((p) => !p.deletionTimestamp)
        .map((p) => p.name),
    );
    const snapshotMs = Date.parse(inventory.takenAt);
    const findings: Finding[] = [];
    for (const lease of fullObjectsOf(inventory, 'leases')) {
      const meta = inventory.byUid.get(lease.metadata?.uid ?? '');
      if (!meta || meta.deletionTimestamp || meta.ownerReferences?.length || isControlPlaneLease(lease))
        continue;
      const duration = lease.spec?.leaseDurationSeconds;
      const renew = lease.spec?.renewTime ?? lease.spec?.acquireTime;
      const renewed = renew ? Date.parse(renew) : Number.NaN;
      if (duration === undefined || Number.isNaN(renewed)) continue;
      const age = Math.max(0, Math.floor((snapshotMs - renewed) / 1000));
      const liveness = leaseLiveness(lease, snapshotMs);
      if (liveness.live || age <= staleAfterDurations * duration) continue;
      const holder = lease.spec?.holderIdentity ?? '';
      const pod = holder ? holderPodName(holder) : '';
      if (pod && pods.has(pod)) continue;
      findings.push(
        buildFinding(
          rule,
          'StaleLeaderLease',
          {
            object: refOf(meta),
            message:
              `${describeObject(meta)} was last renewed ${formatDuration(age)} ago (leaseDurationSeconds ` +
              `${duration}) ${holder ? `by ${holder}, and no pod ${pod} exists` : 'and has no holder'}: the ` +
              'leader-election Lease of a controller that no longer runs',
            evidence: [
              `spec.holderIdentity: ${holder || '(empty: released)'}`,
              `spec.renewTime: ${lease.spec?.renewTime ?? '(none)'}; spec.acquireTime: ${lease.spec?.acquireTime ?? '(none)'}`,
              `not renewed for ${formatDuration(age)}, more than ${staleAfterDurations} × leaseDurationSeconds ${duration}`,
              ...(pod
                ? [`no pod named ${pod} in any namespace (the holder identity is <pod name>_<id>)`]
                : []),
              'controllers create their leader-election Lease at run time, with no owner and outside their release, ' +
                'and do not delete it on shutdown (kubernetes-sigs/kubebuilder#4712)',
            ],
            remediation: {
              summary:
                `Delete Lease ${meta.namespace ?? ''}/${meta.name}: a live instance of its controller recreates it at ` +
                'once, and a new install ' +
                'does not wait for the dead holder to expire. For the next teardown, delete the Leases of the ' +
                'controllers you uninstall.',
              commands: [
                getYaml(meta),
                command('kubectl', 'delete', 'lease', meta.name, '-n', meta.namespace ?? ''),
              ],
            },
          },
          context,
        ),
      );
    }
    return findings;
  },
};
