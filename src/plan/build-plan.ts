import { groupOf } from '../kube/api-version.js';
import { keptByHelm, parseManifest, type ManifestObject } from '../helm/manifest.js';
import { deleteHooks, type HelmRelease } from '../helm/release-storage.js';
import type { RefusedRelease } from '../helm/discover-releases.js';
import { crdInstancesChecks, type CrdEvidence } from './crd-ownership.js';
import { dependencyEdges, type ResourceLookup } from './dependencies.js';
import { nameProtectionOnly, protectionReason, type NamespaceProtection } from './protected-namespaces.js';
import { earlierRevisionFacts, releaseFacts, type ProvidedCrd, type ReleaseFacts } from './release-facts.js';
import {
  hookReachRefusals,
  ownershipRefusals,
  type LiveObjectLookup,
  type UnlistedLookup,
} from './release-reach.js';
import { releaseKey, type ReleaseRef, type ResolvedScope } from './scope.js';
import { stagesOf, type OrderingEdge } from './stages.js';
import { gitopsApplicationKinds, gitopsWaves, type GitOpsApplicationRef } from './gitops-order.js';
import { inputRef, Inputs, inputSet } from '../words/input-words.js';

/** A release named in an `order` line: `name` (any namespace in scope) or `namespace/name`. */
export interface OrderRef {
  readonly namespace?: string;
  readonly name: string;
}

/** One `order` input line, `before -> after`. */
export interface UserOrdering {
  readonly before: OrderRef;
  readonly after: OrderRef;
  /** The line as written, for messages. */
  readonly line: string;
}

export interface PlanInput {
  readonly scope: ResolvedScope;
  /** The `releases` input; empty means every release in the scoped namespaces. */
  readonly releaseRefs: readonly ReleaseRef[];
  /** Current releases found in the scoped namespaces and in the namespaces of `releaseRefs`. */
  readonly foundReleases: readonly HelmRelease[];
  readonly userOrder: readonly UserOrdering[];
  readonly deleteNamespaces: boolean;
  readonly resourceOf: ResourceLookup;
  /** Whether a kind is namespaced (discovery); undefined when it is not served. Default: unknown. */
  readonly namespacedOf?: (group: string, kind: string) => boolean | undefined;
  /**
   * The live object a manifest names (from the snapshot), for the ownership check of objects
   * outside the scope (release-reach.ts). Default: none known (nothing is checked). The
   * delete-hook check (also release-reach.ts) runs when `namespacedOf` is given.
   */
  readonly liveObject?: LiveObjectLookup;
  /**
   * The kinds the snapshot could not list (release-reach.ts `unlistedKinds` of the inventory's
   * coverage gaps): an object outside the scope of such a kind is refused, its owner unknown.
   * Default: none.
   */
  readonly unlistedKind?: UnlistedLookup;
  /**
   * The instances of a custom resource kind in the cluster (from the snapshot), as
   * `namespace/name` (or `name` when cluster-scoped). Used to find CRD cascades out of scope.
   */
  readonly instancesOf: (
    group: string,
    kind: string,
  ) => readonly {
    namespace?: string;
    name: string;
    labels?: Readonly<Record<string, string>>;
    annotations?: Readonly<Record<string, string>>;
  }[];
  /**
   * Refusals of the scope itself (scope.ts `scopeRefusals`: no-literal patterns, a selector alone
   * that is only negative or matches everything, more than `max-namespaces`); listed first.
   */
  readonly scopeRefusals?: readonly string[];
  /**
   * Releases with records in both Helm storage drivers in one namespace (discover-releases.ts
   * `joinDrivers`; not among `foundReleases`): refused when the teardown would take the release
   * (its namespace is in scope, or `releaseRefs` names it). Default: none.
   */
  readonly storageConflicts?: readonly { namespace: string; name: string; message: string }[];
  /**
   * Releases with a record kube-sweep refused (discover-releases.ts `releasesOfRecords`; not
   * among `foundReleases`): `helm uninstall` would read that record too, or instead. Refused
   * when the teardown would take the release (its namespace is in scope and it has a current
   * revision, or `releaseRefs` names it). Default: none.
   */
  readonly refusedReleases?: readonly RefusedRelease[];
  /**
   * The other stored revisions of `foundReleases` (discover-releases.ts `earlierRevisions`):
   * `helm uninstall` acts on one of them when it cannot decode a later one, so their objects
   * and delete hooks are checked as the current revision's are (ownership, reach, protected
   * namespaces). Default: none.
   */
  readonly earlierRevisions?: readonly HelmRelease[];
  /**
   * What the cluster says about the CRDs the releases ship (crd-ownership.ts): a CRD's instances
   * are deleted first only when it is the release's (`crdInstancesDecision`); otherwise the
   * teardown is refused or the CRD skipped. Default: unknown; only the built-in group check runs.
   */
  readonly crdEvidence?: CrdEvidence;
}

