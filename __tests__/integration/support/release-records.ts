import { gzipSync } from 'node:zlib';

/**
 * `data.release` of a Helm release Secret from gzipped bytes: base64 (the API's) of base64
 * (Helm's) of the gzip (helm.sh/helm/v3 pkg/storage/driver/util.go `encodeRelease`).
 */
export const releaseData = (gzipped: Buffer): string =>
  Buffer.from(gzipped.toString('base64')).toString('base64');

/** `data.release` of a release Secret holding `record` as its JSON. */
export const recordOf = (record: unknown): string =>
  releaseData(gzipSync(Buffer.from(JSON.stringify(record))));

/**
 * A Secret as Helm names and labels the record of revision 1 of release `name` in `ns`, holding
 * `release` (already API-base64: `recordOf` or `releaseData`). Tests plant forged ones with it.
 */
export function releaseSecret(ns: string, name: string, release: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: {
      name: `sh.helm.release.v1.${name}.v1`,
      namespace: ns,
      labels: { owner: 'helm', name, status: 'deployed', version: '1' },
    },
    data: { release },
  };
}
