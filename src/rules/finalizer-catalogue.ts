/**
 * The finalizer catalogue: well-known finalizer families as data, reviewed like codes.ts. Each
 * entry names the controller that owns the finalizer (its workload names, labels, leader Lease,
 * the API group of the objects it finalizes), where the object records what the finalizer guards
 * (status paths: what it manages inside the cluster, or what lives outside it), and which phases
 * mean the controller has nothing left to do. The rules read it for every object held by one of
 * these finalizers (stuck-finalizer.ts): the evidence lists what is guarded, and the removal is
 * graded safe (terminal phase, nothing left to guard) or unsafe (work in flight, or something
 * outside the cluster that would leak). A finalizer not listed here keeps the generic path.
 *
 * Facts only, each from the project's own docs or code (cited per entry); no code is taken from
 * them. Paths are dotted JSON paths into the whole object; `[]` marks a list.
 */

/** How one status path is read and said. */
export interface GuardedPath {
  /** Dotted path into the object: `status.resources[]`, `status.loadBalancer.ingress[]`. */
  readonly path: string;
  /**
   * What the value is: `objects` (Kubernetes objects the controller manages, each of which may
   * still exist), `external` (something outside the cluster that leaks when the finalizer is
   * stripped), `phase` (the state of the work).
   */
  readonly kind: 'objects' | 'external' | 'phase';
  /** What it is, in words, for the evidence. */
  readonly what: string;
}

/** One finalizer family. */
export interface FinalizerFamily {
  /** The project, as its docs name it. */
  readonly project: string;
  /** Exact finalizer names. */
  readonly finalizers: readonly string[];
  /** Finalizer name prefixes (the CSI attacher's `external-attacher/<driver>`). */
  readonly prefixes?: readonly string[];
  /** The controller that removes it. */
  readonly controller: {
    /** Workload names it runs as (Deployment, StatefulSet or DaemonSet). */
    readonly workloads: readonly string[];
    /** Labels its workloads usually carry. */
    readonly labels: readonly string[];
    /** Its leader-election Lease names. */
    readonly leases: readonly string[];
    /** API groups of the objects it finalizes. */
    readonly groups: readonly string[];
  };
  /** What the finalizer guards, and where the object records it. */
  readonly guards: string;
  readonly paths: readonly GuardedPath[];
  /** Values of the `phase` path that mean nothing is left to do (removal is safe). */
  readonly terminalPhases?: readonly string[];
  /** What stripping the finalizer skips while work is in flight (the WARNING text). */
  readonly leaks: string;
  /** The way that works when the controller cannot come back in place (its namespace or CRD terminating). */
  readonly withoutController: string;
  /** Where these facts come from. */
  readonly sources: readonly string[];
}

