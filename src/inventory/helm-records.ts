/**
 * Helm release records whose release may live in another namespace than the record (S28). Helm
 * stores a release in its own namespace, but a GitOps Helm controller (Flux helm-controller's
 * `spec.storageNamespace`, which defaults to the HelmRelease's namespace) stores it elsewhere;
 * the namespace the release was installed into is only inside the record's body. The snapshot
 * lists Secrets and ConfigMaps as metadata, so the body of a record is read only where needed:
 * the current revision of each release record (Secrets of type helm.sh/release.v1 and, for the
 * configmap driver, ConfigMaps, both named `sh.helm.release.v1.<release>.v<revision>` and
 * labelled `owner=helm`) for which no listed object carries the annotations
 * `meta.helm.sh/release-name: <release>` and `meta.helm.sh/release-namespace: <record's
 * namespace>`. A healthy release stored with its objects costs no request.
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { decodeRelease, ReleaseDecodeError } from '../helm/release-storage.js';
import type { CoverageGap, ObjectMetadata } from './types.js';

/** Prefix of the name of every Helm 3/4 release record. */
const recordPrefix = 'sh.helm.release.v1.';

/** One release record whose body was read: where it is stored and which release it describes. */
export interface StoredReleaseRecord {
  /** The record object: a Secret or a ConfigMap. */
  readonly storage: {
    readonly kind: 'Secret' | 'ConfigMap';
    readonly namespace: string;
    readonly name: string;
    readonly uid: string;
  };
  /** The release as the record describes it: its name and the namespace it was installed into. */
  readonly release: { readonly namespace: string; readonly name: string };
  readonly revision: number;
  readonly status: string;
}

/**
 * A release record whose body does not decode into a valid release (release-storage.ts
 * `decodeRelease`: not base64 of gzip of JSON, a gzip bomb, a name Helm would not allow, a
 * manifest that is not YAML objects). It is a finding (HelmReleaseRecordInvalid) about that
 * one object, never a coverage gap: anyone who can write Secrets in one namespace could
 * otherwise make every scan of the cluster `partial` and silence the rules that read Secrets.
 */
export interface UndecodableReleaseRecord {
  readonly kind: 'Secret' | 'ConfigMap';
  readonly namespace: string;
  readonly name: string;
  /** The decoder's message (names the record). */
  readonly reason: string;
}

/** A record whose body is read, from the metadata snapshot. */
interface Candidate {
  readonly o: ObjectMetadata;
  readonly release: string;
  readonly revision: number;
}

const isRecord = (o: ObjectMetadata) =>
  o.apiVersion === 'v1' &&
  (o.resource === 'secrets' || o.resource === 'configmaps') &&
  o.namespace !== undefined &&
  o.labels?.owner === 'helm' &&
  o.name.startsWith(recordPrefix);

/**
 * Pure: the namespaces in which `objects` (the snapshot) hold a release record of the configmap
 * driver (a ConfigMap labelled `owner=helm` named `sh.helm.release.v1.*`), sorted. The plan lists
 * release ConfigMaps only there (helm/discover-releases.ts `findReleases`), so that a cluster with
 * no configmap-driver release costs no request.
 */
export function configMapRecordNamespaces(objects: readonly ObjectMetadata[]): string[] {
  const namespaces = new Set(
    objects.filter((o) => o.resource === 'configmaps' && isRecord(o)).map((o) => o.namespace!),
  );
  return [...namespaces].sort();
}

/**
 * Pure: the current revision (highest `version` label) of each release record — per storage
 * kind, namespace and `name` label — for which no listed object carries the release annotations
 * of that name and the record's namespace.
 */
