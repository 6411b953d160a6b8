/**
 * Helm release records as the snapshot sees them: the metadata of Helm's storage Secrets
 * (type helm.sh/release.v1, named `sh.helm.release.v1.<release>.v<revision>`, labelled
 * `owner=helm`, `name=<release>`, `status=<status>`, `version=<revision>` and, since Helm 3.13,
 * `modifiedAt=<epoch seconds>`). The snapshot lists Secrets as metadata only, so the release
 * body (manifest, hooks) is not read here: everything comes from the labels.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { objectsOf } from './snapshot-views.js';

/** Prefix of the name of every Helm 3/4 release Secret. */
export const releaseSecretPrefix = 'sh.helm.release.v1.';

/** Annotations Helm sets on every object it renders from templates (not on hooks or crds/ files). */
export const releaseNameAnnotation = 'meta.helm.sh/release-name';
export const releaseNamespaceAnnotation = 'meta.helm.sh/release-namespace';
/** Annotation that makes an object a hook (pre-install, pre-delete, test, ...). */
export const hookAnnotation = 'helm.sh/hook';
/** `helm.sh/resource-policy: keep` stops Helm's own delete of the object on uninstall. */
export const resourcePolicyAnnotation = 'helm.sh/resource-policy';

/**
 * The Helm release that rendered an object, from the `meta.helm.sh/release-*` annotations Helm
 * sets on every object of a chart's templates (Helm docs, "Charts": not on hooks or `crds/`).
 */
export function helmReleaseOf(
  annotations: Readonly<Record<string, string>> | undefined,
): { readonly namespace: string; readonly name: string } | undefined {
  const name = annotations?.[releaseNameAnnotation];
  const namespace = annotations?.[releaseNamespaceAnnotation];
  return name && namespace ? { namespace, name } : undefined;
}

/** One stored revision of a release, from its Secret's labels. */
export interface ReleaseRecord {
  readonly namespace: string;
  readonly name: string;
  readonly revision: number;
  /** The `status` label: deployed, superseded, failed, pending-*, uninstalling, uninstalled. */
  readonly status: string;
  /** The `modifiedAt` label as ms since the epoch, when present and numeric. */
  readonly modifiedAt?: number;
  readonly secret: ObjectMetadata;
}

/** Every revision of one release, oldest first; `current` is the highest revision. */
export interface ReleaseHistory {
  /**
   * The namespace the release was installed into: the record's own namespace, or the one its
   * body names when the snapshot read it (`inventory.helmRecords`) and it differs (a GitOps Helm
   * controller's storage namespace).
   */
  readonly namespace: string;
  /** The namespace its record Secrets are stored in. */
  readonly storageNamespace: string;
  readonly name: string;
  readonly revisions: readonly ReleaseRecord[];
  readonly current: ReleaseRecord;
}

/** `<namespace>/<name>` of a release. */
export const releaseId = (namespace: string, name: string): string => `${namespace}/${name}`;

function recordOf(o: ObjectMetadata): ReleaseRecord | undefined {
  const labels = o.labels ?? {};
  if (o.namespace === undefined || labels.owner !== 'helm' || !o.name.startsWith(releaseSecretPrefix))
    return undefined;
  const name = labels.name;
  const revision = Number(labels.version);
  if (!name || !Number.isInteger(revision) || revision < 1) return undefined;
  const modified = Number(labels.modifiedAt);
  return {
    namespace: o.namespace,
    name,
    revision,
    status: labels.status ?? 'unknown',
    ...(labels.modifiedAt && Number.isFinite(modified) ? { modifiedAt: modified * 1000 } : {}),
    secret: o,
  };
}

/**
 * Pure: the release histories the listed Secrets hold, sorted by namespace and name. A history
 * whose current revision's body was read (`inventory.helmRecords`) and names the same release in
 * another namespace is the release of that namespace, stored in the Secret's (S28).
 */
export function releaseHistories(inventory: Inventory): ReleaseHistory[] {
  const bodies = new Map((inventory.helmRecords ?? []).map((r) => [r.storage.uid, r]));
  const byRelease = new Map<string, ReleaseRecord[]>();
  for (const o of objectsOf(inventory, '', 'secrets')) {
    const record = recordOf(o);
    if (!record) continue;
    const id = releaseId(record.namespace, record.name);
    const list = byRelease.get(id);
    if (list) list.push(record);
    else byRelease.set(id, [record]);
  }
  return [...byRelease.values()]
    .map((records) => {
      const revisions = [...records].sort((a, b) => a.revision - b.revision);
      const current = revisions[revisions.length - 1]!;
      const body = bodies.get(current.secret.uid);
      const namespace =
        body && body.storage.kind === 'Secret' && body.release.name === current.name && body.release.namespace
          ? body.release.namespace
          : current.namespace;
      return { namespace, storageNamespace: current.namespace, name: current.name, revisions, current };
    })
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}

/** Pure: `releaseHistories` keyed by `releaseId`. */
export function releaseHistoriesById(inventory: Inventory): Map<string, ReleaseHistory> {
  return new Map(releaseHistories(inventory).map((h) => [releaseId(h.namespace, h.name), h]));
}

/** Whether the release exists for Helm: its current revision is not `uninstalled` (kept history). */
export function isInstalled(history: ReleaseHistory): boolean {
  return history.current.status !== 'uninstalled';
}
