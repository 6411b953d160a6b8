import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { shellCommand } from '../util/shell-quote.js';
import {
  currentReleases,
  decodeRelease,
  helmDriverPrefix,
  ReleaseDecodeError,
  type HelmRelease,
  type ReleaseStorageKind,
} from './release-storage.js';

interface RecordList {
  items?: { metadata?: { name?: string }; data?: { release?: string } }[];
}

/** A release record (Secret or ConfigMap) that was refused (`decodeRelease` threw), and why. */
export interface RefusedRecord {
  readonly kind: ReleaseStorageKind;
  readonly namespace: string;
  /** The record's name (the Secret's or the ConfigMap's). */
  readonly secret: string;
  /** The decoder's message (names the record; never quotes the record's own fields). */
  readonly reason: string;
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

/**
 * Reads the Helm releases stored in `sources.namespaces` (Secrets labelled owner=helm, Helm's
 * default storage driver, and ConfigMaps labelled owner=helm of the configmap driver in
 * `sources.configMapNamespaces`; the SQL driver is not read) and returns the current revision of
 * each, in every status. The lists run `sources.concurrency` at a time; the output does not
 * depend on their order. A namespace whose records may not be listed becomes a `problems` line;
 * a record that does not decode or is not a valid release (forged, corrupted, a gzip bomb) is
 * left out and listed in `refused`, never an exception; a release with current records in both
 * drivers is left out and described in `conflicts`.
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
  const revisions: Record<ReleaseStorageKind, HelmRelease[]> = { Secret: [], ConfigMap: [] };
  const problems: string[] = [];
  const refused: RefusedRecord[] = [];
  for (const [i, list] of lists.entries()) {
    const { namespace, kind } = targets[i]!;
    if (typeof list === 'string') {
      problems.push(list);
      continue;
    }
    for (const item of list.items ?? []) {
      const name = item.metadata?.name ?? '';
      if (!item.data?.release) continue;
      try {
        revisions[kind].push(decodeRelease(item.data.release, `${namespace}/${name}`, { kind }));
      } catch (error) {
        if (!(error instanceof ReleaseDecodeError)) throw error;
        refused.push({ kind, namespace, secret: name, reason: error.message });
      }
    }
  }
  const joined = joinDrivers(currentReleases(revisions.Secret), currentReleases(revisions.ConfigMap));
  return { ...joined, problems, refused };
}
