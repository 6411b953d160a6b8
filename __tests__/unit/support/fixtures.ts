import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRelease, type HelmRelease } from '../../../src/helm/release-storage.js';

/** A release record recorded from the local control plane (__tests__/fixtures/helm), as stored. */
export function recordedRecord(file: string): {
  kind: 'Secret' | 'ConfigMap';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: { release: string };
} {
  return JSON.parse(readFileSync(join(process.cwd(), '__tests__/fixtures/helm', file), 'utf8')) as ReturnType<
    typeof recordedRecord
  >;
}

/** A release record (a Secret, or a ConfigMap of the configmap driver) recorded from the local control plane, decoded. */
export function recordedRelease(file: string): HelmRelease {
  const record = recordedRecord(file);
  return decodeRelease(record.data.release, `${record.metadata.namespace}/${record.metadata.name}`, {
    kind: record.kind,
  });
}
