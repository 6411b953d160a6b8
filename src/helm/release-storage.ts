import { gunzipSync } from 'node:zlib';
import {
  isApiVersion,
  isDns1035Label,
  isHelmReleaseName,
  isKindName,
  isNamespaceName,
  objectNameProblem,
} from '../kube/object-names.js';
import { foldedKeyProblem, hasRepeatedKey } from './go-json-keys.js';
import { helmManifestDocuments } from './manifest.js';

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

/** Hook events `helm uninstall` runs (Helm docs, "Chart Hooks"). */
const deleteHookEvents = new Set(['pre-delete', 'post-delete']);

/** Pure: the hooks `helm uninstall` runs (a `pre-delete` or `post-delete` event), in stored order. */
export function deleteHooks(hooks: readonly ReleaseHook[]): ReleaseHook[] {
  return hooks.filter((h) => h.events.some((e) => deleteHookEvents.has(e)));
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
  /**
   * The record it was read from: a Secret (Helm's default `secret` driver) or a ConfigMap (the
   * `configmap` driver, `HELM_DRIVER=configmap`), named sh.helm.release.v1.<name>.v<revision>.
   * A helm command finds the release only with that driver (`helmDriver`).
   */
  readonly storage: ReleaseStorage;
}

/** The kind of object a Helm release record is stored in: Secret (`secret` driver) or ConfigMap (`configmap` driver). */
export type ReleaseStorageKind = 'Secret' | 'ConfigMap';

/** Where a release record is stored: its kind and its name (sh.helm.release.v1.<name>.v<revision>), in the release's namespace. */
export interface ReleaseStorage {
  readonly kind: ReleaseStorageKind;
  readonly name: string;
}

/**
 * Pure: the `HELM_DRIVER` value under which helm finds records of `kind` (helm.sh/helm pkg/cli
 * environment: `secret`, the default, or `configmap`).
 */
export function helmDriver(kind: ReleaseStorageKind): 'secret' | 'configmap' {
  return kind === 'ConfigMap' ? 'configmap' : 'secret';
}

/**
 * Pure: what a helm command line printed for a user needs in front so that helm finds a release
 * stored in `kind`: `HELM_DRIVER=configmap ` for the configmap driver, nothing for Secrets
 * (Helm's default driver).
 */
export function helmDriverPrefix(kind: ReleaseStorageKind): string {
  return kind === 'ConfigMap' ? 'HELM_DRIVER=configmap ' : '';
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

/** Thrown when a release record cannot be decoded; the message names the record (Secret or ConfigMap). */
export class ReleaseDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReleaseDecodeError';
  }
}

const gzipMagic = [0x1f, 0x8b];

/**
 * Most bytes a release record may gunzip to: 32 MiB. A release Secret holds at most about 1 MiB
 * (etcd's request limit), which real releases compress from a few MiB at most; a record that
 * inflates past this is a gzip bomb and is refused without inflating the rest.
 */
export const maxDecodedReleaseBytes = 32 * 1024 * 1024;

/**
 * Helm's release name rule (helm.sh/helm/v3 pkg/chartutil/validate_name.go ValidateReleaseName,
 * the same in v4): at most 53 characters of DNS-1123 labels joined by dots.
 */
const maxReleaseNameLength = 53; // kube/object-names.ts isHelmReleaseName

/**
 * Pure: what makes one manifest document (or an item of a `List` document, which kubectl and
 * kube-sweep read as objects of their own) not an object Helm could have created, or undefined.
 * Names and namespaces go into API paths and apiVersions decide which API a request goes to, so
 * each must be one Kubernetes could have stored (cluster/object-names.ts): a name of `.`
 * (`DELETE …/configmaps/.` deletes the whole collection), a namespace `..`, or an apiVersion
 * `/v1` (read as core v1 by k8s.io/apimachinery, but by no check written for `v1`) is forged.
 */
