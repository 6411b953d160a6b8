import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { shellCommand } from '../util/shell-quote.js';
import {
  currentReleases,
  decodeRelease,
  helmDriver,
  helmDriverPrefix,
  ReleaseDecodeError,
  type HelmRelease,
  type ReleaseStorageKind,
} from './release-storage.js';

interface RecordItem {
  metadata?: { name?: string; labels?: Record<string, string> };
  data?: { release?: string };
}

interface RecordList {
  items?: RecordItem[];
}

/** A release record (Secret or ConfigMap) that was refused (`decodeRelease` threw, or `recordLabelProblem`), and why. */
export interface RefusedRecord {
  readonly kind: ReleaseStorageKind;
  readonly namespace: string;
  /** The record's name (the Secret's or the ConfigMap's). */
  readonly secret: string;
  /** The decoder's message (names the record; never quotes the record's own fields). */
  readonly reason: string;
  /**
   * Its `name` label: the release `helm uninstall <name>` reads it for (Helm selects records by
   * the labels `owner=helm,name=<release>`, never by their JSON); absent when it has none.
   */
  readonly release?: string;
}

/** Where `findReleases` reads release records. */
export interface ReleaseSources {
  /** Namespaces whose release Secrets (Helm's default `secret` driver) are listed. */
  readonly namespaces: readonly string[];
  /**
   * Of `namespaces`, those whose release ConfigMaps (the `configmap` driver) are listed too:
   * where the inventory saw one (inventory/helm-records.ts `configMapRecordNamespaces`), or
   * `all` when the inventory could not list ConfigMaps in full.
   */
  readonly configMapNamespaces: ReadonlySet<string> | 'all';
  /** How many lists run at once (the inventory's `list-concurrency`). */
  readonly concurrency: number;
}

/** What `findReleases` found. */
export interface FoundReleases {
  /** The current revision of each release, sorted by namespace and name. */
  readonly releases: HelmRelease[];
  /** Lists that failed (the teardown stops before any change: it would be half-blind). */
  readonly problems: string[];
  readonly refused: RefusedRecord[];
  /**
   * Releases with current records in both drivers in one namespace, left out of `releases`:
   * the plan refuses them before any change.
   */
  readonly conflicts: DriverConflict[];
  /**
   * Releases with a refused record (`RefusedRecord.release`), left out of `releases`: the plan
   * refuses them before any change (`refusedReleaseOf`).
   */
  readonly refusedReleases: RefusedRelease[];
  /**
   * Every other accepted revision of the releases in `releases` (same namespace, name and
   * storage kind), sorted. `helm uninstall` decodes records with Go's strict JSON types and
   * skips one it cannot decode (helm.sh/helm pkg/storage/driver secrets.go and cfgmaps.go
   * `Query`): it may act on one of these, so the plan checks their reach too.
   */
  readonly earlierRevisions: HelmRelease[];
}

/**
 * A release (records of one storage kind, namespace and `name` label) of which kube-sweep
 * refused a record: what `helm uninstall` would act on is unknown.
 */
export interface RefusedRelease {
  readonly namespace: string;
  readonly name: string;
  readonly kind: ReleaseStorageKind;
  /**
   * Whether the release has an accepted current revision (one a teardown of its namespace would
   * uninstall). A release of refused records only is never run through Helm: the plan refuses
   * it only when the `releases` input names it.
   */
  readonly current: boolean;
  /** Why the teardown cannot go on, naming each refused record and the fix (`refusedReleaseOf`). */
  readonly message: string;
}

/** A release name with current records in both Helm storage drivers in one namespace. */
export interface DriverConflict {
  readonly namespace: string;
  readonly name: string;
  /** Why the teardown cannot go on, naming both records and the fix (`driverConflict`). */
  readonly message: string;
}

/** One list: the release records of one kind in one namespace. */
interface Target {
  readonly namespace: string;
  readonly kind: ReleaseStorageKind;
}