/** One stage: releases that go together, after the CRD instances they ship are gone. */
export interface PlannedStage {
  readonly index: number;
  /** Release keys (`namespace/name`), sorted. */
  readonly releases: readonly string[];
  /**
   * CRDs shipped by this stage's releases whose instances in scope are deleted (and awaited)
   * first: only those the release owns (crd-ownership.ts `crdInstancesDecision`).
   */
  readonly crdInstancesFirst: readonly ProvidedCrd[];
  /**
   * The instances in scope of the GitOps application kinds among `crdInstancesFirst`, in deletion
   * waves (gitops-order.ts: leaf applications first, an app of apps after its children), deleted
   * and awaited wave by wave before the rest; empty when they make fewer than two waves.
   */
  readonly gitopsWaves: readonly (readonly GitOpsApplicationRef[])[];
}

/** The teardown plan: plain data, logged and shown; `mode: plan` stops here. */
export interface TeardownPlan {
  readonly scope: ResolvedScope;
  readonly releases: readonly ReleaseFacts[];
  readonly edges: readonly OrderingEdge[];
  readonly stages: readonly PlannedStage[];
  /** Namespaces deleted after the last stage (empty when delete-namespaces is false). */
  readonly namespacesToDelete: readonly string[];
  readonly warnings: readonly string[];
  /**
   * Why this teardown must not run at all (it would delete something outside the scope).
   * `mode: teardown` stops with an error before any request that changes the cluster.
   */
  readonly refusals: readonly string[];
}

const refMatches = (ref: OrderRef, r: ReleaseFacts) =>
  ref.name === r.release.name && (ref.namespace === undefined || ref.namespace === r.release.namespace);

/**
 * Pure: the plan of a teardown. Releases in scope are the `releases` input, or every release
 * in the scoped namespaces; the order is the dependency edges (dependencies.ts) plus the
 * `order` input; stages are the levels of that graph.
 * @throws OrderingCycleError when the constraints form a cycle (names it)
 * @throws ManifestParseError when a release's stored manifest is not YAML
 */
