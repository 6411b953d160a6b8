/**
 * Plain data of one inventory snapshot. Shapes follow the Kubernetes API (apimachinery's
 * metav1.ObjectMeta / PartialObjectMetadata and apidiscovery.k8s.io/v2 for discovery).
 */

/** A GroupVersionResource; `group` is '' for the core group. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** A resource the API server serves, from discovery. */
export interface ServedResource extends GroupVersionResource {
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

/** Reference to one object. `namespace` is absent for cluster-scoped objects. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
}

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

/**
 * The metadata of one object as the snapshot keeps it: PartialObjectMetadata without
 * managedFields and without the last-applied-configuration annotation (both grow with the
 * object's size, and no rule reads them).
 */
export interface ObjectMetadata {
  readonly apiVersion: string;
  readonly kind: string;
  /** The resource it was listed as (plural, e.g. "configmaps"). */
  readonly resource: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid: string;
  readonly creationTimestamp?: string;
  /** RFC 3339; set once deletion was requested. */
  readonly deletionTimestamp?: string;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A group-version whose discovery failed (e.g. an APIService whose backend is gone). */
export interface FailedGroupVersion {
  /** "metrics.k8s.io/v1beta1"; "v1" for core. */
  readonly groupVersion: string;
  /** What failed: stale aggregated discovery, an error answer, an unavailable APIService. */
  readonly message: string;
}

/** Something that could not be read, so rules must not conclude "absent" about it. */
/**
 * Pure: how a coverage gap names a resource: `<resource>.<group>/<version>`, or
 * `<resource>/<version>` for the core group (e.g. `namespaces/v1`, `widgets.example.com/v1`).
 */
export function coverageLabel(r: { group: string; version: string; resource: string }): string {
  return r.group ? `${r.resource}.${r.group}/${r.version}` : `${r.resource}/${r.version}`;
}

export interface CoverageGap {
  /** "configmaps", "widgets.example.com/v1", or a group-version for discovery gaps. */
  readonly resource: string;
  readonly reason: 'forbidden' | 'failed' | 'discovery';
  /** The API's message (Status.message) or transport error, never a credential. */
  readonly message: string;
  /** For `forbidden`: the RBAC rule that would grant it. */
  readonly hint?: string;
}

/** Kinds kept as whole objects because rules read their spec or status. */
export const fullObjectResources = [
  { group: '', version: 'v1', resource: 'namespaces' },
  { group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices' },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations' },
  { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
  { group: '', version: 'v1', resource: 'persistentvolumes' },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
  // Node status (Ready condition, heartbeats, taints) and heartbeat Leases (kube-node-lease):
  // one object per node, small; they tell whether a pod's kubelet can still finish it.
  { group: '', version: 'v1', resource: 'nodes' },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
  // RBAC bindings: their subjects and roleRef are in the body, not the metadata (S19).
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
  // Workloads: whether they have available replicas (live evidence of a controller, S20).
  // Kept as a projection (`projectWholeObject`): the pod template is dropped.
  { group: 'apps', version: 'v1', resource: 'deployments' },
  { group: 'apps', version: 'v1', resource: 'statefulsets' },
  { group: 'apps', version: 'v1', resource: 'daemonsets' },
  // CSI attachments: the attacher (driver), node and volume of each (S23); small objects.
  { group: 'storage.k8s.io', version: 'v1', resource: 'volumeattachments' },
  // Admission policies and their bindings, validating and mutating (admissionregistration v1, as
  // v1.37 serves both): match rules and paramRef decide which requests they deny (S26: a binding
  // whose param is gone denies every finalizer removal it matches). Not served: nothing judged.
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings' },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingadmissionpolicies' },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingadmissionpolicybindings' },
  // Quotas: hard and used per resource (S27); Jobs, projected to their TTL and finished state;
  // CronJobs, projected to their history limits and their Jobs' TTL.
  { group: '', version: 'v1', resource: 'resourcequotas' },
  { group: 'batch', version: 'v1', resource: 'jobs' },
  { group: 'batch', version: 'v1', resource: 'cronjobs' },
] as const satisfies readonly GroupVersionResource[];

/** The metadata fields a projection keeps (the rest is in the snapshot's `objects`). */
function projectedMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  const { name, namespace, uid, creationTimestamp, deletionTimestamp, labels } = metadata ?? {};
  return { name, namespace, uid, creationTimestamp, deletionTimestamp, labels };
}

interface JobCondition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  lastTransitionTime?: unknown;
}

