import { loadAll } from 'js-yaml';
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

/** The documents of a multi-document YAML text (an empty document is null), or the first that is not valid YAML. */
export type YamlDocuments =
  | { readonly documents: readonly unknown[] }
  | { readonly invalid: { readonly index: number; readonly message: string } };

/**
 * Pure: the documents of a multi-document YAML text, read with the YAML 1.2 core schema.
 * Release manifests are read with js-yaml first, aliases refused (`maxAliases: 0`): on Helm's
 * manifests it was about ten times as fast as `yaml`'s document API (docs/benchmarks.md, "The
 * plan's manifests"). A text js-yaml refuses (an alias, a tag outside the core schema, a
 * syntax error, nesting past its `maxDepth` of 100) is read again by
 * `yamlDocumentsByReference`, whose answer stands, unless that would cost too much
 * (`referenceParseRefusal`: longer than 2 Mi characters or nested past 1,000 levels), when it
 * is invalid (document 1).
 */
export function yamlDocuments(text: string): YamlDocuments {
  try {
    return { documents: loadAll(text, { maxAliases: 0 }) };
  } catch {
    // js-yaml asks that every exception be caught (its docs, "load"): the reference decides,
    // when it can do so at a bounded cost.
    const tooCostly = referenceParseRefusal(text);
    return tooCostly ? { invalid: { index: 0, message: tooCostly } } : yamlDocumentsByReference(text);
  }
}

/** The longest text `yamlDocumentsByReference` is given, in UTF-16 code units (2 Mi). */
export const maxReferenceParseLength = 2 * 1024 * 1024;

/**
 * Deepest bracket nesting `yamlDocumentsByReference` is given. sigs.k8s.io/yaml (goyaml.v3
 * scannerc.go `max_flow_level`), which Helm and the API server read manifests with, refuses
 * more than 10,000; `yaml` already fails past about 800 (its stack), but it takes seconds and
 * hundreds of MB to say so on deeper text (500,000 levels: 12 s, 640 MB, from a 2 KB Secret).
 */
export const maxReferenceParseDepth = 1000;

/**
 * Pure: why a text js-yaml refused is not handed to `yaml` either, or undefined. `yaml`'s cost
 * grows faster than the text on deep nesting and is about a second per MB on flat text, and a
 * release record of any namespace is read on every run: a text longer than
 * `maxReferenceParseLength`, or whose `[`/`{` nesting (counted without regard to quotes, never
 * below zero) passes `maxReferenceParseDepth`, stays refused. Such a text is far from anything
 * Helm renders that js-yaml would refuse (an alias, a tag outside the core schema).
 */
export function referenceParseRefusal(text: string): string | undefined {
  if (text.length > maxReferenceParseLength)
    return `it is not YAML that js-yaml reads, and longer than ${maxReferenceParseLength} characters`;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > maxReferenceParseDepth)
        return `it is not YAML that js-yaml reads, and nested deeper than ${maxReferenceParseDepth} levels`;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}

/**
 * Pure: the documents of a multi-document YAML text read by `yaml` (YAML 1.2 core schema),
 * which expands aliases only up to its cap (`maxAliasCount`, 100) and names the document of an
 * error. An alias bomb past the cap is an invalid document, not an exception.
 */
export function yamlDocumentsByReference(text: string): YamlDocuments {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const documents: unknown[] = [];
  for (const [index, doc] of list.entries()) {
    if (doc.errors.length > 0) return { invalid: { index, message: doc.errors[0]!.message } };
    try {
      documents.push(doc.toJSON());
    } catch (error) {
      return { invalid: { index, message: (error as Error).message } };
    }
  }
  return { documents };
}

/**
 * Helm's document separator (helm.sh/helm/v3 pkg/releaseutil/manifest.go `sep`, the same in v4
 * pkg/release/v1/util): every line that starts with `---`, whatever follows on it, with the
 * whitespace around it.
 */
const helmSeparator = /(?:^|\s*\n)---\s*/;

/**
 * Pure: the documents of a release manifest read as Helm reads it: split first at every line that
 * starts with `---` (`SplitManifests`: the text trimmed, each piece trimmed, empty pieces dropped),
 * then each piece read as YAML (`yamlDocuments`). A YAML reading of the whole text can differ: in
 * `---#x: "` followed by indented lines, YAML sees one mapping whose key starts with `---`, while
 * Helm 3 sees a new document, a comment and a second object, and uninstalls it. Reading the pieces
 * makes kube-sweep judge the objects Helm deletes. A piece that holds more than one YAML document
 * (after a `...` end marker) is invalid: Helm reads only one.
 */
export function helmManifestDocuments(text: string): YamlDocuments {
  const pieces = text
    .trim()
    .split(helmSeparator)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const documents: unknown[] = [];
  for (const [index, piece] of pieces.entries()) {
    const read = yamlDocuments(piece);
    if ('invalid' in read) return { invalid: { index, message: read.invalid.message } };
    const present = read.documents.filter((d) => d !== null && d !== undefined);
    if (present.length > 1)
      return { invalid: { index, message: 'it holds more than one YAML document, of which Helm reads one' } };
    documents.push(present[0] ?? null);
  }
  return { documents };
}

/**
 * Pure: parses a multi-document manifest (`---` separated, Helm's `# Source:` comments
 * allowed) into objects, its documents split as Helm splits them (`helmManifestDocuments`). Empty documents and `List` wrappers are handled as
 * kubectl does (items of a List are objects of their own).
 * @param origin names the release or file, for error messages
 * @throws ManifestParseError for invalid YAML (and for aliases expanded past `yaml`'s cap)
 */
export function parseManifest(text: string, origin: string): ManifestObject[] {
  const read = helmManifestDocuments(text);
  if ('invalid' in read)
    throw new ManifestParseError(
      `${origin}: document ${read.invalid.index + 1} is not valid YAML: ${read.invalid.message}`,
    );
  const out: ManifestObject[] = [];
  for (const value of read.documents) collect(value as Record<string, unknown> | null, out);
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