export function buildPlan(input: PlanInput): TeardownPlan {
  const warnings: string[] = [];
  const scoped = new Set(input.scope.namespaces);
  const facts = chosenReleases(input, scoped, warnings)
    .map(releaseFacts)
    .sort((a, b) => a.key.localeCompare(b.key));
  const edges: OrderingEdge[] = [
    ...dependencyEdges(facts, input.resourceOf),
    ...userEdges(input, facts, warnings),
  ];
  const byKey = new Map(facts.map((f) => [f.key, f]));
  const instances = crdInstancesChecks(facts, input.crdEvidence);
  const stages: PlannedStage[] = stagesOf(
    facts.map((f) => f.key),
    edges,
  ).map((keys, index) => {
    const crdInstancesFirst = keys
      .flatMap((k) => byKey.get(k)!.crds.filter((c) => instances.first.has(c)))
      .sort((a, b) => a.name.localeCompare(b.name));
    return {
      index,
      releases: keys,
      crdInstancesFirst,
      gitopsWaves: stageWaves(input, crdInstancesFirst, scoped),
    };
  });
  warnings.push(...keptButDeletedWarnings(input, facts), ...outsideObjectWarnings(facts, scoped));
  // What helm uninstall may act on: the current revision, or an earlier one it decodes when it cannot decode a later one.
  const reach = [...facts, ...earlierRevisionFacts(input.earlierRevisions ?? [], facts)];
  const named = (c: { namespace: string; name: string }) =>
    input.releaseRefs.some((r) => r.namespace === c.namespace && r.name === c.name);
  const refusals = [
    ...(input.scopeRefusals ?? []),
    ...protectedReleaseRefusals(input.releaseRefs, input.scope.protection ?? nameProtectionOnly),
    ...(input.refusedReleases ?? [])
      .filter((r) => (r.current && scoped.has(r.namespace)) || named(r))
      .map((r) => r.message),
    ...protectedObjectRefusals(input, reach),
    ...(input.namespacedOf ? hookReachRefusals(reach, scoped, input.namespacedOf) : []),
    ...(input.namespacedOf && input.liveObject
      ? ownershipRefusals(reach, scoped, input.namespacedOf, input.liveObject, input.unlistedKind)
      : []),
    ...crdCascadeRefusals(input, reach, scoped),
    ...instances.refusals,
    ...namespaceObjectRefusals(reach, scoped, input.scope.protection ?? nameProtectionOnly),
    ...unlistedReleaseRefusals(input, facts, scoped),
    ...(input.storageConflicts ?? [])
      .filter((c) => scoped.has(c.namespace) || named(c))
      .map((c) => c.message),
  ];
  if (
    input.scope.namespaces.length === 0 &&
    input.scope.protectedMatched.length > 0 &&
    input.releaseRefs.length === 0
  ) {
    refusals.push(
      `the scope matches only protected namespaces (${input.scope.protectedMatched.join(', ')}), which are never torn down; name the environment's own namespaces`,
    );
  }
  for (const p of input.scope.protectedMatched)
    warnings.push(`namespace ${p} matched the scope but is protected: it is never deleted`);
  for (const p of input.scope.unmatchedPatterns)
    warnings.push(`namespace pattern '${p}' matched no namespace`);
  return {
    scope: input.scope,
    releases: facts,
    edges,
    stages,
    namespacesToDelete: input.deleteNamespaces ? input.scope.namespaces : [],
    warnings,
    refusals,
  };
}

/** Pure: the GitOps applications in scope of a stage's CRDs, in waves (none when fewer than two). */
function stageWaves(
  input: PlanInput,
  crds: readonly ProvidedCrd[],
  scoped: ReadonlySet<string>,
): GitOpsApplicationRef[][] {
  const instances = crds
    .filter(
      (c) => c.namespaced && gitopsApplicationKinds.some((k) => k.group === c.group && k.kind === c.kind),
    )
    .flatMap((c) =>
      input
        .instancesOf(c.group, c.kind)
        .filter((i) => i.namespace !== undefined && scoped.has(i.namespace))
        .map((i) => ({
          group: c.group,
          kind: c.kind,
          namespace: i.namespace!,
          name: i.name,
          ...(i.labels ? { labels: i.labels } : {}),
          ...(i.annotations ? { annotations: i.annotations } : {}),
        })),
    );
  const waves = gitopsWaves(instances);
  return waves.length > 1
    ? waves.map((w) =>
        w.map((i) => ({ group: i.group, kind: i.kind, namespace: i.namespace!, name: i.name })),
      )
    : [];
}

/** Pure: the releases the `releases` input names (a missing one is a warning), else all in the scoped namespaces. */
function chosenReleases(input: PlanInput, scoped: ReadonlySet<string>, warnings: string[]): HelmRelease[] {
  if (input.releaseRefs.length === 0) return input.foundReleases.filter((r) => scoped.has(r.namespace));
  const chosen: HelmRelease[] = [];
  for (const ref of input.releaseRefs) {
    const found = input.foundReleases.find((r) => r.namespace === ref.namespace && r.name === ref.name);
    const conflict = [...(input.storageConflicts ?? []), ...(input.refusedReleases ?? [])].some(
      (c) => c.namespace === ref.namespace && c.name === ref.name,
    );
    if (found) chosen.push(found);
    // A release with records in both drivers, or a refused record, is not among foundReleases: it is refused instead.
    else if (!conflict) warnings.push(`release ${releaseKey(ref)} was not found (already uninstalled?)`);
  }
  return chosen;
}

