import { isBuiltInGroup } from '../kube/built-in-groups.js';
import type { ProvidedCrd, ReleaseFacts } from './release-facts.js';
import { notOwnedReason } from './release-reach.js';

/** What the plan reads of a live CustomResourceDefinition (from the snapshot) to judge whose it is. */
export interface LiveCrd {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly { readonly kind?: string; readonly name?: string }[];
  /** `spec.group`, `spec.names.plural`, `spec.names.kind`, `spec.scope` (`Namespaced` or `Cluster`). */
  readonly group?: string;
  readonly plural?: string;
  readonly kind?: string;
  readonly scope?: string;
}

/** What the cluster says about the kind a release's CRD declares. */
export interface CrdEvidence {
  /** The CustomResourceDefinition of that name in the cluster (snapshot), if any. */
  readonly liveCrd: (name: string) => LiveCrd | undefined;
  /** Whether the API server serves that group and kind (discovery). */
  readonly served: (group: string, kind: string) => boolean;
  /** Groups served by the API server itself besides `builtInGroups` (APIServices automanaged `onstart`). */
  readonly builtInGroups?: ReadonlySet<string>;
  /** Groups an aggregated API serves (an APIService with a `spec.service`): not a CRD's. */
  readonly aggregatedGroups?: ReadonlySet<string>;
  /** Set when the snapshot could not list every CustomResourceDefinition: `liveCrd` may miss one. */
  readonly crdsUnlisted?: boolean;
}

/** OLM marks a CRD it installed (operator-framework: `olm.managed`, `operators.coreos.com/<package>.<namespace>`). */
const isOlmLabel = (key: string) => key.startsWith('olm.') || key.startsWith('operators.coreos.com/');

/**
 * Pure: which owner other than `release` a live CRD from the chart's `crds/` folder names, or
 * undefined. Helm creates `crds/` files as they are written, without its ownership marks, so
 * the marks cannot show that it is this release's; what can be seen is the mark of another
 * owner: Helm release annotations naming another release (a templated CRD of another chart),
 * ownerReferences (an object some controller made), or OLM's labels (an operator's CRD).
 */
export function foreignOwnerOf(live: LiveCrd, release: ReleaseFacts['release']): string | undefined {
  const a = live.annotations ?? {};
  const name = a['meta.helm.sh/release-name'];
  const namespace = a['meta.helm.sh/release-namespace'];
  if (
    (name !== undefined || namespace !== undefined) &&
    (name !== release.name || namespace !== release.namespace)
  )
    return `its meta.helm.sh annotations name release ${JSON.stringify(`${namespace ?? ''}/${name ?? ''}`)}`;
  const owners = live.ownerReferences ?? [];
  if (owners.length > 0)
    return `it has ownerReferences (${owners.map((o) => JSON.stringify(`${o.kind ?? ''} ${o.name ?? ''}`)).join(', ')})`;
  const olm = Object.keys(live.labels ?? {}).filter(isOlmLabel);
  if (olm.length > 0) return `it carries OLM labels (${olm.map((k) => JSON.stringify(k)).join(', ')})`;
  return undefined;
}

/** Pure: whether the live CRD declares what the release's file declares (group, plural, kind, scope). */
function sameDeclaration(crd: ProvidedCrd, live: LiveCrd): boolean {
  return (
    live.group === crd.group &&
    live.plural === crd.plural &&
    live.kind === crd.kind &&
    (live.scope === 'Cluster') === !crd.namespaced
  );
}