export function recordsToRead(objects: readonly ObjectMetadata[]): ObjectMetadata[] {
  const annotated = new Set<string>();
  const current = new Map<string, Candidate>();
  for (const o of objects) {
    const name = o.annotations?.['meta.helm.sh/release-name'];
    const ns = o.annotations?.['meta.helm.sh/release-namespace'];
    if (name && ns) annotated.add(`${ns}/${name}`);
    if (!isRecord(o)) continue;
    const release = o.labels?.name ?? '';
    const revision = Number(o.labels?.version);
    if (!release || !Number.isInteger(revision)) continue;
    const key = `${o.resource}/${o.namespace}/${release}`;
    const seen = current.get(key);
    if (!seen || revision > seen.revision) current.set(key, { o, release, revision });
  }
  return [...current.values()]
    .filter((c) => !annotated.has(`${c.o.namespace}/${c.release}`))
    .map((c) => c.o)
    .sort((a, b) => (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name));
}

function gap(o: ObjectMetadata, message: string, forbidden: boolean): CoverageGap {
  return {
    resource: `${o.resource}/v1 (Helm release record ${o.namespace ?? ''}/${o.name})`,
    reason: forbidden ? 'forbidden' : 'failed',
    message,
    ...(forbidden ? { hint: `apiGroups: [""], resources: ["${o.resource}"], verbs: ["get"]` } : {}),
  };
}

/**
 * Reads the body of each record of `recordsToRead`, `concurrency` at a time, and keeps only which
 * release it describes (name, namespace, revision, status); the body is dropped. A record gone
 * meanwhile (404) is skipped; one that is forbidden or fails becomes a coverage gap naming it;
 * one that does not decode is `undecodable` (a finding, not a gap). Records are validated as plan and teardown validate them (release-storage.ts
 * `releaseRecordProblem`), except that a release namespace other than the record's is accepted:
 * it is what this looks for, and nothing here runs Helm on it.
 */
export async function readReleaseRecords(
  api: ApiClient,
  objects: readonly ObjectMetadata[],
  concurrency: number,
): Promise<{
  records: StoredReleaseRecord[];
  coverage: CoverageGap[];
  undecodable: UndecodableReleaseRecord[];
}> {
  const limit = pLimit(concurrency);
  const records: StoredReleaseRecord[] = [];
  const coverage: CoverageGap[] = [];
  const undecodable: UndecodableReleaseRecord[] = [];
  await Promise.all(
    recordsToRead(objects).map((o) =>
      limit(async () => {
        const path = `/api/v1/namespaces/${encodeURIComponent(o.namespace!)}/${o.resource}/${encodeURIComponent(o.name)}`;
        try {
          const body = await api.request<{ data?: { release?: string } }>({ path });
          const value = body.data?.release;
          if (!value) return;
          // Read-only: a record stored outside its release's namespace is what this looks for.
          const release = decodeRelease(value, `${o.namespace}/${o.name}`, {
            kind: o.resource === 'secrets' ? 'Secret' : 'ConfigMap',
            storedElsewhere: true,
          });
          records.push({
            storage: {
              kind: o.resource === 'secrets' ? 'Secret' : 'ConfigMap',
              namespace: o.namespace!,
              name: o.name,
              uid: o.uid,
            },
            release: { namespace: release.namespace, name: release.name },
            revision: release.revision,
            status: release.status,
          });
        } catch (error) {
          if (error instanceof KubernetesApiError && error.status === 404) return;
          if (error instanceof ReleaseDecodeError)
            undecodable.push({
              kind: o.resource === 'secrets' ? 'Secret' : 'ConfigMap',
              namespace: o.namespace!,
              name: o.name,
              reason: error.message,
            });
          else if (error instanceof KubernetesApiError)
            coverage.push(gap(o, error.apiMessage || `HTTP ${error.status}`, error.status === 403));
          else throw error;
        }
      }),
    ),
  );
  records.sort(
    (a, b) =>
      a.storage.namespace.localeCompare(b.storage.namespace) || a.storage.name.localeCompare(b.storage.name),
  );
  const byPlace = (a: UndecodableReleaseRecord, b: UndecodableReleaseRecord) =>
    a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
  return { records, coverage, undecodable: undecodable.sort(byPlace) };
}