/** Pure: the edges of the `order` input; a line that names no release in scope is a warning. */
function userEdges(input: PlanInput, facts: readonly ReleaseFacts[], warnings: string[]): OrderingEdge[] {
  const edges: OrderingEdge[] = [];
  for (const o of input.userOrder) {
    const before = facts.filter((f) => refMatches(o.before, f));
    const after = facts.filter((f) => refMatches(o.after, f));
    if (before.length === 0 || after.length === 0) {
      warnings.push(
        `order '${o.line}': no release in scope matches '${before.length === 0 ? refText(o.before) : refText(o.after)}'`,
      );
      continue;
    }
    for (const b of before)
      for (const a of after)
        if (b !== a) edges.push({ before: b.key, after: a.key, reason: `order input: ${o.line}` });
  }
  return edges;
}

/** Pure: a namespaced object Helm keeps in a namespace this teardown deletes goes anyway: say so. */
function keptButDeletedWarnings(input: PlanInput, facts: readonly ReleaseFacts[]): string[] {
  const deleted = new Set(input.deleteNamespaces ? input.scope.namespaces : []);
  const out: string[] = [];
  for (const f of facts) {
    for (const o of f.objects) {
      const ns = o.namespace ?? f.release.namespace;
      const clusterScoped = input.namespacedOf?.(groupOf(o.apiVersion), o.kind) === false;
      if (keptByHelm(o.annotations) && deleted.has(ns) && o.kind !== 'Namespace' && !clusterScoped) {
        out.push(
          `release ${f.key} keeps ${o.kind} ${ns}/${o.name} (helm.sh/resource-policy: keep), but namespace ${ns} is deleted ` +
            `too, which deletes it anyway; move it out of the namespace or set ${inputSet(Inputs.deleteNamespaces, 'false')}`,
        );
      }
    }
  }
  return out;
}

/**
 * Pure: helm uninstall deletes a CRD that a release's templates hold, and the API server then
 * deletes every instance of it, in every namespace: refuse when that reaches outside the scope.
 */
function crdCascadeRefusals(
  input: PlanInput,
  facts: readonly ReleaseFacts[],
  scoped: ReadonlySet<string>,
): string[] {
  const out: string[] = [];
  const inScopeManifests = new Set(facts.flatMap((f) => f.objects.map((o) => `${o.kind}/${o.name}`)));
  for (const f of facts) {
    for (const crd of f.crds.filter((c) => c.source === 'templates')) {
      const outside = input
        .instancesOf(crd.group, crd.kind)
        .filter((i) =>
          i.namespace === undefined
            ? !inScopeManifests.has(`${crd.kind}/${i.name}`)
            : !scoped.has(i.namespace),
        )
        .map((i) => (i.namespace ? `${i.namespace}/${i.name}` : i.name))
        .sort();
      if (outside.length > 0) {
        out.push(
          `release ${f.key} ships CRD ${crd.name} in its templates, so uninstalling it deletes the CRD and with it ` +
            `${outside.length} ${crd.kind} object(s) outside the scope (${outside.slice(0, 5).join(', ')}${outside.length > 5 ? ', …' : ''}); ` +
            'add their namespaces to the scope or tear them down first',
        );
      }
    }
  }
  return out;
}

/**
 * Pure: a Namespace object in a release's manifest goes with the release (helm uninstall
 * deletes it, and so does kube-sweep): refuse when it is outside the scope.
 */
function namespaceObjectRefusals(
  facts: readonly ReleaseFacts[],
  scoped: ReadonlySet<string>,
  protection: NamespaceProtection,
): string[] {
  const out: string[] = [];
  for (const f of facts) {
    for (const o of f.objects) {
      if (
        o.kind === 'Namespace' &&
        groupOf(o.apiVersion) === '' && // the core group, parsed as the teardown's resource lookup parses it
        !scoped.has(o.name) &&
        !keptByHelm(o.annotations)
      ) {
        const why = protectionReason(o.name, protection);
        out.push(
          `release ${f.key} renders Namespace ${o.name}, which is ${why ? `protected (${why})` : 'outside the scope'}: ` +
            'removing the release deletes that namespace and everything in it; ' +
            (why
              ? 'kube-sweep never deletes it: annotate it helm.sh/resource-policy: keep or remove the release by hand'
              : `add ${o.name} to the scope (namespaces) or annotate it helm.sh/resource-policy: keep`),
        );
      }
    }
  }
  return out;
}

/**
 * Pure: a namespace that is deleted takes every release in it along, uninstalled or not: a
 * release there that is not torn down would lose its record and strand its cluster-scoped objects.
 */
