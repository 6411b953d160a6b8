import type { Severity } from './severity.js';

/** What a finding code means, as data: its default severity and a one-line title. */
export interface FindingCodeInfo {
  /** The severity findings of this code carry unless the rule documents why one is lower. */
  readonly severity: Severity;
  readonly title: string;
}

/**
 * Every finding code, stable across releases so that users can ignore or gate on them.
 * Each one is documented in docs/finding-codes.md (a unit test checks both directions).
 */
export const findingCodes = {
  NamespaceBlockedByDiscovery: {
    severity: 'error',
    title: 'Namespace deletion waits for an API group whose discovery fails',
  },
  NamespaceBlockedByFinalizer: {
    severity: 'error',
    title: 'Namespace deletion waits for objects whose finalizers are not removed',
  },
  NamespaceContentDeletionFailed: {
    severity: 'error',
    title: 'The namespace controller cannot delete some of the namespace content',
  },
  NamespaceStuckTerminating: {
    severity: 'error',
    title: 'Namespace Terminating past the threshold for no reason its conditions name',
  },
  StaleAPIService: {
    severity: 'error',
    title: 'Aggregated APIService is unavailable (blocks every namespace deletion)',
  },
  NamespaceDeletionWillHang: {
    severity: 'warning',
    title: 'Namespace of the environment whose deletion will hang on an unavailable APIService',
  },
  OrphanInMissingNamespace: {
    severity: 'error',
    title: 'Object stored in a namespace that does not exist',
  },
  StuckFinalizer: {
    severity: 'warning',
    title: 'Objects wait past the threshold for a finalizer to be removed',
  },
  OperatorGoneFinalizer: {
    severity: 'error',
    title: 'Objects wait for a finalizer whose controller no longer appears to run',
  },
  WebhookBackendMissing: {
    severity: 'error',
    title: 'Admission webhook calls a Service (or namespace) that does not exist',
  },
  ConversionWebhookBackendMissing: {
    severity: 'error',
    title: 'CRD conversion webhook calls a Service (or namespace) that does not exist',
  },
  CRDStuckTerminating: {
    severity: 'error',
    title: 'CustomResourceDefinition Terminating while instances remain',
  },
  OrphanedCRDataInEtcd: {
    severity: 'warning',
    title: 'Custom-resource data stored in etcd that no CRD serves (needs etcd-endpoint)',
  },
  InvalidOwnerReference: {
    severity: 'warning',
    title: 'ownerReference the garbage collector cannot resolve',
  },
  OrphanedDependent: {
    severity: 'warning',
    title: 'Controller-made object left without its controller ownerReference',
  },
  ReleasedPersistentVolume: {
    severity: 'warning',
    title: 'PersistentVolume Released or Failed, bound to a claim that no longer exists',
  },
  PodStuckTerminating: {
    severity: 'error',
    title: 'Pod Terminating on a node whose kubelet does not answer (or that is gone)',
  },
  PVCProtectionBlocked: {
    severity: 'error',
    title: 'PersistentVolumeClaim Terminating, held by kubernetes.io/pvc-protection',
  },
  HelmReleaseStuck: {
    severity: 'error',
    title: 'Helm release left pending-install/upgrade/rollback, uninstalling or failed',
  },
  HelmLeftover: {
    severity: 'warning',
    title: 'Object that carries the annotations of a Helm release that no longer exists',
  },
  RBACBindingLeftover: {
    severity: 'warning',
    title: 'RBAC binding whose every subject is a ServiceAccount of a namespace that no longer exists',
  },
  RBACBindingDanglingSubject: {
    severity: 'warning',
    title: 'RBAC binding that also names ServiceAccounts of namespaces that no longer exist',
  },
  StaleLeaderLease: {
    severity: 'info',
    title: 'Leader-election Lease that nobody renews, held by a pod that no longer exists',
  },
  HelmReleaseRecordInvalid: {
    severity: 'warning',
    title: 'Helm release Secret whose record is not a valid release (forged or corrupted): not used',
  },
  HelmReleaseRecordLost: {
    severity: 'warning',
    title: 'Helm release record gone while objects of the release remain, held in deletion',
  },
  StatefulSetClaimLeftover: {
    severity: 'warning',
    title: 'PersistentVolumeClaim of a StatefulSet that no longer exists (data left behind)',
  },
  StatefulSetClaimsRetained: {
    severity: 'info',
    title: 'StatefulSet of the environment whose claims its retention policy keeps when deleted',
  },
  CSIDriverGone: {
    severity: 'error',
    title: 'Volumes held by the CSI attacher finalizer of a storage driver that no longer runs',
  },
  AdmissionPolicyParamMissing: {
    severity: 'error',
    title: 'Admission policy binding whose missing param denies the finalizer removals it matches',
  },
  QuotaExhaustedByFinishedJobs: {
    severity: 'error',
    title: 'Job quota used up by finished Jobs that nothing deletes (the next Job is refused)',
  },
  AppOfAppsSelfDeletion: {
    severity: 'error',
    title: 'GitOps app of apps that deleted the namespace its own controller runs in',
  },
  QuotaExhaustedByTerminalPods: {
    severity: 'error',
    title: 'Pod-count quota used up by finished (Succeeded or Failed) Pods (the next Pod is refused)',
  },
  HelmReleaseNamespaceGone: {
    severity: 'warning',
    title: 'Helm release record stored in another namespace for a release namespace that no longer exists',
  },
  DeletionRefused: {
    severity: 'error',
    title: "A deletion of kube-sweep's own that the API server refused (RBAC, admission, quota)",
  },
} as const satisfies Record<string, FindingCodeInfo>;

/** A registered finding code. */
export type FindingCode = keyof typeof findingCodes;

/** Every registered code, sorted. */
export const allFindingCodes: readonly FindingCode[] = (Object.keys(findingCodes) as FindingCode[]).sort();