/**
 * Pure: a Job as the snapshot keeps it: metadata with its ownerReferences, the TTL and
 * suspension of `spec`, and the finished state of `status` (its conditions without messages,
 * completion time, pod counts); the pod template is dropped.
 */
function projectJob(
  metadata: Record<string, unknown>,
  item: Record<string, unknown>,
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): Record<string, unknown> {
  const owners = (item.metadata as { ownerReferences?: unknown } | undefined)?.ownerReferences;
  const conditions = (status.conditions as JobCondition[] | undefined)?.map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason,
    lastTransitionTime: c.lastTransitionTime,
  }));
  return {
    metadata: { ...metadata, ...(owners ? { ownerReferences: owners } : {}) },
    spec: { ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished, suspend: spec.suspend },
    status: {
      ...(conditions ? { conditions } : {}),
      completionTime: status.completionTime,
      succeeded: status.succeeded,
      failed: status.failed,
      active: status.active,
    },
  };
}

/**
 * Pure: what the snapshot keeps of one whole object of `resource`. Workloads (Deployments,
 * StatefulSets, DaemonSets) keep only the replica counts of `spec` and `status`, the pod
 * template's `serviceAccountName` (the controller's identity, for an RBAC check) (and a
 * StatefulSet's claim templates and retention policy), RBAC bindings only `roleRef` and
 * `subjects`, Jobs only their TTL and finished state (`projectJob`), CronJobs only their schedule,
 * history limits and their Jobs' TTL, all with a trimmed metadata:
 * their full bodies (pod templates, managedFields) would make memory grow with object size.
 * Every other kind is kept as listed.
 */
export function projectWholeObject(resource: string, item: Record<string, unknown>): Record<string, unknown> {
  const metadata = projectedMetadata(item.metadata as Record<string, unknown> | undefined);
  const spec = (item.spec ?? {}) as Record<string, unknown>;
  const status = (item.status ?? {}) as Record<string, unknown>;
  switch (resource) {
    case 'deployments':
    case 'statefulsets':
    case 'daemonsets': {
      const templates = spec.volumeClaimTemplates as { metadata?: { name?: string } }[] | undefined;
      const account = (spec.template as { spec?: { serviceAccountName?: unknown } } | undefined)?.spec
        ?.serviceAccountName;
      return {
        metadata,
        spec: {
          replicas: spec.replicas,
          ...(typeof account === 'string' ? { template: { spec: { serviceAccountName: account } } } : {}),
          ...(templates
            ? { volumeClaimTemplates: templates.map((t) => ({ metadata: { name: t.metadata?.name } })) }
            : {}),
          ...(spec.persistentVolumeClaimRetentionPolicy
            ? { persistentVolumeClaimRetentionPolicy: spec.persistentVolumeClaimRetentionPolicy }
            : {}),
        },
        status: {
          replicas: status.replicas,
          readyReplicas: status.readyReplicas,
          availableReplicas: status.availableReplicas,
          numberAvailable: status.numberAvailable,
          desiredNumberScheduled: status.desiredNumberScheduled,
        },
      };
    }
    case 'rolebindings':
    case 'clusterrolebindings':
      return { metadata, roleRef: item.roleRef, subjects: item.subjects };
    case 'jobs':
      return projectJob(metadata, item, spec, status);
    case 'cronjobs': {
      const template = (spec.jobTemplate as { spec?: { ttlSecondsAfterFinished?: unknown } } | undefined)
        ?.spec;
      return {
        metadata,
        spec: {
          schedule: spec.schedule,
          suspend: spec.suspend,
          successfulJobsHistoryLimit: spec.successfulJobsHistoryLimit,
          failedJobsHistoryLimit: spec.failedJobsHistoryLimit,
          jobTemplate: { spec: { ttlSecondsAfterFinished: template?.ttlSecondsAfterFinished } },
        },
      };
    }
    default:
      return item;
  }
}

/**
 * The whole objects of `fullObjectResources`, keyed by resource plural (plain JSON objects),
 * plus `pods`: only the Pods fetched whole after the lists (src/inventory/pods.ts: Pods that
 * carry a deletionTimestamp, and every Pod of a namespace that holds a terminating PVC).
 */
export type FullObjects = Readonly<
  Record<(typeof fullObjectResources)[number]['resource'] | 'pods', readonly unknown[]>
>;

/** Timings and counts of one inventory run. */
export interface InventoryStats {
  readonly discoveryMs: number;
  readonly listMs: number;
  readonly resourcesListed: number;
  readonly pages: number;
  readonly requests: number;
}
