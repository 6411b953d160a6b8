import { groupOf } from '../kube/api-version.js';
import { keptByHelm, parseManifest, type ManifestObject } from '../helm/manifest.js';
import { deleteHooks } from '../helm/release-storage.js';
import type { ReleaseFacts } from './release-facts.js';

/** The metadata of a live object that ownership is judged by (from the inventory snapshot). */
export interface LiveMetadata {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/**
 * The live object a manifest names, by API group (`''` for core), kind, namespace (undefined
 * for a cluster-scoped one) and name; undefined when the snapshot does not hold it.
 */
export type LiveObjectLookup = (
  group: string,
  kind: string,
  namespace: string | undefined,
  name: string,
) => LiveMetadata | undefined;

/** Whether a kind is namespaced (discovery); undefined when it is not served. */
export type NamespacedLookup = (group: string, kind: string) => boolean | undefined;

/**
 * Whether the snapshot could not list a kind (a coverage gap: the list was forbidden or
 * failed), by API group and kind: the snapshot cannot say whether an object of it exists.
 */
export type UnlistedLookup = (group: string, kind: string) => boolean;

/**
 * Pure: the kinds the snapshot could not list, from its coverage gaps of reason `forbidden` or
 * `failed`, which name a list as `<resource>[.<group>]/<version>` (inventory/collect.ts);
 * `resourceOf` maps a group and kind to its resource (discovery). A kind discovery does not
 * serve is not unlisted (nothing can be deleted of it).
 */
export function unlistedKinds(
  coverage: readonly { readonly resource: string; readonly reason: string }[],
  resourceOf: (group: string, kind: string) => { readonly resource: string } | undefined,
): UnlistedLookup {
  const lists = new Set(
    coverage
      .filter((g) => g.reason !== 'discovery')
      .map((g) => g.resource.slice(0, g.resource.lastIndexOf('/'))),
  );
  return (group, kind) => {
    const r = resourceOf(group, kind);
    return r !== undefined && lists.has(group ? `${r.resource}.${group}` : r.resource);
  };
}

/**
 * Pure: why a live object is not `release`'s, or undefined when it is. Helm marks what it owns
 * with the label `app.kubernetes.io/managed-by: Helm` and the annotations
 * `meta.helm.sh/release-name` and `meta.helm.sh/release-namespace` (set on every object it
 * creates since Helm 3.2; helm.sh/helm/v3 pkg/action/validate.go, `checkOwnership`, which refuses
 * to adopt an object that lacks them).
 */
export function notOwnedReason(live: LiveMetadata, release: ReleaseFacts['release']): string | undefined {
  const annotations = live.annotations ?? {};
  const name = annotations['meta.helm.sh/release-name'];
  const namespace = annotations['meta.helm.sh/release-namespace'];
  if (name === undefined || namespace === undefined)
    return 'it has no meta.helm.sh/release-name and release-namespace annotations';
  if (name !== release.name || namespace !== release.namespace)
    return `its meta.helm.sh annotations name release ${JSON.stringify(`${namespace}/${name}`)}`;
  if (live.labels?.['app.kubernetes.io/managed-by'] !== 'Helm')
    return 'it has no app.kubernetes.io/managed-by: Helm label';
  return undefined;
}

/**
 * Pure: removing a release deletes the objects its manifest names outside the namespaces being
 * torn down (cluster-scoped ones, and namespaced ones elsewhere): `helm uninstall` does (Helm 3
 * without asking whose they are), and kube-sweep itself under `uninstall-mode: auto`. The
 * manifest is read from a release Secret, which anyone who can write Secrets in a scoped
 * namespace can forge, naming e.g. ClusterRole cluster-admin. So each such object that exists
 * (`liveObject`) must carry the release's own Helm ownership marks (`notOwnedReason`); one
 * that does not is a surprise, and the teardown is refused, naming it (issue 21). So is one of a
 * kind the snapshot could not list (`unlisted`: a coverage gap), whose owner is unknown: an
 * identity that may delete ClusterRoles but not list them let Helm delete one no release
 * owned. Objects Helm
 * keeps (`helm.sh/resource-policy: keep`) are not deleted and not checked; Namespace objects
 * have their own refusal (build-plan.ts).
 * @param scoped the namespaces the teardown deletes (objects there go with them)
 * @param unlisted the kinds the snapshot could not list (`unlistedKinds`); default none
 * @returns one refusal message per object, in release and manifest order
 */
export function ownershipRefusals(
  facts: readonly ReleaseFacts[],
  scoped: ReadonlySet<string>,
  namespacedOf: NamespacedLookup,
  liveObject: LiveObjectLookup,
  unlisted: UnlistedLookup = () => false,
): string[] {
  const out: string[] = [];
  for (const f of facts) {
    for (const o of f.objects) {
      if (keptByHelm(o.annotations) || o.kind === 'Namespace') continue;
      const where = placeOf(o, f, namespacedOf);
      if (where.namespace !== undefined && scoped.has(where.namespace)) continue;
      const group = groupOf(o.apiVersion);
      const live = liveObject(group, o.kind, where.namespace, o.name);
      const why = live
        ? notOwnedReason(live, f.release)
        : unlisted(group, o.kind)
          ? `kube-sweep could not list ${o.kind} objects (a coverage gap: grant list on them, rbac/), so whose it is is unknown`
          : undefined;
      if (why)
        out.push(
          `release ${f.key} names ${o.kind} ${where.text} in its manifest, outside the scope, but that object is not ` +
            `the release's (${why}): removing the release would delete it. The release record may be forged or the ` +
            'object adopted by hand; check the record, then remove the release by hand',
        );
    }
  }
  return out;
}

/**
 * Pure: `helm uninstall` creates the objects of a release's `pre-delete` and `post-delete` hooks
 * with the identity that runs it (kube-sweep's), before and after the release's objects go
 * (helm.sh/docs: Chart Hooks). A forged or careless hook could create a ClusterRoleBinding or an
 * object in another team's namespace. Such a hook object may only be namespaced and in the
 * scope or the release's own namespace; a cluster-scoped one, one elsewhere, or one of a kind
 * the API server does not serve is refused, naming it (issue 21). A hook manifest that does not
 * parse is refused by build-plan.ts (`protectedObjectRefusals`).
 * @param scoped the namespaces the teardown deletes
 * @returns one refusal message per hook object outside them
 */
export function hookReachRefusals(
  facts: readonly ReleaseFacts[],
  scoped: ReadonlySet<string>,
  namespacedOf: NamespacedLookup,
): string[] {
  const out: string[] = [];
  for (const f of facts) {
    for (const hook of deleteHooks(f.release.hooks)) {
      let objects: ManifestObject[];
      try {
        objects = parseManifest(hook.manifest, `release ${f.key} hook ${hook.path}`);
      } catch {
        continue;
      }
      for (const o of objects) {
        const where = placeOf(o, f, namespacedOf);
        if (
          where.namespace !== undefined &&
          (scoped.has(where.namespace) || where.namespace === f.release.namespace)
        )
          continue;
        out.push(
          `release ${f.key} has a ${hook.events.join('/')} hook (${hook.path}) that creates ${o.kind} ${where.text}, ` +
            `${where.namespace === undefined ? (where.served ? 'a cluster-scoped object' : 'of a kind the API server does not serve') : 'outside the scope'}: ` +
            "helm uninstall would create it with kube-sweep's identity. Check the hook, then remove the release by hand",
        );
      }
    }
  }
  return out;
}

/** Pure: where a manifest object lives: its namespace (undefined: cluster-scoped or not served) and its name for messages. */
function placeOf(
  o: ManifestObject,
  f: ReleaseFacts,
  namespacedOf: NamespacedLookup,
): { namespace: string | undefined; text: string; served: boolean } {
  const namespaced = namespacedOf(groupOf(o.apiVersion), o.kind);
  if (namespaced !== true) return { namespace: undefined, text: o.name, served: namespaced === false };
  const namespace = o.namespace ?? f.release.namespace;
  return { namespace, text: `${namespace}/${o.name}`, served: true };
}
