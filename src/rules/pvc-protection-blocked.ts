import type { Inventory } from '../inventory/snapshot.js';
import type { CoverageGap, ObjectRef } from '../inventory/types.js';
import { findingKey, type Remediation } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command, stripFinalizers } from './kubectl.js';
import { fullObjectsOf, type PersistentVolumeClaimObject, type PodObject } from './kubernetes-objects.js';
import type { Rule } from './rule.js';
import { formatDuration, stuckDeletionAge } from './snapshot-views.js';

const rule = 'pvc-protection-blocked';

/** The finalizer of kube-controller-manager's pvc-protection controller. */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';

/**
 * Pure: whether `pod` counts as a user of claim `claim` for the pvc-protection controller
 * (pkg/controller/volume/pvcprotection/pvc_protection_controller.go, podUsesPVC): the pod is
 * scheduled (spec.nodeName set; the kubelet never starts an unscheduled pod) and lists the
 * claim in its volumes, directly or as a generic ephemeral volume (claim `<pod>-<volume>`).
 * A Terminating pod still counts.
 */
export function podUsesClaim(pod: PodObject, claim: string): boolean {
  if (!pod.spec?.nodeName) return false;
  return (pod.spec.volumes ?? []).some(
    (v) =>
      v.persistentVolumeClaim?.claimName === claim ||
      (v.ephemeral !== undefined && `${pod.metadata?.name ?? ''}-${v.name}` === claim),
  );
}

/** The ObjectRef of a whole Pod. */
export function podRef(pod: PodObject): ObjectRef {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    ...(pod.metadata?.uid ? { uid: pod.metadata.uid } : {}),
  };
}

/** PVCs being deleted past the threshold that the pvc-protection finalizer still holds. */
export function blockedClaims(
  inventory: Inventory,
  context: { readonly now: number; readonly stuckAfterSeconds: number },
): { claim: PersistentVolumeClaimObject; age: number; users: PodObject[] }[] {
  const pods = fullObjectsOf(inventory, 'pods');
  return fullObjectsOf(inventory, 'persistentvolumeclaims').flatMap((claim) => {
    const age = stuckDeletionAge(claim.metadata?.deletionTimestamp, context);
    if (age === undefined || !claim.metadata?.finalizers?.includes(pvcProtectionFinalizer)) return [];
    const users = pods.filter(
      (p) =>
        p.metadata?.namespace === claim.metadata?.namespace && podUsesClaim(p, claim.metadata?.name ?? ''),
    );
    return [{ claim, age, users }];
  });
}

/** Pure: keys of the PodStuckTerminating findings of the pods that hold the claim (for the linker). */
export function blockingPodKeys(users: readonly PodObject[]): string[] {
  return users.map((p) => findingKey('PodStuckTerminating', podRef(p)));
}

/** A claim held by pvc-protection (see blockedClaims). */
type BlockedClaim = ReturnType<typeof blockedClaims>[number];

/**
 * Pure: the coverage gap that kept the Pods of namespace `ns` from being read whole (a gap of
 * that namespace, or of all pods), if any.
 */
function podCoverageGap(coverage: readonly CoverageGap[], ns: string): CoverageGap | undefined {
  return coverage.find(
    (g) =>
      g.resource.startsWith('pods/') &&
      (g.resource.includes(`namespace ${ns})`) || !g.resource.includes('(')),
  );
}

/** Pure: an evidence line about a pod that uses the claim: its node, phase, and since when it is Terminating. */
function describeUser(ns: string, p: PodObject): string {
  return (
    `used by pod ${ns}/${p.metadata?.name ?? ''} on node ${p.spec?.nodeName ?? ''}` +
    ` (phase ${p.status?.phase ?? 'unknown'}${p.metadata?.deletionTimestamp ? `, Terminating since ${p.metadata.deletionTimestamp}` : ''})`
  );
}

/** Pure: the finding's message: which pods keep the claim, that which ones is unknown, or that none does. */
function blockedClaimMessage({ claim, age, users }: BlockedClaim, podGap: CoverageGap | undefined): string {
  const ns = claim.metadata?.namespace ?? '';
  const name = claim.metadata?.name ?? '';
  return (
    `PersistentVolumeClaim ${ns}/${name} has been Terminating for ${formatDuration(age)}: ` +
    (users.length
      ? `${pvcProtectionFinalizer} keeps it while pod${users.length === 1 ? '' : 's'} ` +
        `${users.map((p) => p.metadata?.name ?? '').join(', ')} still use${users.length === 1 ? 's' : ''} it`
      : podGap
        ? `${pvcProtectionFinalizer} keeps it; which pods use it is unknown (pods could not be read)`
        : `${pvcProtectionFinalizer} keeps it although no scheduled pod uses it: the pvc-protection ` +
          'controller of kube-controller-manager does not seem to act')
  );
}