/**
 * Pure: whether the "instances first" step may delete (deletecollection in the scoped
 * namespaces) the instances of `crd`, which `facts`' release ships; and if not, whether that
 * is a refusal of the teardown. Instances are deleted only of a CRD that is the release's:
 *
 * - its group is not the API server's own (`isBuiltInGroup`) nor an aggregated API's: a
 *   `crds/` file may declare `ingresses.networking.k8s.io`, whose "instances" are every
 *   Ingress of the scope. Refused.
 * - it exists in the cluster, declaring the same group, plural, kind and scope as the release
 *   does. One that does not exist while its kind is served is someone else's kind: refused;
 *   one that does not exist and is not served has no instances: skipped (not a refusal).
 * - it carries evidence that it is the release's. A CRD in the templates carries this release's
 *   Helm marks (`notOwnedReason`: annotations meta.helm.sh/release-name and release-namespace,
 *   label app.kubernetes.io/managed-by: Helm), as Helm sets them on every object it renders.
 *   A CRD from the chart's `crds/` folder carries none (Helm creates those files as written,
 *   once, and never touches them again), so it is taken as the release's when it carries no
 *   other owner's mark (`foreignOwnerOf`) or this release's own marks. What no mark can tell is
 *   a CRD that another chart's `crds/` folder (or kubectl) installed with no mark at all: its
 *   instances in the scoped namespaces are deleted; nothing outside the scope ever is.
 *
 * @returns `use: true` when its instances are deleted first; else `refusal` (the message names
 *   the release, the file and why) or neither (skipped: nothing to delete).
 */
export function crdInstancesDecision(
  facts: ReleaseFacts,
  crd: ProvidedCrd,
  evidence: CrdEvidence,
): { use: boolean; refusal?: string } {
  const where = crd.source === 'crds/' ? `chart file ${crd.file}` : 'templates';
  const refuse = (why: string) => ({
    use: false,
    refusal:
      `release ${facts.key} declares CustomResourceDefinition ${crd.name} in its ${where}, but ${why}: ` +
      "kube-sweep deletes the custom resources of a CRD first only when the CRD is the release's. The record may be " +
      'forged: check it, then remove the release by hand',
  });
  if (isBuiltInGroup(crd.group, evidence.builtInGroups))
    return refuse(
      `${JSON.stringify(crd.group)} is a group the API server serves itself, so its kinds are Kubernetes' own`,
    );
  if (evidence.aggregatedGroups?.has(crd.group))
    return refuse(
      `group ${crd.group} is served by an aggregated API (an APIService with a service), not by a CRD`,
    );
  const live = evidence.liveCrd(crd.name);
  if (!live) {
    if (!evidence.served(crd.group, crd.kind)) return { use: false };
    if (evidence.crdsUnlisted)
      return refuse('the CustomResourceDefinitions could not all be listed, so whose it is is unknown');
    return refuse(
      `no CustomResourceDefinition of that name exists while the API server serves kind ${crd.kind} of group ${crd.group}`,
    );
  }
  if (!sameDeclaration(crd, live))
    return refuse(
      'the CustomResourceDefinition of that name in the cluster declares another group, plural, kind or scope',
    );
  const why =
    crd.source === 'templates'
      ? notOwnedReason(live, facts.release)
      : notOwnedReason(live, facts.release) === undefined
        ? undefined
        : foreignOwnerOf(live, facts.release);
  return why ? refuse(`the one in the cluster is not the release's (${why})`) : { use: true };
}

/**
 * Pure: which CRDs of the releases have their instances deleted first (`first`), and the
 * refusals of those that are not the release's (`crdInstancesDecision`). Without `evidence`
 * (callers that know nothing of the cluster) only the built-in group check runs and every
 * other CRD keeps its instances-first step.
 */
export function crdInstancesChecks(
  facts: readonly ReleaseFacts[],
  evidence: CrdEvidence | undefined,
): { first: ReadonlySet<ProvidedCrd>; refusals: string[] } {
  const first = new Set<ProvidedCrd>();
  const refusals: string[] = [];
  const known: CrdEvidence = evidence ?? { liveCrd: () => undefined, served: () => false };
  for (const f of facts) {
    for (const crd of f.crds) {
      const decision = crdInstancesDecision(f, crd, known);
      if (decision.refusal) refusals.push(decision.refusal);
      else if (decision.use || !evidence) first.add(crd);
    }
  }
  return { first, refusals };
}