/** The catalogue. */
export const finalizerCatalogue: readonly FinalizerFamily[] = [
  {
    project: 'Argo CD',
    finalizers: [
      'resources-finalizer.argocd.argoproj.io',
      'resources-finalizer.argocd.argoproj.io/background',
      'resources-finalizer.argocd.argoproj.io/foreground',
      'post-delete-finalizer.argocd.argoproj.io',
    ],
    controller: {
      workloads: ['argocd-application-controller'],
      labels: ['app.kubernetes.io/name=argocd-application-controller', 'app.kubernetes.io/part-of=argocd'],
      leases: [],
      groups: ['argoproj.io'],
    },
    guards:
      "the Application's managed resources, which the application controller deletes (cascade) before removing it",
    paths: [{ path: 'status.resources[]', kind: 'objects', what: 'managed resource' }],
    leaks:
      'the managed resources are not deleted: they stay as unmanaged leftovers (and an Argo CD brought back would run every pending cascade it finds)',
    withoutController:
      'delete the managed resources listed, confirm they are gone, then remove the finalizer (environment teardown); or remove only the finalizer and keep them as unmanaged leftovers',
    sources: [
      'https://argo-cd.readthedocs.io/en/stable/user-guide/app_deletion/ (the finalizer, foreground and background variants)',
      'argoproj/argo-cd manifests/crds/application-crd.yaml (status.resources: group, version, kind, namespace, name)',
      'argoproj-labs/argocd-autopilot#99, argoproj/argo-cd#14505 (app-of-apps teardown removes the controller first)',
    ],
  },
  {
    project: 'Flux',
    finalizers: ['finalizers.fluxcd.io'],
    controller: {
      workloads: ['kustomize-controller', 'helm-controller', 'source-controller', 'notification-controller'],
      labels: ['app.kubernetes.io/part-of=flux'],
      leases: [],
      groups: [
        'kustomize.toolkit.fluxcd.io',
        'helm.toolkit.fluxcd.io',
        'source.toolkit.fluxcd.io',
        'notification.toolkit.fluxcd.io',
        'image.toolkit.fluxcd.io',
      ],
    },
    guards:
      "a Kustomization's applied objects (pruned when spec.prune is true) or a HelmRelease's Helm release (uninstalled)",
    paths: [
      {
        path: 'status.inventory.entries[]',
        kind: 'objects',
        what: 'applied object (<namespace>_<name>_<group>_<kind>)',
      },
      { path: 'status.storageNamespace', kind: 'external', what: 'Helm storage namespace of the release' },
    ],
    leaks:
      'the applied objects are not pruned and a HelmRelease is not uninstalled: its Helm record and objects stay',
    withoutController:
      'delete the objects of the inventory (or uninstall the Helm release with its storage namespace), then remove the finalizer',
    sources: [
      'fluxcd/helm-controller api HelmReleaseFinalizer = "finalizers.fluxcd.io"; fluxcd/kustomize-controller (the same finalizer)',
      'https://fluxcd.io/flux/components/kustomize/kustomizations/ (status.inventory, spec.prune garbage collection)',
      'fluxcd/flux2 PR #126 (uninstall deletes Kustomizations and sources before the controllers and CRDs)',
    ],
  },
  {
    project: 'Crossplane',
    finalizers: ['finalizer.managedresource.crossplane.io', 'composite.apiextensions.crossplane.io'],
    controller: {
      workloads: ['crossplane'],
      labels: ['app=crossplane', 'pkg.crossplane.io/provider'],
      leases: [],
      groups: ['apiextensions.crossplane.io', 'pkg.crossplane.io'],
    },
    guards:
      'the external resource a managed resource represents (deleted by its provider when deletionPolicy is Delete)',
    paths: [
      {
        path: 'metadata.annotations.crossplane\\.io/external-name',
        kind: 'external',
        what: 'external resource name',
      },
      { path: 'status.atProvider.id', kind: 'external', what: 'external resource id' },
    ],
    leaks: 'the external resource (cloud resource) is not deleted and keeps costing',
    withoutController:
      'delete the external resource where it lives (its external name is listed), then remove the finalizer',
    sources: [
      'crossplane-runtime pkg/reconciler/managed (finalizer.managedresource.crossplane.io; external-name annotation)',
      'https://docs.crossplane.io/latest/concepts/managed-resources/ (deletionPolicy, crossplane.io/external-name)',
    ],
  },
  {
    project: 'Velero',
    finalizers: [
      'restores.velero.io/external-resources-finalizer',
      'backups.velero.io/external-resources-finalizer',
      'velero.io/data-upload-download-finalizer',
    ],
    controller: {
      workloads: ['velero', 'node-agent'],
      labels: ['component=velero', 'app.kubernetes.io/name=velero'],
      leases: [],
      groups: ['velero.io'],
    },
    guards:
      'a Restore/Backup: its artifacts in object storage; a DataUpload/DataDownload: the data path of a running transfer and its intermediate objects',
    paths: [{ path: 'status.phase', kind: 'phase', what: 'phase' }],
    terminalPhases: ['Completed', 'PartiallyFailed', 'Failed', 'FailedValidation', 'Canceled'],
    leaks:
      'an interrupted transfer may leave snapshots and intermediate PVCs (labelled by Velero), and a Restore its logs and results in the bucket',
    withoutController:
      "run Velero's own uninstall when it can still run (it clears these finalizers and waits); once its namespace terminates, remove the finalizers of terminal objects, clean up the intermediate objects (PVCs and VolumeSnapshots labelled by Velero) of in-flight ones, then remove theirs",
    sources: [
      'vmware-tanzu/velero pkg/controller/data_upload_controller.go (DataUploadDownloadFinalizer = "velero.io/data-upload-download-finalizer")',
      'velero-io/velero#6687, #6802 and PR #6803 (the data-mover finalizer is dropped once the CR reaches a terminal phase)',
      'https://velero.io/docs/main/api-types/ (Restore and DataUpload phases)',
    ],
  },
  {
    project: 'OLM',
    finalizers: [
      'operatorframework.io/cleanup-apis',
      'olm.operatorframework.io/cleanup-unpack-cache',
      'olm.operatorframework.io/cleanup-contentmanager-cache',
    ],
    controller: {
      workloads: ['olm-operator', 'catalog-operator', 'operator-controller-controller-manager'],
      labels: ['app=olm-operator'],
      leases: [],
      groups: ['operators.coreos.com', 'olm.operatorframework.io'],
    },
    guards:
      "a ClusterServiceVersion with spec.cleanup.enabled: the operand custom resources of the operator's APIs, deleted before the operator goes; a ClusterExtension: OLM's caches",
    paths: [
      { path: 'status.cleanup.pendingDeletion[]', kind: 'objects', what: 'operand waiting for deletion' },
    ],
    leaks:
      "the operator's operands (its custom resources) are not deleted first and may be left without their operator",
    withoutController:
      "delete the operator's custom resources while the operator runs, then remove the finalizer",
    sources: [
      'operator-framework/operator-lifecycle-manager docs (spec.cleanup.enabled puts operatorframework.io/cleanup-apis on the CSV)',
      'operator-framework/operator-controller internal controllers (olm.operatorframework.io/cleanup-* finalizers)',
    ],
  },
  {
    project: 'cert-manager',
    finalizers: ['acme.cert-manager.io/finalizer', 'finalizer.acme.cert-manager.io'],
    controller: {
      workloads: ['cert-manager'],
      labels: ['app.kubernetes.io/name=cert-manager'],
      leases: ['cert-manager-controller'],
      groups: ['acme.cert-manager.io', 'cert-manager.io'],
    },
    guards: 'an ACME Challenge: the DNS01 record or HTTP01 solver presented for it',
    paths: [
      {
        path: 'status.presented',
        kind: 'external',
        what: 'challenge presented (a DNS record or solver exists)',
      },
      { path: 'status.state', kind: 'phase', what: 'state' },
    ],
    terminalPhases: ['valid', 'invalid', 'expired', 'errored'],
    leaks: 'a presented DNS01 TXT record (or HTTP01 solver) is not cleaned up',
    withoutController: 'remove the presented DNS record by hand, then remove the finalizer',
    sources: [
      'cert-manager internal/apis feature gate UseDomainQualifiedFinalizer (acme.cert-manager.io/finalizer, formerly finalizer.acme.cert-manager.io)',
      'https://cert-manager.io/docs/reference/api-docs/ (Challenge status.presented, status.state)',
    ],
  },
  {
    project: 'external-snapshotter',
    finalizers: [
      'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection',
      'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection',
      'snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection',
      'snapshot.storage.kubernetes.io/pvc-as-source-protection',
    ],
    controller: {
      workloads: ['snapshot-controller', 'csi-snapshotter'],
      labels: ['app.kubernetes.io/name=snapshot-controller', 'app=snapshot-controller'],
      leases: ['snapshot-controller-leader'],
      groups: ['snapshot.storage.k8s.io'],
    },
    guards:
      'the storage snapshot in the backend (VolumeSnapshotContent status.snapshotHandle) and the binding of snapshot and content',
    paths: [
      { path: 'status.snapshotHandle', kind: 'external', what: 'backend snapshot handle' },
      {
        path: 'status.boundVolumeSnapshotContentName',
        kind: 'external',
        what: 'bound VolumeSnapshotContent',
      },
    ],
    leaks: 'the backend snapshot is not deleted (deletionPolicy Delete never runs) and keeps costing',
    withoutController:
      'bring the snapshot controller back (it lives cluster-wide, usually in kube-system); only if it is gone for good, delete the backend snapshot by its handle, then remove the finalizers',
    sources: [
      'kubernetes-csi/external-snapshotter pkg/utils/util.go (the snapshot.storage.kubernetes.io/* finalizer names)',
      'https://kubernetes.io/docs/concepts/storage/volume-snapshots/ (snapshotHandle, deletionPolicy)',
    ],
  },
  {
    project: 'cloud load-balancer controllers',
    finalizers: ['service.kubernetes.io/load-balancer-cleanup', 'service.k8s.aws/resources'],
    controller: {
      workloads: ['cloud-controller-manager', 'aws-load-balancer-controller'],
      labels: ['app.kubernetes.io/name=aws-load-balancer-controller'],
      leases: ['cloud-controller-manager', 'aws-load-balancer-controller-leader'],
      groups: [''],
    },
    guards: 'the cloud load balancer of a Service of type LoadBalancer',
    paths: [{ path: 'status.loadBalancer.ingress[]', kind: 'external', what: 'load balancer address' }],
    leaks: 'the cloud load balancer (listed by address) is not deleted and keeps costing',
    withoutController:
      'bring the cloud controller back; only if it is gone for good, delete the load balancer in the cloud by its address, then remove the finalizer',
    sources: [
      'https://kubernetes.io/docs/concepts/services-networking/service/#garbage-collecting-load-balancers (service.kubernetes.io/load-balancer-cleanup)',
      'kubernetes-sigs/aws-load-balancer-controller (service.k8s.aws/resources)',
    ],
  },
  {
    project: 'CSI external-attacher',
    finalizers: [],
    prefixes: ['external-attacher/'],
    controller: {
      workloads: ['csi-attacher'],
      labels: [],
      leases: ['external-attacher-leader-'],
      groups: ['storage.k8s.io', ''],
    },
    guards: 'the attachment of a volume to a node, and through it the Delete reclaim of the disk',
    paths: [{ path: 'status.attached', kind: 'external', what: 'attached to its node' }],
    leaks: 'the volume is not detached and the backend disk of a Delete volume is never deleted',
    withoutController:
      'reinstall the storage driver and let it detach; only if it is gone for good, remove the finalizer from the VolumeAttachments, then the volumes, and delete the disks by hand',
    sources: [
      'kubernetes-csi/external-attacher pkg/controller/util.go (GetFinalizerName: external-attacher/<driver>)',
      'longhorn/longhorn#722, rancher/rancher#22829',
    ],
  },
];

/** Pure: the family a finalizer belongs to, if the catalogue knows it. */
export function familyOf(finalizer: string): FinalizerFamily | undefined {
  return finalizerCatalogue.find(
    (f) => f.finalizers.includes(finalizer) || (f.prefixes ?? []).some((p) => finalizer.startsWith(p)),
  );
}
