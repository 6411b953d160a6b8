/**
 * Who is expected to remove a finalizer. Kubernetes' own finalizers are data here (each with
 * the controller that removes it); for any other finalizer a heuristic looks for a running
 * controller in the snapshot (see `findFinalizerControllers`).
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { livenessReader, type Liveness } from './controller-liveness.js';
import { helmReleaseOf, releaseNameAnnotation, releaseNamespaceAnnotation } from './helm-releases.js';
import { fullObjectsOf, terminatingNamespaces } from './kubernetes-objects.js';
import { describeObject, objectsOf, wasListed } from './snapshot-views.js';

/**
 * Finalizers that Kubernetes itself removes, and which component does (kubernetes/kubernetes:
 * pkg/controller/volume/{pvc,pv}protection, pkg/controller/garbagecollector,
 * staging/src/k8s.io/apiextensions-apiserver/pkg/controller/finalizer, pkg/controller/job,
 * staging/src/k8s.io/cloud-provider/controllers/service). Never reported as "operator gone".
 */
export const builtInFinalizers: Readonly<Record<string, string>> = {
  'kubernetes.io/pvc-protection':
    'the pvc-protection controller of kube-controller-manager (it removes it once no pod with spec.nodeName uses the claim)',
  'kubernetes.io/pv-protection':
    'the pv-protection controller of kube-controller-manager (it removes it once no claim is bound to the volume)',
  foregroundDeletion:
    'the garbage collector of kube-controller-manager (it removes it once every dependent with blockOwnerDeletion is gone)',
  orphan:
    "the garbage collector of kube-controller-manager (it removes it after dropping the dependents' ownerReferences)",
  'customresourcecleanup.apiextensions.k8s.io':
    'the CRD finalizer of kube-apiserver (it removes it once every instance of the CRD is gone)',
  'batch.kubernetes.io/job-tracking': 'the job controller of kube-controller-manager',
  'service.kubernetes.io/load-balancer-cleanup': 'the service controller of the cloud controller manager',
  kubernetes: 'the namespace controller of kube-controller-manager',
};

/** Domain labels too common to point at one controller. */
const genericLabels = new Set([
  'api',
  'apis',
  'app',
  'apps',
  'cloud',
  'com',
  'controller',
  'controllers',
  'crd',
  'crds',
  'dev',
  'install',
  'io',
  'k8s',
  'kubernetes',
  'net',
  'operator',
  'operators',
  'org',
  'service',
  'services',
  'sh',
  'system',
  'www',
  'x-k8s',
]);

/**
 * The distinctive names in a finalizer that its controller is likely to carry: the labels of
 * its domain part (before `/`, or the whole name when it has dots and no `/`) minus TLDs and
 * generic words and labels containing "finalizer". `strimzi.io/topic-operator` → [strimzi];
 * `resources-finalizer.argocd.argoproj.io` → [argocd, argoproj]; `example.com/cleanup` →
 * [example]; a bare name (`foregroundDeleteKubeVirt`) → [].
 */
export function controllerTokens(finalizer: string): string[] {
  const slash = finalizer.indexOf('/');
  const domain = slash >= 0 ? finalizer.slice(0, slash) : finalizer.includes('.') ? finalizer : '';
  const labels = domain
    .toLowerCase()
    .split('.')
    .filter((l) => l && !genericLabels.has(l) && !l.includes('finalizer'));
  return [...new Set(labels)];
}

/** Whether `token`'s dash-separated words appear, in order and contiguous, among `text`'s words. */
function containsWords(text: string, token: string): boolean {
  const words = text.toLowerCase().split(/[-._]/);
  const wanted = token.split('-');
  for (let i = 0; i + wanted.length <= words.length; i++)
    if (wanted.every((w, j) => words[i + j] === w)) return true;
  return false;
}

/**
 * The kinds whose objects can show that a controller runs (controller-liveness.ts): where it
 * runs (with available replicas) and its leader-election Lease (renewed in time).
 * ServiceAccounts, Services and the like outlive their controller and prove nothing.
 */
