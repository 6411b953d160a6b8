/**
 * The parts of whole Kubernetes objects (from `inventory.full`) that rules read. Field names
 * and optionality follow the API types: core/v1 Namespace, apiregistration.k8s.io/v1
 * APIService, admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfiguration,
 * apiextensions.k8s.io/v1 CustomResourceDefinition. Everything is optional because the JSON
 * comes from the cluster.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectRef } from '../inventory/types.js';

/** metav1.Condition / the per-type condition structs (status "True" | "False" | "Unknown"). */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

export interface ObjectMeta {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly finalizers?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface NamespaceObject {
  readonly metadata?: ObjectMeta;
  /** `spec.finalizers` holds `kubernetes` until the namespace controller has emptied it. */
  readonly spec?: { readonly finalizers?: readonly string[] };
  readonly status?: { readonly phase?: string; readonly conditions?: readonly Condition[] };
}

/** admissionregistration/v1 ServiceReference and apiregistration/v1 ServiceReference. */
export interface ServiceReference {
  readonly namespace?: string;
  readonly name?: string;
  readonly path?: string;
  readonly port?: number;
}

export interface APIServiceObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly group?: string;
    readonly version?: string;
    /** Absent (null) for local APIServices that kube-apiserver serves itself. */
    readonly service?: ServiceReference | null;
  };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

/** admissionregistration/v1 RuleWithOperations. */
export interface WebhookRule {
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly operations?: readonly string[];
  readonly scope?: string;
}

/** metav1.LabelSelector. */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

/** admissionregistration/v1 WebhookClientConfig. */
export interface WebhookClientConfig {
  readonly url?: string;
  readonly service?: ServiceReference;
}

/** One webhook of a Validating/MutatingWebhookConfiguration. */
export interface AdmissionWebhook {
  readonly name: string;
  readonly clientConfig?: WebhookClientConfig;
  readonly rules?: readonly WebhookRule[];
  /** `Fail` (the v1 default) or `Ignore`. */
  readonly failurePolicy?: string;
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
}

export interface WebhookConfigurationObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly webhooks?: readonly AdmissionWebhook[];
}

export interface CustomResourceDefinitionObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly group?: string;
    readonly scope?: string;
    readonly names?: { readonly plural?: string; readonly kind?: string };
    readonly versions?: readonly {
      readonly name: string;
      readonly served?: boolean;
      readonly storage?: boolean;
    }[];
    readonly conversion?: {
      readonly strategy?: string;
      readonly webhook?: {
        readonly clientConfig?: WebhookClientConfig;
        readonly conversionReviewVersions?: readonly string[];
      };
    };
  };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

/** core/v1 PersistentVolume. */
export interface PersistentVolumeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly claimRef?: { readonly namespace?: string; readonly name?: string; readonly uid?: string };
    /** Retain, Delete or Recycle. */
    readonly persistentVolumeReclaimPolicy?: string;
    readonly storageClassName?: string;
    readonly capacity?: Readonly<Record<string, string>>;
    /** A CSI volume: the driver that attaches, detaches and deletes it, and its id in the backend. */
    readonly csi?: { readonly driver?: string; readonly volumeHandle?: string };
  };
  readonly status?: { readonly phase?: string; readonly lastPhaseTransitionTime?: string };
}

/** core/v1 PersistentVolumeClaim (the fields rules read). */
export interface PersistentVolumeClaimObject {
  readonly metadata?: ObjectMeta & { readonly ownerReferences?: readonly unknown[] };
  readonly spec?: {
    readonly volumeName?: string;
    readonly storageClassName?: string;
    readonly resources?: { readonly requests?: Readonly<Record<string, string>> };
  };
  readonly status?: { readonly phase?: string; readonly capacity?: Readonly<Record<string, string>> };
}

/** rbac.authorization.k8s.io/v1 Subject. */
export interface RbacSubject {
  /** ServiceAccount, User or Group. */
  readonly kind?: string;
  readonly name?: string;
  /** Set for ServiceAccount subjects. */
  readonly namespace?: string;
  readonly apiGroup?: string;
}

/** rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding (as projected, types.ts). */
export interface BindingObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly roleRef?: { readonly kind?: string; readonly name?: string; readonly apiGroup?: string };
  readonly subjects?: readonly RbacSubject[] | null;
}