const resourceOf = (kind: ReleaseStorageKind) => (kind === 'Secret' ? 'secrets' : 'configmaps');

/** Lists one target's records (labelSelector owner=helm): the items, nothing for a 404, or the problem. */
async function listRecords(api: ApiClient, t: Target): Promise<RecordList | string> {
  try {
    return await api.request<RecordList>({
      path: `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/${resourceOf(t.kind)}`,
      query: { labelSelector: 'owner=helm' },
    });
  } catch (error) {
    if (error instanceof KubernetesApiError && error.status === 404) return {};
    return `listing Helm release ${t.kind}s in namespace ${t.namespace}: ${(error as Error).message}`;
  }
}

/** `helm uninstall -n <ns> -- <name>` as a user runs it for a release stored in `kind`. */
const uninstallCommand = (r: HelmRelease) =>
  helmDriverPrefix(r.storage.kind) + shellCommand(['helm', 'uninstall', '-n', r.namespace, '--', r.name]);

/**
 * Pure: why a teardown cannot go on when release `secret` (stored in Secrets) and release
 * `configMap` (stored in ConfigMaps) have the same name and namespace: Helm keeps them as two
 * releases, one per storage driver, and which one the user means is unknown. Names both
 * records and the fix.
 */
export function driverConflict(secret: HelmRelease, configMap: HelmRelease): string {
  const record = (r: HelmRelease) =>
    `${r.storage.kind} ${r.namespace}/${r.storage.name} (revision ${r.revision}, ${r.status})`;
  return (
    `release ${secret.name} in namespace ${secret.namespace} has records of both Helm storage drivers: ` +
    `${record(secret)} and ${record(configMap)}. Helm keeps them as two releases (one for HELM_DRIVER=secret, ` +
    'one for HELM_DRIVER=configmap) and kube-sweep cannot know which one the teardown should remove: ' +
    `uninstall the one you mean (${uninstallCommand(secret)}, or ${uninstallCommand(configMap)}) or delete ` +
    'the stale records of the other, then run the teardown again'
  );
}

/**
 * Pure: the current releases of each driver joined, a release found in both (same namespace and
 * name) left out and described in `conflicts` (`driverConflict`). Sorted by namespace and name.
 */
export function joinDrivers(
  secrets: readonly HelmRelease[],
  configMaps: readonly HelmRelease[],
): { releases: HelmRelease[]; conflicts: DriverConflict[] } {
  const key = (r: HelmRelease) => `${r.namespace}/${r.name}`;
  const inSecrets = new Map(secrets.map((r) => [key(r), r]));
  const conflicts: DriverConflict[] = [];
  const both = new Set<string>();
  for (const c of configMaps) {
    const s = inSecrets.get(key(c));
    if (!s) continue;
    both.add(key(c));
    conflicts.push({ namespace: c.namespace, name: c.name, message: driverConflict(s, c) });
  }
  const releases = [...secrets, ...configMaps]
    .filter((r) => !both.has(key(r)))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  return { releases, conflicts };
}

/** The records of one storage kind listed in one namespace (labelSelector owner=helm). */
export interface ListedRecords {
  readonly namespace: string;
  readonly kind: ReleaseStorageKind;
  readonly items: readonly RecordItem[];
}

/** Prefix of the name of every Helm 3/4 release record (helm.sh/helm pkg/storage/driver, `makeKey` with the drivers' prefix). */
const recordNamePrefix = 'sh.helm.release.v1.';