function unlistedReleaseRefusals(
  input: PlanInput,
  facts: readonly ReleaseFacts[],
  scoped: ReadonlySet<string>,
): string[] {
  if (!input.deleteNamespaces || input.releaseRefs.length === 0) return [];
  const chosenKeys = new Set(facts.map((f) => f.key));
  return input.foundReleases
    .filter((r) => scoped.has(r.namespace) && !chosenKeys.has(releaseKey(r)))
    .map(
      (r) =>
        `namespace ${r.namespace} is to be deleted but holds release ${releaseKey(r)}, which ${inputRef(Inputs.releases)} does not list; ` +
        `add it to ${inputRef(Inputs.releases)}, or set ${inputSet(Inputs.deleteNamespaces, 'false')}`,
    );
}

/**
 * Pure: a `releases` entry in a protected namespace is refused, whether or not such a release
 * exists (a release there is never uninstalled; issue 21).
 */
function protectedReleaseRefusals(refs: readonly ReleaseRef[], protection: NamespaceProtection): string[] {
  return refs.flatMap((ref) => {
    const why = protectionReason(ref.namespace, protection);
    return why
      ? [
          `release ${releaseKey(ref)} is in protected namespace ${ref.namespace} (${why}): kube-sweep never uninstalls ` +
            `releases there; take it out of ${inputRef(Inputs.releases)}`,
        ]
      : [];
  });
}

/**
 * Pure: removing a release deletes every object of its manifest (Helm does, or kube-sweep under
 * `uninstall-mode: auto`), wherever the manifest puts it; a manifest read from a release Secret
 * may name an object in a protected namespace (a forged or careless one): refuse the teardown,
 * naming the object (issue 21). Objects Helm keeps (`helm.sh/resource-policy: keep`) and
 * cluster-scoped kinds (`namespacedOf` false) are not in a namespace.
 * The same for the objects of its `pre-delete` and `post-delete` hooks: `helm uninstall` creates
 * them, waits for them and deletes them by their hook-delete-policy, all in the namespace their
 * manifest names; a hook manifest that does not parse is refused too (where it goes is unknown).
 */
function protectedObjectRefusals(input: PlanInput, facts: readonly ReleaseFacts[]): string[] {
  const protection = input.scope.protection ?? nameProtectionOnly;
  const out: string[] = [];
  const check = (f: ReleaseFacts, o: ManifestObject, where: string) => {
    if (input.namespacedOf?.(groupOf(o.apiVersion), o.kind) === false) return;
    const ns = o.namespace ?? f.release.namespace;
    const why = protectionReason(ns, protection);
    if (why)
      out.push(
        `release ${f.key} has ${o.kind} ${ns}/${o.name} in its ${where}, in protected namespace ${ns} (${why}): ` +
          'removing the release would delete it; kube-sweep never deletes objects there. Remove the release by hand ' +
          'after moving that object out of its manifest',
      );
  };
  for (const f of facts) {
    for (const o of f.objects) {
      if (keptByHelm(o.annotations) || o.kind === 'Namespace') continue;
      check(f, o, 'manifest');
    }
    for (const hook of deleteHooks(f.release.hooks)) {
      let objects: ManifestObject[];
      try {
        objects = parseManifest(hook.manifest, `release ${f.key} hook ${hook.path}`);
      } catch {
        out.push(
          `release ${f.key} has a delete hook (${hook.path}) whose manifest does not parse: where helm uninstall ` +
            'would create and delete its objects is unknown. Remove the release by hand',
        );
        continue;
      }
      for (const o of objects)
        if (o.kind !== 'Namespace') check(f, o, `${hook.events.join('/')} hook ${hook.path}`);
    }
  }
  return out;
}

/** Pure: a release's own objects go with it, even in other namespaces: say so before it happens. */
function outsideObjectWarnings(facts: readonly ReleaseFacts[], scoped: ReadonlySet<string>): string[] {
  return facts.flatMap((f) =>
    f.objects
      .filter(
        (o) => o.namespace !== undefined && o.namespace !== f.release.namespace && !scoped.has(o.namespace),
      )
      .map(
        (o) =>
          `release ${f.key} also has ${o.kind} ${o.namespace}/${o.name}, in a namespace outside the scope: uninstalling the release deletes it`,
      ),
  );
}

function refText(ref: OrderRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}
