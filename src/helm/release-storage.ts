import { gunzipSync } from 'node:zlib';

/**
 * Release statuses Helm records (helm.sh/helm/v3 pkg/release/status.go; the same in v4).
 * `uninstalled` appears only with --keep-history; `superseded` is an older revision.
 */
export type ReleaseStatus =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

/** A chart file (templates, crds/…) as the release stores it: `data` is base64. */
interface StoredFile {
  name: string;
  data?: string;
}

/** A hook of a release (pre-delete Job, post-install ConfigMap, …). */
export interface ReleaseHook {
  readonly name: string;
  readonly kind: string;
  readonly path: string;
  readonly manifest: string;
  readonly events: readonly string[];
  readonly deletePolicies: readonly string[];
}

/** What kube-sweep reads of one stored Helm release revision. */
export interface HelmRelease {
  readonly name: string;
  readonly namespace: string;
  /** Revision number (`version` label and field). */
  readonly revision: number;
  readonly status: ReleaseStatus;
  readonly description: string;
  /** RFC 3339 of the last modification Helm recorded. */
  readonly lastDeployed: string;
  readonly chart: { readonly name: string; readonly version: string };
  /** The rendered manifest (multi-document YAML) of the templates, hooks excluded. */
  readonly manifest: string;
  /** YAML text of each file of the chart's crds/ folder (installed once, never upgraded or deleted by Helm). */
  readonly crdFiles: readonly { readonly name: string; readonly yaml: string }[];
  readonly hooks: readonly ReleaseHook[];
  /** Name of the Secret (sh.helm.release.v1.<name>.v<revision>) it was read from. */
  readonly storageSecret: string;
}

interface StoredRelease {
  name?: string;
  namespace?: string;
  version?: number;
  manifest?: string;
  info?: { status?: string; description?: string; last_deployed?: string };
  chart?: { metadata?: { name?: string; version?: string }; files?: StoredFile[] };
  hooks?: {
    name?: string;
    kind?: string;
    path?: string;
    manifest?: string;
    events?: string[];
    delete_policies?: string[];
  }[];
}

/** Thrown when a release Secret cannot be decoded; the message names the Secret. */
export class ReleaseDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseDecodeError';
  }
}

const gzipMagic = [0x1f, 0x8b];

/**
 * Decodes the `release` value of a Helm storage Secret (type helm.sh/release.v1). Format
 * (helm.sh/helm/v3 pkg/storage/driver/util.go encodeRelease): JSON, gzipped, then base64;
 * the Secret's `data` adds the usual Kubernetes base64 on top, so the value given here is
 * base64 of base64 of gzip. Uncompressed JSON (old Helm 3 betas) is accepted too.
 * @param secretDataRelease `secret.data.release` exactly as the API returns it
 * @throws ReleaseDecodeError when the value is not in that format
 */
export function decodeRelease(secretDataRelease: string, secretName: string): HelmRelease {
  let stored: StoredRelease;
  try {
    const helmEncoded = Buffer.from(secretDataRelease, 'base64').toString('utf8');
    let bytes = Buffer.from(helmEncoded, 'base64');
    if (bytes[0] === gzipMagic[0] && bytes[1] === gzipMagic[1]) bytes = gunzipSync(bytes);
    stored = JSON.parse(bytes.toString('utf8')) as StoredRelease;
  } catch (error) {
    throw new ReleaseDecodeError(
      `release Secret ${secretName} could not be decoded: ${(error as Error).message}`,
    );
  }
  const files = stored.chart?.files ?? [];
  return {
    name: stored.name ?? '',
    namespace: stored.namespace ?? '',
    revision: stored.version ?? 0,
    status: (stored.info?.status ?? 'unknown') as ReleaseStatus,
    description: stored.info?.description ?? '',
    lastDeployed: stored.info?.last_deployed ?? '',
    chart: { name: stored.chart?.metadata?.name ?? '', version: stored.chart?.metadata?.version ?? '' },
    manifest: stored.manifest ?? '',
    crdFiles: files
      .filter((f) => f.name.startsWith('crds/') && /\.(ya?ml|json)$/.test(f.name))
      .map((f) => ({ name: f.name, yaml: Buffer.from(f.data ?? '', 'base64').toString('utf8') })),
    hooks: (stored.hooks ?? []).map((h) => ({
      name: h.name ?? '',
      kind: h.kind ?? '',
      path: h.path ?? '',
      manifest: h.manifest ?? '',
      events: h.events ?? [],
      deletePolicies: h.delete_policies ?? [],
    })),
    storageSecret: secretName,
  };
}

/**
 * Pure: of all stored revisions, the one that describes each release now: the highest
 * revision per (namespace, name). Revisions with status `uninstalled` (kept history) mean
 * the release is gone and are dropped.
 */
export function currentReleases(revisions: readonly HelmRelease[]): HelmRelease[] {
  const latest = new Map<string, HelmRelease>();
  for (const r of revisions) {
    const key = `${r.namespace}/${r.name}`;
    const current = latest.get(key);
    if (!current || r.revision > current.revision) latest.set(key, r);
  }
  return [...latest.values()]
    .filter((r) => r.status !== 'uninstalled')
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}