/**
 * Pure: why an accepted record's object name and labels disagree with its JSON, or undefined.
 * `helm uninstall <name>` reads the records labelled `owner=helm,name=<name>` in its driver's
 * namespace (helm.sh/helm pkg/storage storage.go `History`, driver `Query`), never by their
 * JSON; orders them by the JSON `version` (pkg/release/util `SortByRevision`) and acts on the
 * highest; then purges records by the name it builds from the JSON name and version
 * (`sh.helm.release.v1.<name>.v<version>`). Helm writes all of them in agreement, so a record
 * whose `name` label, `version` label or object name says otherwise was written by hand: a
 * record labelled `name=r` whose JSON says `zz` would be checked as `zz` and acted on as `r`.
 * Every value named here was validated before (labels by the API server, the JSON name by
 * `decodeRelease`).
 */
export function recordLabelProblem(
  meta: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> } | undefined,
  release: HelmRelease,
): string | undefined {
  const where = `release ${release.storage.kind} ${release.namespace}/${meta?.name ?? ''}`;
  const label = meta?.labels?.name;
  const version = meta?.labels?.version;
  if (label === undefined)
    return `${where} has no name label, so helm never reads it for any release: kube-sweep does not use it either`;
  if (label !== release.name)
    return `${where} is labelled name=${label}, but its record is of release ${release.name}: helm uninstall ${label} would act on a record kube-sweep would check as another release`;
  if (version !== String(release.revision))
    return `${where} is labelled version=${version ?? '(none)'}, but its record is revision ${release.revision}: Helm orders records by the record's version, the labels by another`;
  const expected = `${recordNamePrefix}${release.name}.v${release.revision}`;
  if (meta?.name !== expected)
    return `${where} holds revision ${release.revision} of release ${release.name}, which Helm stores as ${expected}: it was not written by Helm`;
  return undefined;
}

/**
 * Pure: why a teardown cannot take release `name` of `kind` in `namespace`: kube-sweep refused
 * `records` of it (each reason names its record). Names the fix with a quoted command per record.
 */
export function refusedReleaseMessage(
  namespace: string,
  name: string,
  kind: ReleaseStorageKind,
  records: readonly RefusedRecord[],
): string {
  const resource = kind === 'Secret' ? 'secret' : 'configmap';
  return (
    `release ${name} in namespace ${namespace} has release ${kind}s that kube-sweep refused (${records.map((r) => r.reason).join('; ')}). ` +
    `helm uninstall reads every ${kind} labelled owner=helm,name=${name} in namespace ${namespace} (HELM_DRIVER=${helmDriver(kind)}), ` +
    'skips only what it cannot decode and acts on the highest version: what it would delete is unknown. Check who wrote ' +
    `them, remove them (${records.map((r) => shellCommand(['kubectl', 'delete', resource, '-n', namespace, '--', r.secret])).join('; ')}) ` +
    'or remove the release by hand, then run the teardown again'
  );
}

/**
 * Pure: the releases in listed records, grouped as Helm groups them: per storage kind (driver),
 * namespace and `name` label. A record that does not decode or is not a valid release
 * (`decodeRelease`), or whose object name and labels disagree with its JSON
 * (`recordLabelProblem`), is refused; a release with a refused record is left out and listed in
 * `refusedReleases` (Helm would read the rest, or that record, and act on the highest version it
 * decodes: unknown to kube-sweep). Of every other release: its current revision (highest
 * version; `currentReleases`) in `releases`, the others in `earlierRevisions`; releases of both
 * drivers are joined (`joinDrivers`).
 */