const footprintKinds = [
  { group: 'apps', resource: 'deployments' },
  { group: 'apps', resource: 'statefulsets' },
  { group: 'apps', resource: 'daemonsets' },
  { group: 'coordination.k8s.io', resource: 'leases' },
] as const;

const matchedLabels = ['app.kubernetes.io/name', 'app.kubernetes.io/part-of', 'app'];

/** An object that looks like the controller, why it was matched, and whether it is live. */
export interface ControllerCandidate {
  readonly object: ObjectMetadata;
  /** `name matches example`, `label app.kubernetes.io/name=strimzi matches strimzi`. */
  readonly match: string;
  readonly liveness: Liveness;
}

/** The outcome of the controller search for one finalizer. */
export type ControllerSearch =
  /** Live objects that look like the finalizer's controller (`candidates`), not being deleted. */
  | {
      readonly result: 'found';
      readonly tokens: readonly string[];
      readonly candidates: readonly ControllerCandidate[];
    }
  /** Nothing live looks like the controller; `notLive`: lookalikes that do not run. */
  | {
      readonly result: 'none';
      readonly tokens: readonly string[];
      readonly notLive: readonly ControllerCandidate[];
    }
  /** No conclusion: the finalizer names no controller, or a footprint kind could not be listed. */
  | { readonly result: 'unknown'; readonly reason: string };

/**
 * Heuristic: does anything in the cluster look like the controller of `finalizer`, and run? A
 * candidate is a Deployment, StatefulSet, DaemonSet or Lease whose name, namespace, or
 * `app.kubernetes.io/name` / `app.kubernetes.io/part-of` / `app` label contains one of
 * `controllerTokens(finalizer)` as whole words; it counts only when it is live
 * (controller-liveness.ts: a workload with available replicas, a Lease renewed within its
 * duration plus grace). Excluded: objects being deleted, objects in a Terminating namespace (a
 * controller in a namespace being deleted goes with it, scenario S03) and node Leases
 * (kube-node-lease). A false "found" only softens the finding to StuckFinalizer; "none" is
 * concluded only when every footprint kind was listed.
 */
export function findFinalizerControllers(inventory: Inventory, finalizer: string): ControllerSearch {
  const tokens = controllerTokens(finalizer);
  if (tokens.length === 0)
    return { result: 'unknown', reason: `finalizer ${finalizer} names no controller domain` };
  return findControllers(inventory, tokens);
}

/**
 * The distinctive words of a controller's name as a label gives it
 * (`app.kubernetes.io/managed-by: prometheus-operator` → [prometheus]), generic words and
 * `helm` dropped.
 */
export function nameTokens(name: string): string[] {
  const words = name
    .toLowerCase()
    .split(/[-._/]/)
    .filter((w) => w && !genericLabels.has(w) && w !== 'helm' && w !== 'manager');
  return [...new Set(words)];
}

/** Which of the object's texts matched which token, in words, or undefined. */
function matchOf(o: ObjectMetadata, tokens: readonly string[]): string | undefined {
  const texts: [string, string][] = [
    ['name', o.name],
    ['namespace', o.namespace ?? ''],
    ...matchedLabels.map((l): [string, string] => [`label ${l}=${o.labels?.[l] ?? ''}`, o.labels?.[l] ?? '']),
  ];
  for (const [where, text] of texts) {
    const token = tokens.find((t) => text && containsWords(text, t));
    if (token) return `${where} matches ${token}`;
  }
  return undefined;
}

/** The search of `findFinalizerControllers` for given tokens (non-empty). */
export function findControllers(inventory: Inventory, tokens: readonly string[]): ControllerSearch {
  const terminating = terminatingNamespaces(inventory);
  const kinds = new Set(footprintKinds.map((k) => `${k.group}/${k.resource}`));
  const liveness = livenessReader(inventory);
  const matched: ControllerCandidate[] = [];
  for (const o of inventory.objects) {
    if (!kinds.has(`${groupOf(o.apiVersion)}/${o.resource}`)) continue;
    if (o.deletionTimestamp || (o.namespace && terminating.has(o.namespace))) continue;
    if (o.namespace === 'kube-node-lease') continue;
    const match = matchOf(o, tokens);
    if (match) matched.push({ object: o, match, liveness: liveness(o) });
  }
  const candidates = matched.filter((c) => c.liveness.live);
  if (candidates.length) return { result: 'found', tokens, candidates };
  const unlisted = footprintKinds.filter((k) => !wasListed(inventory, k.group, k.resource));
  if (unlisted.length)
    return {
      result: 'unknown',
      reason: `could not list ${unlisted.map((k) => k.resource).join(', ')} to look for its controller`,
    };
  return { result: 'none', tokens, notLive: matched };
}

