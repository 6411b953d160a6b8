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
  /**
   * Why it was taken: `a workload of Helm release ops/operator, which shipped CRD widgets.example.com`
   * (structure), or `name matches example`, `label app.kubernetes.io/name=strimzi matches strimzi` (a guess).
   */
  readonly match: string;
  readonly liveness: Liveness;
}

/**
 * How the candidates were found: `structure` (the CRD's owner: Helm release marks, OLM labels,
 * ownerReferences, and that owner's workloads) or `names` (the finalizer's words in names and
 * app labels: the last hint, a guess).
 */
export type SearchBasis = 'structure' | 'names';

/** The outcome of the controller search for one finalizer. */
export type ControllerSearch =
  /** Live objects that look like the finalizer's controller (`candidates`), not being deleted. */
  | {
      readonly result: 'found';
      readonly tokens: readonly string[];
      readonly candidates: readonly ControllerCandidate[];
      /** Absent: `names` (searches built before structure was read). */
      readonly basis?: SearchBasis;
    }
  /**
   * Nothing live owns or looks like the controller; `notLive`: owners' workloads or lookalikes
   * that do not run; `how`: how the owner is gone, when structure tells (`uninstalled: ...`,
   * `scaled to zero: ...`, `its namespace x is Terminating`).
   */
  | {
      readonly result: 'none';
      readonly tokens: readonly string[];
      readonly notLive: readonly ControllerCandidate[];
      readonly basis?: SearchBasis;
      readonly how?: string;
      /** The owner structure found (`Helm release ops/operator, which shipped CRD widgets.example.com`). */
      readonly owner?: string;
      /**
       * The owner's workloads that are installed and want to run (not being deleted, not in a
       * Terminating namespace, not scaled to zero) but have no available replica now: a rollout
       * that has not finished, a crash loop, a node NotReady for a while. The controller is down,
       * not gone: it may come back and remove the finalizer. Absent when it is gone.
       */
      readonly down?: readonly ControllerCandidate[];
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
export function findFinalizerControllers(
  inventory: Inventory,
  finalizer: string,
  objects: readonly ObjectMetadata[] = [],
): ControllerSearch {
  const tokens = controllerTokens(finalizer);
  const structural = structuralSearch(inventory, objects, tokens);
  if (structural?.result === 'found') return structural;
  // The last hint: the finalizer's words in names. A live lookalike is never called gone.
  const byNames =
    tokens.length === 0
      ? ({ result: 'unknown', reason: `finalizer ${finalizer} names no controller domain` } as const)
      : withBasis(findControllers(inventory, tokens), 'names');
  if (byNames.result === 'found' || !structural) return byNames;
  return structural;
}

/** A search result marked with how it was found (an unknown result is left as it is). */
function withBasis(search: ControllerSearch, basis: SearchBasis): ControllerSearch {
  return search.result === 'unknown' ? search : { ...search, basis };
}

/** One owner of a CRD, as structure tells, and the workloads that belong to it. */
interface CrdOwner {
  /** `Helm release ops/operator`, `OLM operator widgets.operators (label operators.coreos.com/widgets.operators)`. */
  readonly owner: string;
  readonly workloads: readonly ObjectMetadata[];
}

const workloadResources = ['deployments', 'statefulsets', 'daemonsets'] as const;

/** Pure: the Deployments, StatefulSets and DaemonSets of the snapshot. */
function workloadsOf(inventory: Inventory): ObjectMetadata[] {
  return workloadResources.flatMap((r) => objectsOf(inventory, 'apps', r));
}

/** OLM's label on what an operator installs: `operators.coreos.com/<package>.<namespace>` (OLM docs, "Operator Lifecycle Manager", operator conditions and labels). */
const olmOperatorLabelPrefix = 'operators.coreos.com/';
/** OLM's labels naming the ClusterServiceVersion that owns an object (olm.owner, olm.owner.namespace, olm.owner.kind). */
const olmOwnerLabel = 'olm.owner';
const olmOwnerNamespaceLabel = 'olm.owner.namespace';

/**
 * Pure: the owners of `crd` that structure shows, each with its workloads: the Helm release of
 * its `meta.helm.sh/release-*` annotations (and the workloads with the same annotations), the OLM
 * operator of its `operators.coreos.com/<package>.<namespace>` label (workloads carrying the same
 * label key) or of its `olm.owner` labels (workloads with the same `olm.owner` and
 * `olm.owner.namespace`), and each owner in its ownerReferences (a CSV, a Crossplane
 * ProviderRevision: the workloads that name the same owner, or the owner itself when it is a workload).
 */
function crdOwners(inventory: Inventory, crd: ObjectMetadata, crdName: string): CrdOwner[] {
  const workloads = workloadsOf(inventory);
  const owners: CrdOwner[] = [];
  const release = helmReleaseOf(crd.annotations);
  if (release)
    owners.push({
      owner: `Helm release ${release.namespace}/${release.name}, which shipped CRD ${crdName} (its meta.helm.sh annotations)`,
      workloads: workloads.filter((w) => {
        const r = helmReleaseOf(w.annotations);
        return r?.name === release.name && r.namespace === release.namespace;
      }),
    });
  for (const key of Object.keys(crd.labels ?? {})
    .filter((k) => k.startsWith(olmOperatorLabelPrefix))
    .sort())
    owners.push({
      owner: `OLM operator ${key.slice(olmOperatorLabelPrefix.length)}, which installed CRD ${crdName} (label ${key})`,
      workloads: workloads.filter((w) => w.labels?.[key] !== undefined),
    });
  const csv = crd.labels?.[olmOwnerLabel];
  if (csv)
    owners.push({
      owner: `ClusterServiceVersion ${crd.labels?.[olmOwnerNamespaceLabel] ?? ''}/${csv}, which owns CRD ${crdName} (label ${olmOwnerLabel})`,
      workloads: workloads.filter(
        (w) =>
          w.labels?.[olmOwnerLabel] === csv &&
          w.labels?.[olmOwnerNamespaceLabel] === crd.labels?.[olmOwnerNamespaceLabel],
      ),
    });
  for (const ref of crd.ownerReferences ?? []) {
    const asWorkload = workloads.filter((w) => w.uid === ref.uid);
    const siblings = workloads.filter((w) => w.ownerReferences?.some((o) => o.uid === ref.uid));
    owners.push({
      owner: `${ref.kind} ${ref.name}, which owns CRD ${crdName} (its ownerReferences)`,
      workloads: [...asWorkload, ...siblings],
    });
  }
  return owners;
}

/**
 * Pure: how the workloads of an owner that none of them runs read: gone with no workload left
 * (`uninstalled`), in a namespace being deleted, being deleted, or scaled to zero.
 */
function goneHow(inventory: Inventory, owner: CrdOwner, terminating: ReadonlySet<string>): string {
  if (owner.workloads.length === 0)
    return `uninstalled: ${owner.owner}, has no Deployment, StatefulSet or DaemonSet left`;
  const inTerminating = owner.workloads.filter((w) => w.namespace && terminating.has(w.namespace));
  if (inTerminating.length === owner.workloads.length)
    return `its namespace ${[...new Set(inTerminating.map((w) => w.namespace))].join(', ')} is Terminating, and its workloads go with it`;
  if (owner.workloads.every((w) => w.deletionTimestamp)) return 'its workloads are being deleted';
  const specs = new Map(
    workloadResources.flatMap((r) => fullObjectsOf(inventory, r)).map((w) => [w.metadata?.uid ?? '', w]),
  );
  if (owner.workloads.every((w) => specs.get(w.uid)?.spec?.replicas === 0))
    return `scaled to zero: ${owner.workloads.map(describeObject).join(', ')} ${owner.workloads.length === 1 ? 'has' : 'have'} spec.replicas 0`;
  return 'its workloads have no available replica, and no pod of theirs renews a Lease';
}

/**
 * Pure: the controller search from structure: the CRD of `objects` (custom resources), its
 * owners (`crdOwners`) and their workloads, live by `livenessReader` (an available replica, or
 * a pod of theirs that renews a Lease). Undefined when structure names no owner (built-in kinds,
 * a CRD without marks): the name search then decides.
 */
function structuralSearch(
  inventory: Inventory,
  objects: readonly ObjectMetadata[],
  tokens: readonly string[],
): ControllerSearch | undefined {
  const crdName = objects
    .map((o) => (groupOf(o.apiVersion) === '' ? undefined : `${o.resource}.${groupOf(o.apiVersion)}`))
    .find((n) => n !== undefined);
  if (!crdName) return undefined;
  const crd = objectsOf(inventory, 'apiextensions.k8s.io', 'customresourcedefinitions').find(
    (c) => c.name === crdName,
  );
  if (!crd) return undefined;
  const owners = crdOwners(inventory, crd, crdName);
  if (owners.length === 0) return undefined;
  const liveness = livenessReader(inventory);
  const terminating = terminatingNamespaces(inventory);
  const candidates = owners.flatMap((o) =>
    o.workloads.map((w) => ({
      object: w,
      match: `a workload of ${o.owner}`,
      liveness:
        w.deletionTimestamp || (w.namespace && terminating.has(w.namespace))
          ? { live: false, reason: 'being deleted, or in a Terminating namespace' }
          : liveness(w),
    })),
  );
  const live = candidates.filter((c) => c.liveness.live);
  if (live.length) return { result: 'found', tokens, candidates: live, basis: 'structure' };
  const unlisted = workloadResources.filter((r) => !wasListed(inventory, 'apps', r));
  if (unlisted.length)
    return { result: 'unknown', reason: `could not list ${unlisted.join(', ')} to look for its controller` };
  const specs = new Map(
    workloadResources.flatMap((r) => fullObjectsOf(inventory, r)).map((w) => [w.metadata?.uid ?? '', w]),
  );
  const down = candidates.filter(
    (c) =>
      !c.object.deletionTimestamp &&
      !(c.object.namespace && terminating.has(c.object.namespace)) &&
      specs.get(c.object.uid)?.spec?.replicas !== 0,
  );
  return {
    result: 'none',
    tokens,
    notLive: candidates,
    basis: 'structure',
    owner: owners.map((o) => o.owner).join('; '),
    how: owners.map((o) => goneHow(inventory, o, terminating)).join('; '),
    ...(down.length > 0 ? { down } : {}),
  };
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

/** Said after a search by names: it is the last hint, not structure. */
const guessNote =
  "; a guess from names: nothing in the structure (the CRD's Helm marks, OLM labels, ownerReferences) names its controller";

/**
 * The evidence line of a controller search: which object was taken as the controller and why,
 * or that nothing live matches (naming the lookalikes that do not run), or why it is unknown.
 */
export function describeControllerSearch(search: ControllerSearch, source: string): string {
  const words = (tokens: readonly string[]) =>
    `the word${tokens.length === 1 ? '' : 's'} ${tokens.join(', ')} (from ${source})`;
  if (search.result === 'found' && search.basis === 'structure')
    return `taken as its controller (live, and structure ties it to the objects' CRD): ${describeCandidates(search.candidates)}`;
  if (search.result === 'found')
    return (
      `taken as its controller (live, and its name, namespace or app label carries ${words(search.tokens)}): ` +
      `${describeCandidates(search.candidates)}` +
      (search.basis === 'names' ? guessNote : '')
    );
  if (search.result === 'none' && search.down)
    return (
      `its controller is installed but does not run now: its owner is ${search.owner ?? 'unknown'}; ` +
      `down, not gone (it may come back and remove the finalizer): ${describeCandidates(search.down)}`
    );
  if (search.result === 'none' && search.basis === 'structure')
    return (
      `no controller for it runs: its owner is ${search.owner ?? 'unknown'}; ${search.how ?? ''}` +
      (search.notLive.length ? `; not live: ${describeCandidates(search.notLive)}` : '') +
      (search.tokens.length
        ? `; and no live Deployment, StatefulSet, DaemonSet or Lease carries ${words(search.tokens)} in its name, namespace or app label`
        : '')
    );
  if (search.result === 'none')
    return (
      `no controller for it appears to run: no live Deployment, StatefulSet, DaemonSet (available replicas) or Lease ` +
      `(renewed within its duration) outside a Terminating namespace carries ${words(search.tokens)} in its name, ` +
      'namespace or app label' +
      (search.notLive.length ? `; not live, so not taken: ${describeCandidates(search.notLive)}` : '') +
      (search.basis === 'names' ? guessNote : '')
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
