/**
 * Helm release records as the snapshot sees them: the metadata of Helm's storage Secrets
 * (type helm.sh/release.v1, the default `secret` driver) and, for the `configmap` driver
 * (`HELM_DRIVER=configmap`), ConfigMaps: both named `sh.helm.release.v1.<release>.v<revision>`,
 * labelled `owner=helm`, `name=<release>`, `status=<status>`, `version=<revision>` and, since Helm
 * 3.13, `modifiedAt=<epoch seconds>` (helm.sh/helm pkg/storage/driver/secrets.go and cfgmaps.go
 * write the same name and labels). The snapshot lists Secrets and ConfigMaps as metadata only,
 * so the release body (manifest, hooks) is not read here: everything comes from the labels.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { objectsOf } from './snapshot-views.js';
import { helmDriverPrefix as driverPrefix, type ReleaseStorageKind } from '../helm/release-storage.js';

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

/** The kind of object a release record is stored in: Secret (`secret` driver) or ConfigMap (`configmap` driver). */
export type RecordStorage = ReleaseStorageKind;

/** One stored revision of a release, from its record's labels. */
export interface ReleaseRecord {
  readonly namespace: string;
  readonly name: string;
  readonly revision: number;
  /** The `status` label: deployed, superseded, failed, pending-*, uninstalling, uninstalled. */
  readonly status: string;
  /** The `modifiedAt` label as ms since the epoch, when present and numeric. */
  readonly modifiedAt?: number;
  /** Which Helm storage driver wrote it: a Secret or a ConfigMap. */
  readonly storage: RecordStorage;
  /** The record object (a Secret or a ConfigMap, as `storage` says). */
  readonly record: ObjectMetadata;
}

/** Every revision of one release, oldest first; `current` is the highest revision. */
export interface ReleaseHistory {
  /**
   * The namespace the release was installed into: the record's own namespace, or the one its
   * body names when the snapshot read it (`inventory.helmRecords`) and it differs (a GitOps Helm
   * controller's storage namespace).
   */
  readonly namespace: string;
  /** The namespace its records are stored in. */
  readonly storageNamespace: string;
  /** What its records are stored in: Secrets or ConfigMaps (the `configmap` driver). */
  readonly storage: RecordStorage;
  readonly name: string;
  readonly revisions: readonly ReleaseRecord[];
  readonly current: ReleaseRecord;
}

/** `<namespace>/<name>` of a release. */
export const releaseId = (namespace: string, name: string): string => `${namespace}/${name}`;

function recordOf(o: ObjectMetadata, storage: RecordStorage): ReleaseRecord | undefined {
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
    storage,
    record: o,
  };
}

/**
 * Pure: the release histories the listed Secrets and ConfigMaps hold (one history per storage
 * kind, storage namespace and release name), sorted by namespace and name. A history whose
 * current revision's body was read (`inventory.helmRecords`) and names the same release in
 * another namespace is the release of that namespace, stored in the record's (S28).
 */
export function releaseHistories(inventory: Inventory): ReleaseHistory[] {
  const bodies = new Map((inventory.helmRecords ?? []).map((r) => [r.storage.uid, r]));
  const byRelease = new Map<string, ReleaseRecord[]>();
  const stored = [
    ...objectsOf(inventory, '', 'secrets').map((o) => recordOf(o, 'Secret')),
    ...objectsOf(inventory, '', 'configmaps').map((o) => recordOf(o, 'ConfigMap')),
  ];
  for (const record of stored) {
    if (!record) continue;
    const id = `${record.storage}/${releaseId(record.namespace, record.name)}`;
    const list = byRelease.get(id);
    if (list) list.push(record);
    else byRelease.set(id, [record]);
  }
  return [...byRelease.values()]
    .map((records) => {
      const revisions = [...records].sort((a, b) => a.revision - b.revision);
      const current = revisions[revisions.length - 1]!;
      const body = bodies.get(current.record.uid);
      const namespace =
        body &&
        body.storage.kind === current.storage &&
        body.release.name === current.name &&
        body.release.namespace
          ? body.release.namespace
          : current.namespace;
      return {
        namespace,
        storageNamespace: current.namespace,
        storage: current.storage,
        name: current.name,
        revisions,
        current,
      };
    })
    .sort(
      (a, b) =>
        a.namespace.localeCompare(b.namespace) ||
        a.name.localeCompare(b.name) ||
        a.storage.localeCompare(b.storage),
    );
}

/**
 * Pure: `releaseHistories` keyed by `releaseId`. A release recorded by both drivers (a Secret
 * and a ConfigMap history of the same name and namespace) is keyed to the installed one, the
 * Secret's when both are or neither is.
 */
export function releaseHistoriesById(inventory: Inventory): Map<string, ReleaseHistory> {
  const out = new Map<string, ReleaseHistory>();
  for (const h of releaseHistories(inventory)) {
    const id = releaseId(h.namespace, h.name);
    const seen = out.get(id);
    if (!seen || (!isInstalled(seen) && isInstalled(h))) out.set(id, h);
  }
  return out;
}

/** `Secret pr-1/sh.helm.release.v1.web.v2` or `ConfigMap ...`: the record, named with its kind. */
export function describeRecord(record: ReleaseRecord): string {
  return `${record.storage} ${record.namespace}/${record.record.name}`;
}

/**
 * The environment a helm command needs to find a release's records: `HELM_DRIVER=configmap `
 * for the configmap driver, nothing for Secrets (Helm's default driver).
 */
export function helmDriverPrefix(history: ReleaseHistory): string {
  return driverPrefix(history.storage);
}

/** `no release Secret or ConfigMap sh.helm.release.v1.<name>.v* (owner=helm) in namespace <ns>`. */
export const noRecordWords = (name: string, namespace: string): string =>
  `no release Secret or ConfigMap ${releaseSecretPrefix}${name}.v* (owner=helm) in namespace ${namespace}`;

/** Resource plural of a record kind, for kubectl: `secrets` or `configmaps`. */
export const recordResource = (storage: RecordStorage): string =>
  storage === 'Secret' ? 'secrets' : 'configmaps';

/** Whether the release exists for Helm: its current revision is not `uninstalled` (kept history). */
export function isInstalled(history: ReleaseHistory): boolean {
  return history.current.status !== 'uninstalled';
}