/** apps/v1 Deployment, StatefulSet and DaemonSet, as projected (src/inventory/types.ts). */
export interface WorkloadObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly replicas?: number;
    /** Only the pod template's ServiceAccount is kept. */
    readonly template?: { readonly spec?: { readonly serviceAccountName?: string } };
    readonly volumeClaimTemplates?: readonly { readonly metadata?: { readonly name?: string } }[];
    readonly persistentVolumeClaimRetentionPolicy?: {
      readonly whenDeleted?: string;
      readonly whenScaled?: string;
    };
  };
  readonly status?: {
    readonly replicas?: number;
    readonly readyReplicas?: number;
    /** Deployments and StatefulSets. */
    readonly availableReplicas?: number;
    /** DaemonSets. */
    readonly numberAvailable?: number;
    readonly desiredNumberScheduled?: number;
  };
}

/** storage.k8s.io/v1 VolumeAttachment. */
export interface VolumeAttachmentObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    /** The CSI driver name (the external-attacher acts on attachments of its driver only). */
    readonly attacher?: string;
    readonly nodeName?: string;
    readonly source?: { readonly persistentVolumeName?: string };
  };
  readonly status?: { readonly attached?: boolean };
}

/** core/v1 Taint. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

/** core/v1 NodeCondition: Ready carries the kubelet's heartbeat (`lastHeartbeatTime`). */
export interface NodeCondition extends Condition {
  readonly lastHeartbeatTime?: string;
}

/** core/v1 Node (the fields rules read). */
export interface NodeObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: { readonly taints?: readonly Taint[]; readonly unschedulable?: boolean };
  readonly status?: { readonly conditions?: readonly NodeCondition[] };
}

/** coordination.k8s.io/v1 Lease; a node's heartbeat is `kube-node-lease/<node name>`. */
export interface LeaseObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly holderIdentity?: string;
    readonly renewTime?: string;
    readonly acquireTime?: string;
    readonly leaseDurationSeconds?: number;
  };
}

/** core/v1 Volume (the claim references rules read). */
export interface PodVolume {
  readonly name: string;
  readonly persistentVolumeClaim?: { readonly claimName?: string };
  /** A generic ephemeral volume: its claim is named `<pod name>-<volume name>`. */
  readonly ephemeral?: unknown;
}

/** core/v1 Pod (the fields rules read; only Pods fetched whole, see src/inventory/pods.ts). */
export interface PodObject {
  readonly metadata?: ObjectMeta & {
    readonly deletionGracePeriodSeconds?: number;
    /** The Pod's owners (a Job's Pods name it here). */
    readonly ownerReferences?: readonly { readonly kind?: string; readonly name?: string }[];
  };
  readonly spec?: { readonly nodeName?: string; readonly volumes?: readonly PodVolume[] };
  readonly status?: { readonly phase?: string; readonly reason?: string };
}

/** admissionregistration/v1 NamedRuleWithOperations (a policy's or binding's resource rule). */
export interface NamedRule extends WebhookRule {
  readonly resourceNames?: readonly string[];
}

/** admissionregistration/v1 MatchResources (of a policy's matchConstraints or a binding's matchResources). */
export interface MatchResources {
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly resourceRules?: readonly NamedRule[];
  readonly excludeResourceRules?: readonly NamedRule[];
}

/** admissionregistration/v1 ValidatingAdmissionPolicy (the fields rules read). */
export interface ValidatingAdmissionPolicyObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    /** The kind of the param objects, when the policy takes params. */
    readonly paramKind?: { readonly apiVersion?: string; readonly kind?: string };
    readonly matchConstraints?: MatchResources;
    /** `Fail` (the default) or `Ignore`: what a configuration error such as a missing param does. */
    readonly failurePolicy?: string;
  };
}

/** admissionregistration/v1 ValidatingAdmissionPolicyBinding (the fields rules read). */
export interface ValidatingAdmissionPolicyBindingObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly policyName?: string;
    readonly paramRef?: {
      readonly name?: string;
      /** Unset with a namespaced paramKind: the param is looked up in the request's namespace. */
      readonly namespace?: string;
      readonly selector?: LabelSelector;
      /** `Allow` or `Deny` (required in v1). */
      readonly parameterNotFoundAction?: string;
    };
    readonly matchResources?: MatchResources;
    readonly validationActions?: readonly string[];
  };
}

/** core/v1 ResourceQuota (the fields rules read). */
export interface ResourceQuotaObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: { readonly hard?: Readonly<Record<string, string>> };
  readonly status?: {
    readonly hard?: Readonly<Record<string, string>>;
    readonly used?: Readonly<Record<string, string>>;
  };
}

