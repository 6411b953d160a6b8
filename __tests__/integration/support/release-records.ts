import { gzipSync } from 'node:zlib';

/**
 * `data.release` of a Helm release Secret from gzipped bytes: base64 (the API's) of base64
 * (Helm's) of the gzip (helm.sh/helm/v3 pkg/storage/driver/util.go `encodeRelease`).
 */
export const releaseData = (gzipped: Buffer): string =>
  Buffer.from(gzipped.toString('base64')).toString('base64');

/** `data.release` of a release ConfigMap (the configmap driver) holding `record` as its JSON: Helm's base64 of the gzip, no API layer. */
export const configMapRecordOf = (record: unknown): string =>
  gzipSync(Buffer.from(JSON.stringify(record))).toString('base64');

/** `data.release` of a release Secret holding `record` as its JSON. */
export const recordOf = (record: unknown): string =>
  releaseData(gzipSync(Buffer.from(JSON.stringify(record))));

/**
 * Where a forged record is filed: its revision (default 1: the `version` label and the
 * object's name `sh.helm.release.v1.<name>.v<revision>`), and a `name` label other than the
 * release name it is built for (default: the same), as a tenant may write it.
 */
export interface RecordFiling {
  readonly revision?: number;
  readonly nameLabel?: string;
}

/** The metadata Helm gives the record of `revision` of release `name` in `ns`, with `filing`'s name label. */
function recordMetadata(ns: string, name: string, filing: RecordFiling) {
  const revision = filing.revision ?? 1;
  return {
    name: `sh.helm.release.v1.${name}.v${revision}`,
    namespace: ns,
    labels: { owner: 'helm', name: filing.nameLabel ?? name, status: 'deployed', version: String(revision) },
  };
}

/**
 * A Secret as Helm names and labels the record of a revision of release `name` in `ns` (revision
 * 1 unless `filing` says otherwise), holding `release` (already API-base64: `recordOf` or
 * `releaseData`). Tests plant forged ones with it.
 */
export function releaseSecret(ns: string, name: string, release: string, filing: RecordFiling = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: recordMetadata(ns, name, filing),
    data: { release },
  };
}

/** A ConfigMap of the configmap driver, named and labelled as `releaseSecret`, holding `release` (`configMapRecordOf`). */
export function releaseConfigMap(ns: string, name: string, release: string, filing: RecordFiling = {}) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: recordMetadata(ns, name, filing),
    data: { release },
  };
}