/** Pure: the evidence: the claim's deletion, finalizers, phase and volume, its users, and any pod coverage gap. */
function blockedClaimEvidence(
  { claim, age, users }: BlockedClaim,
  podGap: CoverageGap | undefined,
): string[] {
  const ns = claim.metadata?.namespace ?? '';
  const name = claim.metadata?.name ?? '';
  return [
    `deletionTimestamp: ${claim.metadata?.deletionTimestamp} (${formatDuration(age)} ago)`,
    `finalizers: ${(claim.metadata?.finalizers ?? []).join(', ')}`,
    ...(claim.status?.phase ? [`status.phase: ${claim.status.phase}`] : []),
    ...(claim.spec?.volumeName ? [`spec.volumeName: ${claim.spec.volumeName}`] : []),
    ...users.map((p) => describeUser(ns, p)),
    ...(podGap ? [`pods could not be read whole: ${podGap.message}`] : []),
    ...(users.length === 0 && !podGap
      ? [`no pod with spec.nodeName set in namespace ${ns} lists claim ${name} in its volumes`]
      : []),
  ];
}

/**
 * Pure: the remedy: with users, resolve the pods (delete those not yet Terminating); with none,
 * check the controller, and only then strip the finalizer.
 */
function blockedClaimRemediation({ claim, users }: BlockedClaim): Remediation {
  const ns = claim.metadata?.namespace ?? '';
  const name = claim.metadata?.name ?? '';
  return {
    summary: users.length
      ? 'Resolve the pods first: a pod that is Terminating needs its node (see PodStuckTerminating); a ' +
        'running pod must be deleted or its owner scaled down. The controller then removes the finalizer ' +
        'itself. Never clear pvc-protection while a live pod mounts the volume.'
      : 'Check that kube-controller-manager runs (its pvc-protection controller removes the finalizer). ' +
        'Only if no pod uses the claim and that controller cannot run, remove the finalizer.',
    commands: [
      command('kubectl', 'get', 'pvc', name, '-n', ns, '-o', 'yaml'),
      ...users.map((p) => command('kubectl', 'get', 'pod', p.metadata?.name ?? '', '-n', ns, '-o', 'wide')),
      ...users
        .filter((p) => !p.metadata?.deletionTimestamp)
        .map((p) => command('kubectl', 'delete', 'pod', p.metadata?.name ?? '', '-n', ns)),
      ...(users.length
        ? []
        : stripFinalizers(
            [
              {
                apiVersion: 'v1',
                kind: 'PersistentVolumeClaim',
                resource: 'persistentvolumeclaims',
                namespace: ns,
                name,
                uid: claim.metadata?.uid ?? '',
                finalizers: claim.metadata?.finalizers ?? [],
              },
            ],
            pvcProtectionFinalizer,
          )),
    ],
  };
}

/**
 * pvc-protection-blocked: a PersistentVolumeClaim whose deletionTimestamp is at least
 * `stuckAfterSeconds` old and that still carries `kubernetes.io/pvc-protection` (scenario S12).
 * The controller removes the finalizer once no scheduled pod lists the claim in its volumes, so
 * the finding names those pods (read whole: the inventory lists every Pod of a namespace that
 * holds a deleting claim, src/inventory/pods.ts). With no such pod, it says the controller seems
 * not to act. The linker ties it to PodStuckTerminating of the pods that hold it. The
 * stuck-finalizer rule leaves this finalizer on PVCs to this rule. When the pods of the
 * namespace could not be read whole (a coverage gap), the evidence says so.
 */
export const pvcProtectionBlockedRule: Rule = {
  name: rule,
  title: 'PersistentVolumeClaims held by pvc-protection',
  codes: ['PVCProtectionBlocked'],
  check(inventory, context) {
    return blockedClaims(inventory, context).map((blocked) => {
      const { claim } = blocked;
      const podGap = podCoverageGap(inventory.coverage, claim.metadata?.namespace ?? '');
      const ref: ObjectRef = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        namespace: claim.metadata?.namespace ?? '',
        name: claim.metadata?.name ?? '',
        ...(claim.metadata?.uid ? { uid: claim.metadata.uid } : {}),
      };
      return buildFinding(
        rule,
        'PVCProtectionBlocked',
        {
          object: ref,
          message: blockedClaimMessage(blocked, podGap),
          evidence: blockedClaimEvidence(blocked, podGap),
          remediation: blockedClaimRemediation(blocked),
        },
        context,
      );
    });
  },
};
