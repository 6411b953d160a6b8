import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { currentReleases, decodeRelease, ReleaseDecodeError, type HelmRelease } from './release-storage.js';

interface SecretList {
  items?: { metadata?: { name?: string }; data?: { release?: string } }[];
}

/** A release Secret whose record was refused (`decodeRelease` threw), and why. */
export interface RefusedRecord {
  readonly namespace: string;
  readonly secret: string;
  /** The decoder's message (names the Secret; never quotes the record's own fields). */
  readonly reason: string;
}

/**
 * Reads the Helm releases stored in `namespaces` (Secrets labelled owner=helm, Helm's default
 * storage driver; the ConfigMap and SQL drivers are not read) and returns the current revision
 * of each, in every status. A namespace whose Secrets may not be listed becomes a `problems`
 * line; a Secret whose record does not decode or is not a valid release (forged, corrupted, a
 * gzip bomb) is left out and listed in `refused`, never an exception.
 */
export async function findReleases(
  api: ApiClient,
  namespaces: readonly string[],
): Promise<{ releases: HelmRelease[]; problems: string[]; refused: RefusedRecord[] }> {
  const revisions: HelmRelease[] = [];
  const problems: string[] = [];
  const refused: RefusedRecord[] = [];
  for (const ns of [...new Set(namespaces)].sort()) {
    let list: SecretList;
    try {
      list = await api.request<SecretList>({
        path: `/api/v1/namespaces/${encodeURIComponent(ns)}/secrets`,
        query: { labelSelector: 'owner=helm' },
      });
    } catch (error) {
      if (error instanceof KubernetesApiError && error.status === 404) continue;
      problems.push(`listing Helm release Secrets in namespace ${ns}: ${(error as Error).message}`);
      continue;
    }
    for (const item of list.items ?? []) {
      const name = item.metadata?.name ?? '';
      if (!item.data?.release) continue;
      try {
        revisions.push(decodeRelease(item.data.release, `${ns}/${name}`));
      } catch (error) {
        if (!(error instanceof ReleaseDecodeError)) throw error;
        refused.push({ namespace: ns, secret: name, reason: error.message });
      }
    }
  }
  return { releases: currentReleases(revisions), problems, refused };
}