function objectProblem(value: unknown, where: string, depth = 0): string | undefined {
  if (value === null || value === undefined) return undefined;
  const o = value as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { name?: unknown; namespace?: unknown };
    items?: unknown;
  };
  if (typeof o !== 'object' || Array.isArray(o)) return `${where} is not an object`;
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string')
    return `${where} has no apiVersion and kind`;
  if (!isApiVersion(o.apiVersion)) return `${where} has an apiVersion Kubernetes would not write`;
  if (!isKindName(o.kind)) return `${where} has a kind that is not a kind name`;
  if (o.kind.endsWith('List') && Array.isArray(o.items)) {
    if (depth > 0) return `${where} is a List inside a List`;
    for (const [i, item] of o.items.entries()) {
      const problem = objectProblem(item, `item ${i + 1} of ${where}`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof o.metadata?.name !== 'string') return `${where} has no metadata.name`;
  const nameProblem = objectNameProblem(o.metadata.name);
  if (nameProblem) return `${where} has a metadata.name that cannot be an object's name (${nameProblem})`;
  const ns = o.metadata.namespace;
  if (ns !== undefined && ns !== null && ns !== '' && (typeof ns !== 'string' || !isNamespaceName(ns)))
    return `${where} has a metadata.namespace that is not a namespace name`;
  if (o.kind === 'CustomResourceDefinition') return crdProblem(o as CrdShape, o.metadata.name, where);
  return undefined;
}

interface CrdShape {
  spec?: { group?: unknown; names?: { plural?: unknown; kind?: unknown } };
}

/**
 * Pure: what makes a CustomResourceDefinition one the API server would not accept, or undefined.
 * Its group must be a DNS subdomain with at least one dot, its plural a DNS-1035 label, its kind a
 * kind, and its name `<plural>.<group>` (k8s.io/apiextensions-apiserver
 * pkg/apis/apiextensions/validation/validation.go). The plan deletes a shipped CRD's instances in
 * the scope first: a forged one of group '' and plural `configmaps` would delete every ConfigMap.
 */
function crdProblem(o: CrdShape, name: string, where: string): string | undefined {
  const group = o.spec?.group;
  const plural = o.spec?.names?.plural;
  const kind = o.spec?.names?.kind;
  if (
    typeof group !== 'string' ||
    !group.includes('.') ||
    !isApiVersion(`${group}/v1`) ||
    typeof plural !== 'string' ||
    !isDns1035Label(plural) ||
    typeof kind !== 'string' ||
    !isKindName(kind) ||
    name !== `${plural}.${group}`
  )
    return `${where} is a CustomResourceDefinition the API server would not accept (group with a dot, plural, kind, name <plural>.<group>)`;
  return undefined;
}

/** Pure: what makes a manifest not one Helm could have rendered, or undefined when its shape is sound. */
function manifestProblem(manifest: unknown, what: string): string | undefined {
  if (typeof manifest !== 'string') return `its ${what} is not text`;
  const read = helmManifestDocuments(manifest);
  if ('invalid' in read) return `document ${read.invalid.index + 1} of its ${what} is not valid YAML`;
  for (const [index, value] of read.documents.entries()) {
    const problem = objectProblem(value, `document ${index + 1} of its ${what}`);
    if (problem) return problem;
  }
  return undefined;
}

/** How strictly a record is validated, and what it is stored in. */
export interface RecordValidation {
  /** The record's kind (default Secret): a ConfigMap's `data.release` has no Kubernetes base64 layer. */
  readonly kind?: ReleaseStorageKind;
  /**
   * Accept a record whose release namespace differs from the Secret's (default false: refused).
   * Helm itself always stores a release in its own namespace, but a GitOps Helm controller keeps
   * records in its storage namespace (Flux helm-controller `spec.storageNamespace`, scenario S28).
   * Only the read-only diagnosis (src/inventory/helm-records.ts) accepts them; plan and teardown,
   * which run Helm on a record, refuse them.
   */
  readonly storedElsewhere?: boolean;
}

/**
 * Pure: why a decoded record is not a release Helm could have stored in the Secret (or, with
 * `validation.kind`, the ConfigMap) `secretName` (`<namespace>/<name>`), or undefined: its name
 * breaks Helm's release-name rule, its namespace is not the record's (unless
 * `validation.storedElsewhere`), its manifest (or a hook's) is not
 * YAML objects, its fields have the wrong types. Such a record was forged or corrupted: nothing
 * of it may be used.
 */
export function releaseRecordProblem(
  stored: unknown,
  secretName: string,
  validation: RecordValidation = {},
): string | undefined {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return 'it is not a JSON object';
  const r = stored as StoredRelease;
  const secretNamespace = secretName.slice(0, secretName.indexOf('/'));
  if (typeof r.name !== 'string' || !isHelmReleaseName(r.name))
    return `its release name is not one Helm allows (at most ${maxReleaseNameLength} characters of lower-case letters, digits, '-' and '.')`;
  if (typeof r.namespace !== 'string' || !isNamespaceName(r.namespace))
    return 'its namespace is not a namespace name';
  if (r.namespace !== secretNamespace && !validation.storedElsewhere)
    return `it names namespace ${r.namespace}, but its ${validation.kind ?? 'Secret'} is stored in namespace ${secretNamespace}`;
  if (r.version != null && (!Number.isInteger(r.version) || r.version < 1))
    return 'its version is not a positive whole number';
  if (r.hooks != null && !Array.isArray(r.hooks)) return 'its hooks are not a list';
  if (r.chart?.files != null && !Array.isArray(r.chart.files)) return "its chart's files are not a list";
  return (
    manifestProblem(r.manifest ?? '', 'manifest') ??
    (r.hooks ?? []).map((h) => manifestProblem(h?.manifest ?? '', 'hook manifest')).find((p) => p)
  );
}

/**
 * Decodes the `release` value of a Helm release record: a Secret (type helm.sh/release.v1) or,
 * with `validation.kind: 'ConfigMap'`, a ConfigMap of the configmap driver. Format
 * (helm.sh/helm/v3 pkg/storage/driver/util.go encodeRelease, the same in v4): JSON, gzipped,
 * then base64. A ConfigMap's `data` holds that text as it is; a Secret's `data` adds the usual
 * Kubernetes base64 on top, so a Secret's value is base64 of base64 of gzip. Uncompressed JSON
 * (old Helm 3 betas) is accepted too.
 * @param dataRelease `data.release` of the Secret or ConfigMap exactly as the API returns it
 * The gunzip output is bounded (`maxDecodedReleaseBytes`) and the record is validated
 * (`releaseRecordProblem`; a repeated key or a struct key in another case, which Helm's Go
 * reader reads otherwise than JSON.parse, `go-json-keys.ts`): records are writable by anyone with Secret (or ConfigMap) write in
 * the namespace.
 * @param secretName `<namespace>/<name>` of the Secret or ConfigMap
 * @param validation `kind` (default Secret); `storedElsewhere: true` accepts a record for another
 *   namespace (diagnosis only)
 * @throws ReleaseDecodeError when the value is not in that format, inflates too far, or is not
 *   a valid release record; the message names the record with its kind
 */
export function decodeRelease(
  dataRelease: string,
  secretName: string,
  validation: RecordValidation = {},
): HelmRelease {
  const kind = validation.kind ?? 'Secret';
  let stored: StoredRelease;
  let text: string;
  try {
    const helmEncoded = kind === 'Secret' ? Buffer.from(dataRelease, 'base64').toString('utf8') : dataRelease;
    let bytes = Buffer.from(helmEncoded, 'base64');
    if (bytes[0] === gzipMagic[0] && bytes[1] === gzipMagic[1])
      bytes = gunzipSync(bytes, { maxOutputLength: maxDecodedReleaseBytes });
    text = bytes.toString('utf8');
    stored = JSON.parse(text) as StoredRelease;
  } catch (error) {
    // Fixed words, never the parser's message: JSON.parse quotes the (untrusted) input.
    const code = String((error as NodeJS.ErrnoException).code ?? '');
    const why =
      code === 'ERR_BUFFER_TOO_LARGE'
        ? `it inflates past ${maxDecodedReleaseBytes / 1024 / 1024} MiB (a gzip bomb?)`
        : code.startsWith('Z_')
          ? 'it is not valid gzip'
          : 'it is not base64 of gzipped JSON';
    throw new ReleaseDecodeError(`release ${kind} ${secretName} could not be decoded: ${why}`);
  }
  const files = stored.chart?.files ?? [];
  const crdFiles = (Array.isArray(files) ? files : [])
    .filter(
      (f) => typeof f?.name === 'string' && f.name.startsWith('crds/') && /\.(ya?ml|json)$/.test(f.name),
    )
    .map((f) => ({
      name: f.name,
      yaml: Buffer.from(typeof f.data === 'string' ? f.data : '', 'base64').toString('utf8'),
    }));
  const problem =
    (hasRepeatedKey(text)
      ? "its JSON has an object with a repeated key (Go's JSON reader, Helm's, merges what JSON.parse replaces)"
      : foldedKeyProblem(stored)) ??
    releaseRecordProblem(stored, secretName, validation) ??
    crdFiles.map((f) => manifestProblem(f.yaml, 'chart file crds/…')).find((p) => p);
  if (problem)
    throw new ReleaseDecodeError(`release ${kind} ${secretName} is not a valid Helm release: ${problem}`);
  return {
    name: stored.name ?? '',
    namespace: stored.namespace ?? '',
    revision: stored.version ?? 0,
    status: (stored.info?.status ?? 'unknown') as ReleaseStatus,
    description: stored.info?.description ?? '',
    lastDeployed: stored.info?.last_deployed ?? '',
    chart: { name: stored.chart?.metadata?.name ?? '', version: stored.chart?.metadata?.version ?? '' },
    manifest: stored.manifest ?? '',
    crdFiles,
    hooks: (stored.hooks ?? []).map((h) => ({
      name: h.name ?? '',
      kind: h.kind ?? '',
      path: h.path ?? '',
      manifest: h.manifest ?? '',
      events: h.events ?? [],
      deletePolicies: h.delete_policies ?? [],
    })),
    storage: { kind, name: secretName.slice(secretName.indexOf('/') + 1) },
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
