import { parseAllDocuments } from 'yaml';

/** One object of a rendered manifest, as Helm would create it. */
export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** `metadata.namespace` as rendered; absent means "the release namespace" for namespaced kinds. */
  readonly namespace?: string;
  readonly annotations: Readonly<Record<string, string>>;
  /** The whole document, for kinds whose spec the plan reads (CRDs, webhooks, APIServices). */
  readonly body: Readonly<Record<string, unknown>>;
}

/** Thrown when a manifest is not YAML; names the release and the document. */
export class ManifestParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestParseError';
  }
}

/**
 * Pure: parses a multi-document manifest (`---` separated, Helm's `# Source:` comments
 * allowed) into objects. Empty documents and `List` wrappers are handled as kubectl does
 * (items of a List are objects of their own).
 * @param origin names the release or file, for error messages
 * @throws ManifestParseError for invalid YAML
 */
export function parseManifest(text: string, origin: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      throw new ManifestParseError(
        `${origin}: document ${index + 1} is not valid YAML: ${doc.errors[0]!.message}`,
      );
    }
    const value = doc.toJSON() as Record<string, unknown> | null;
    collect(value, out);
  });
  return out;
}

function collect(value: Record<string, unknown> | null, out: ManifestObject[]): void {
  if (!value || typeof value !== 'object' || typeof value.kind !== 'string') return;
  if (value.kind.endsWith('List') && Array.isArray(value.items)) {
    for (const item of value.items as Record<string, unknown>[]) collect(item, out);
    return;
  }
  const metadata = (value.metadata ?? {}) as {
    name?: string;
    namespace?: string;
    annotations?: Record<string, string>;
  };
  if (!metadata.name) return;
  out.push({
    apiVersion: String(value.apiVersion ?? ''),
    kind: value.kind,
    name: metadata.name,
    ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
    annotations: metadata.annotations ?? {},
    body: value,
  });
}

/** The annotation that stops Helm deleting an object on uninstall (Helm docs, "Tell Helm Not To Uninstall a Resource"). */
export const resourcePolicyAnnotation = 'helm.sh/resource-policy';

/**
 * Pure: whether `helm uninstall` leaves the object in place. Helm 3 and 4 delete only objects
 * without a `helm.sh/resource-policy` annotation: a value that is `keep` once lowercased and
 * trimmed is kept on purpose, and an object with any other value is not deleted either
 * (helm.sh/helm pkg/action/resource_policy.go, `filterManifestsToKeep`).
 */
export function keptByHelm(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return annotations?.[resourcePolicyAnnotation] !== undefined;
}