export function releasesOfRecords(lists: readonly ListedRecords[]): Omit<FoundReleases, 'problems'> {
  interface Group {
    readonly namespace: string;
    readonly kind: ReleaseStorageKind;
    readonly name: string;
    readonly accepted: HelmRelease[];
    readonly refused: RefusedRecord[];
  }
  const groups = new Map<string, Group>();
  const refused: RefusedRecord[] = [];
  for (const { namespace, kind, items } of lists) {
    for (const item of items) {
      const name = item.metadata?.name ?? '';
      if (!item.data?.release) continue; // Helm cannot decode it either: it never reads it
      const label = item.metadata?.labels?.name;
      const key = JSON.stringify([kind, namespace, label ?? '']);
      const group =
        groups.get(key) ??
        groups.set(key, { namespace, kind, name: label ?? '', accepted: [], refused: [] }).get(key)!;
      const refuse = (reason: string) => {
        const r: RefusedRecord = {
          kind,
          namespace,
          secret: name,
          reason,
          ...(label ? { release: label } : {}),
        };
        refused.push(r);
        group.refused.push(r);
      };
      try {
        const release = decodeRelease(item.data.release, `${namespace}/${name}`, { kind });
        const problem = recordLabelProblem(item.metadata, release);
        if (problem) refuse(problem);
        else group.accepted.push(release);
      } catch (error) {
        if (!(error instanceof ReleaseDecodeError)) throw error;
        refuse(error.message);
      }
    }
  }
  const revisions: Record<ReleaseStorageKind, HelmRelease[]> = { Secret: [], ConfigMap: [] };
  const refusedReleases: RefusedRelease[] = [];
  for (const g of groups.values()) {
    if (g.name === '') continue; // no name label: Helm reads these for no release
    if (g.refused.length === 0) {
      revisions[g.kind].push(...g.accepted);
      continue;
    }
    refusedReleases.push({
      namespace: g.namespace,
      name: g.name,
      kind: g.kind,
      current: currentReleases(g.accepted).length > 0,
      message: refusedReleaseMessage(g.namespace, g.name, g.kind, g.refused),
    });
  }
  const joined = joinDrivers(currentReleases(revisions.Secret), currentReleases(revisions.ConfigMap));
  const current = new Set(joined.releases.map((r) => JSON.stringify([r.storage.kind, r.namespace, r.name])));
  const isCurrent = new Set(joined.releases);
  const earlierRevisions = [...revisions.Secret, ...revisions.ConfigMap]
    .filter((r) => current.has(JSON.stringify([r.storage.kind, r.namespace, r.name])) && !isCurrent.has(r))
    .sort(
      (a, b) =>
        a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.revision - b.revision,
    );
  refusedReleases.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  return { ...joined, refused, refusedReleases, earlierRevisions };
}

/**
 * Reads the Helm releases stored in `sources.namespaces` (Secrets labelled owner=helm, Helm's
 * default storage driver, and ConfigMaps labelled owner=helm of the configmap driver in
 * `sources.configMapNamespaces`; the SQL driver is not read), grouped as Helm groups them
 * (`releasesOfRecords`), and returns the current revision of each, in every status. The lists
 * run `sources.concurrency` at a time; the output does not depend on their order. A namespace
 * whose records may not be listed becomes a `problems` line; a record that does not decode, is
 * not a valid release (forged, corrupted, a gzip bomb) or whose labels disagree with it is left
 * out and listed in `refused`, never an exception, and its release in `refusedReleases`; a
 * release with current records in both drivers is left out and described in `conflicts`.
 */
export async function findReleases(api: ApiClient, sources: ReleaseSources): Promise<FoundReleases> {
  const namespaces = [...new Set(sources.namespaces)].sort();
  const withConfigMaps = (ns: string) =>
    sources.configMapNamespaces === 'all' || sources.configMapNamespaces.has(ns);
  const targets: Target[] = namespaces.flatMap((namespace) => [
    { namespace, kind: 'Secret' as const },
    ...(withConfigMaps(namespace) ? [{ namespace, kind: 'ConfigMap' as const }] : []),
  ]);
  const limit = pLimit(Math.max(1, sources.concurrency));
  const lists = await Promise.all(targets.map((t) => limit(() => listRecords(api, t))));
  const problems: string[] = [];
  const listed: ListedRecords[] = [];
  for (const [i, list] of lists.entries()) {
    if (typeof list === 'string') problems.push(list);
    else listed.push({ ...targets[i]!, items: list.items ?? [] });
  }
  return { ...releasesOfRecords(listed), problems };
}