/** batch/v1 Job, as projected (src/inventory/types.ts `projectJob`). */
export interface JobObject {
  readonly metadata?: ObjectMeta & {
    readonly ownerReferences?: readonly {
      readonly kind?: string;
      readonly name?: string;
      readonly uid?: string;
    }[];
  };
  readonly spec?: { readonly ttlSecondsAfterFinished?: number; readonly suspend?: boolean };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly completionTime?: string;
    readonly succeeded?: number;
    readonly failed?: number;
    readonly active?: number;
  };
}

/** batch/v1 CronJob, as projected (src/inventory/types.ts). */
export interface CronJobObject {
  readonly metadata?: ObjectMeta;
  readonly spec?: {
    readonly schedule?: string;
    readonly suspend?: boolean;
    /** Default 3. */
    readonly successfulJobsHistoryLimit?: number;
    /** Default 1. */
    readonly failedJobsHistoryLimit?: number;
    readonly jobTemplate?: { readonly spec?: { readonly ttlSecondsAfterFinished?: number } };
  };
}

/** The shape of each kind kept whole in the snapshot (`fullObjectResources`). */
export interface FullObjectTypes {
  readonly namespaces: NamespaceObject;
  readonly apiservices: APIServiceObject;
  readonly validatingwebhookconfigurations: WebhookConfigurationObject;
  readonly mutatingwebhookconfigurations: WebhookConfigurationObject;
  readonly customresourcedefinitions: CustomResourceDefinitionObject;
  readonly persistentvolumes: PersistentVolumeObject;
  readonly persistentvolumeclaims: PersistentVolumeClaimObject;
  readonly nodes: NodeObject;
  readonly leases: LeaseObject;
  readonly rolebindings: BindingObject;
  readonly clusterrolebindings: BindingObject;
  readonly deployments: WorkloadObject;
  readonly statefulsets: WorkloadObject;
  readonly daemonsets: WorkloadObject;
  readonly volumeattachments: VolumeAttachmentObject;
  readonly validatingadmissionpolicies: ValidatingAdmissionPolicyObject;
  readonly validatingadmissionpolicybindings: ValidatingAdmissionPolicyBindingObject;
  /** The fields read are the same as a ValidatingAdmissionPolicy's. */
  readonly mutatingadmissionpolicies: ValidatingAdmissionPolicyObject;
  /** The fields read are the same as a ValidatingAdmissionPolicyBinding's (no validationActions). */
  readonly mutatingadmissionpolicybindings: ValidatingAdmissionPolicyBindingObject;
  readonly resourcequotas: ResourceQuotaObject;
  readonly jobs: JobObject;
  readonly cronjobs: CronJobObject;
  /** Only the Pods fetched whole (src/inventory/pods.ts), not every Pod. */
  readonly pods: PodObject;
}

/** The whole objects of one kind, typed (the snapshot stores them as plain JSON). */
export function fullObjectsOf<R extends keyof FullObjectTypes>(
  inventory: Inventory,
  resource: R,
): readonly FullObjectTypes[R][] {
  return (inventory.full[resource] ?? []) as readonly FullObjectTypes[R][];
}

/** A whole number of a count quota (`"3"`), undefined for anything else (`"1k"`, missing). */
export function quotaCount(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The ObjectRef of a whole ResourceQuota. */
export function refOfQuota(quota: ResourceQuotaObject): ObjectRef {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    namespace: quota.metadata?.namespace ?? '',
    name: quota.metadata?.name ?? '',
    ...(quota.metadata?.uid ? { uid: quota.metadata.uid } : {}),
  };
}

/** The condition of a type, if present. */
export function conditionOf(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Names of the namespaces that have a deletionTimestamp. */
export function terminatingNamespaces(inventory: Inventory): ReadonlySet<string> {
  return new Set(
    fullObjectsOf(inventory, 'namespaces')
      .filter((n) => n.metadata?.deletionTimestamp)
      .map((n) => n.metadata?.name ?? ''),
  );
}

/** The ObjectRef of a whole cluster-scoped object of a known apiVersion and kind. */
export function refOfWhole(apiVersion: string, kind: string, metadata: ObjectMeta | undefined): ObjectRef {
  return {
    apiVersion,
    kind,
    name: metadata?.name ?? '',
    ...(metadata?.uid ? { uid: metadata.uid } : {}),
  };
}