/** One evidence line per candidate: `deployments.apps ns/x (name matches x; 1 of 1 replicas available)`. */
export function describeCandidates(candidates: readonly ControllerCandidate[], max = 5): string {
  const shown = candidates
    .slice(0, max)
    .map((c) => `${describeObject(c.object)} (${c.match}; ${c.liveness.reason})`);
  return shown.join(', ') + (candidates.length > max ? ` and ${candidates.length - max} more` : '');
}

/**
 * The evidence line of a controller search: which object was taken as the controller and why,
 * or that nothing live matches (naming the lookalikes that do not run), or why it is unknown.
 */
export function describeControllerSearch(search: ControllerSearch, source: string): string {
  const words = (tokens: readonly string[]) =>
    `the word${tokens.length === 1 ? '' : 's'} ${tokens.join(', ')} (from ${source})`;
  if (search.result === 'found')
    return `taken as its controller (live, and its name, namespace or app label carries ${words(search.tokens)}): ${describeCandidates(search.candidates)}`;
  if (search.result === 'none')
    return (
      `no controller for it appears to run: no live Deployment, StatefulSet, DaemonSet (available replicas) or Lease ` +
      `(renewed within its duration) outside a Terminating namespace carries ${words(search.tokens)} in its name, ` +
      'namespace or app label' +
      (search.notLive.length ? `; not live, so not taken: ${describeCandidates(search.notLive)}` : '')
    );
  return `whether its controller runs is unknown: ${search.reason}`;
}

/** Where the controller of custom resources came from, as far as the snapshot tells. */
export interface ControllerOrigin {
  /** The CRD of the objects (`<plural>.<group>`). */
  readonly crd: string;
  /** Whether that CRD is being deleted (then `helm install` of a chart that templates it fails). */
  readonly crdDeleting: boolean;
  /** The Helm release that shipped the CRD, from its `meta.helm.sh/release-*` annotations. */
  readonly release?: { readonly namespace: string; readonly name: string };
  /** Deployments of that release still in the snapshot (scaled to zero, say), sorted. */
  readonly deployments: readonly ObjectMetadata[];
}

/**
 * Pure: the origin of the controller of `objects` when they are custom resources whose CRD is in
 * the snapshot: the CRD, the Helm release that shipped it (the annotations Helm sets on every
 * templated object; a CRD from a chart's `crds/` folder has none, Helm docs "Custom Resource
 * Definitions") and that release's Deployments. Undefined for built-in kinds or an unknown CRD.
 */
export function controllerOrigin(
  inventory: Inventory,
  objects: readonly ObjectMetadata[],
): ControllerOrigin | undefined {
  const crds = fullObjectsOf(inventory, 'customresourcedefinitions');
  for (const o of objects) {
    const group = groupOf(o.apiVersion);
    if (group === '') continue;
    const crd = crds.find((c) => c.metadata?.name === `${o.resource}.${group}`);
    if (!crd) continue;
    const release = helmReleaseOf(crd.metadata?.annotations);
    const deployments = release
      ? objectsOf(inventory, 'apps', 'deployments').filter(
          (d) =>
            d.annotations?.[releaseNameAnnotation] === release.name &&
            d.annotations?.[releaseNamespaceAnnotation] === release.namespace,
        )
      : [];
    return {
      crd: `${o.resource}.${group}`,
      crdDeleting: Boolean(crd.metadata?.deletionTimestamp),
      ...(release ? { release } : {}),
      deployments,
    };
  }
  return undefined;
}
