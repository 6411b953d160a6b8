/**
 * The API groups the Kubernetes API server serves itself (k8s.io/kubernetes pkg/controlplane
 * and staging/src/k8s.io/apiextensions-apiserver, kube-aggregator: the groups of the built-in
 * REST storage, through v1.37), never a CustomResourceDefinition's: the core group `''`, the
 * legacy groups without a dot, and the `*.k8s.io` groups below. A CRD may be created in a
 * `*.k8s.io` group (with the `api-approved.kubernetes.io` annotation), but for these the
 * built-in handler answers first, so a "CRD" of one names Kubernetes' own kind.
 */
export const builtInGroups: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/**
 * Pure: whether `group` is served by the API server itself, not by a CustomResourceDefinition:
 * one of `builtInGroups`, any group without a dot (the API server refuses a CRD whose group has
 * none, k8s.io/apiextensions-apiserver validation.go), or one of `servedBuiltIn` (the groups of
 * the cluster's APIServices labelled `kube-aggregator.kubernetes.io/automanaged: onstart`, which
 * the kube-aggregator registers for the built-in groups of the version it runs; CRD groups get
 * `automanaged: "true"`).
 */
export function isBuiltInGroup(group: string, servedBuiltIn: ReadonlySet<string> = new Set()): boolean {
  return builtInGroups.has(group) || !group.includes('.') || servedBuiltIn.has(group);
}
