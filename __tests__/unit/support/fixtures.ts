import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRelease, type HelmRelease } from '../../../src/helm/release-storage.js';

/** A release Secret recorded from the local control plane (__tests__/fixtures/helm), decoded. */
export function recordedRelease(file: string): HelmRelease {
  const secret = JSON.parse(readFileSync(join(process.cwd(), '__tests__/fixtures/helm', file), 'utf8')) as {
    metadata: { name: string; namespace: string };
    data: { release: string };
  };
  return decodeRelease(secret.data.release, `${secret.metadata.namespace}/${secret.metadata.name}`);
}
