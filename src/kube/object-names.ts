/**
 * Pure checks of the names that go into API paths. A name read from a release record (a
 * manifest) is untrusted text: a name of `.` or `..` is a dot segment that URL resolution
 * removes, so `DELETE …/configmaps/.` reaches `…/configmaps/`, the collection, and deletes every
 * ConfigMap there. Kubernetes never stores such a name; these checks make sure kube-sweep never
 * sends one either.
 */

/** A UTF-16 surrogate without its pair: no UTF-8 for it, and `encodeURIComponent` throws on it. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Names a path segment may not be, and text it may not contain (k8s.io/apimachinery pkg/api/validate/content/path.go `IsPathSegmentName`). */
const notNames = new Set(['.', '..']);
const notInNames = ['/', '%'];

/**
 * Pure: why `name` cannot be an object's name in an API path, or undefined when it can. The
 * rule of k8s.io/apimachinery pkg/api/validate/content/path.go `IsPathSegmentName` (not `.` or
 * `..`, no `/` or `%`), which every object name must pass, and not empty (an empty name makes the
 * collection's path).
 */
export function objectNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (loneSurrogate.test(name)) return 'it is not valid Unicode (a lone surrogate)';
  if (notNames.has(name)) return `it is '${name}', which a path resolves away`;
  const bad = notInNames.find((c) => name.includes(c));
  return bad === undefined ? undefined : `it contains '${bad}'`;
}

/**
 * The DNS-1123 label format as regular-expression source, unanchored: lower-case alphanumerics
 * and inner `-` (k8s.io/apimachinery pkg/util/validation/validation.go `dns1123LabelFmt`). The
 * one place it is written: the label, subdomain, release-name and qualified-name checks of
 * kube-sweep are all built from it.
 */
export const dns1123LabelFormat = '[a-z0-9](?:[-a-z0-9]*[a-z0-9])?';

/**
 * The DNS-1123 subdomain format, unanchored: labels joined by `.` (validation.go
 * `dns1123SubdomainFmt`).
 */
export const dns1123SubdomainFormat = `${dns1123LabelFormat}(?:\\.${dns1123LabelFormat})*`;

const dns1123Label = new RegExp(`^${dns1123LabelFormat}$`);
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFormat}$`);
/** A DNS-1035 label: a DNS-1123 label that starts with a letter (validation.go `dns1035LabelFmt`). */
const dns1035Label = new RegExp(`^(?=[a-z])${dns1123LabelFormat}$`);

/** Pure: whether `name` is a DNS-1123 label: at most 63 characters of `dns1123LabelFormat` (validation.go `IsDNS1123Label`). */
export function isDns1123Label(name: string): boolean {
  return name.length <= 63 && dns1123Label.test(name);
}

/** Pure: whether `name` is a DNS-1123 subdomain: at most 253 characters of `dns1123SubdomainFormat` (validation.go `IsDNS1123Subdomain`). */
export function isDns1123Subdomain(name: string): boolean {
  return name.length <= 253 && dns1123Subdomain.test(name);
}

/** Pure: whether `name` is a DNS-1035 label: at most 63 characters, a DNS-1123 label that starts with a letter (validation.go `IsDNS1035Label`). */
export function isDns1035Label(name: string): boolean {
  return name.length <= 63 && dns1035Label.test(name);
}

/**
 * Pure: whether `name` is a Helm release name: at most 53 characters of DNS-1123 labels joined
 * by dots (helm.sh/helm/v3 pkg/chartutil/validate_name.go `ValidateReleaseName`, the same rule
 * in Helm 4). Both the `releases` input and the release records read from the cluster are
 * checked with it.
 */
export function isHelmReleaseName(name: string): boolean {
  return name.length <= 53 && dns1123Subdomain.test(name);
}

/** Pure: whether `name` can be a namespace's name (a DNS-1123 label, `isDns1123Label`). */
export function isNamespaceName(name: string): boolean {
  return isDns1123Label(name);
}

/**
 * Pure: whether `apiVersion` is written as Kubernetes writes one (`v1`, `apps/v1`,
 * `example.com/v1beta1`): `v1` (the core group) or `<group>/<version>`, the group a DNS-1123
 * subdomain and the version a DNS-1035 label (CRD versions: k8s.io/apiextensions-apiserver
 * pkg/apis/apiextensions/validation). `/v1`, which k8s.io/apimachinery `ParseGroupVersion`
 * would read as the core group, is not one of them.
 */
export function isApiVersion(apiVersion: string): boolean {
  const slash = apiVersion.indexOf('/');
  if (slash >= 0 && !isDns1123Subdomain(apiVersion.slice(0, slash))) return false;
  return isDns1035Label(apiVersion.slice(slash + 1));
}

/** A kind: a DNS-1035 label once lower-cased, as a CRD's kind must be (letters, digits and inner `-`, starting with a letter). */
const kindPattern = /^[A-Za-z]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;

/** Pure: whether `kind` can be a kind (`ConfigMap`, `Widget`). */
export function isKindName(kind: string): boolean {
  return kindPattern.test(kind);
}

/**
/** One path segment of RFC 3986 `pchar`s: unreserved, percent-encoded, sub-delims, `:` and `@`. */
const pathCharacters = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*$/;

/**
 * Pure: why the path of an API request is unsafe to send, or undefined when it is not: every
 * segment after the leading `/` must be of RFC 3986 path characters (anything else
 * percent-encoded), non-empty and, decoded, neither `.` nor `..` nor holding `/` or `%` (which
 * would address another object or the collection). The last line of
 * defence for names that reach a path without `objectNameProblem`.
 */
export function requestPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'it does not start with /';
  for (const segment of path.slice(1).split('/')) {
    // RFC 3986 `pchar` only: a `\`, `?`, `#`, a space or a control character would be read as
    // another separator, a query or a fragment (every caller percent-encodes names).
    if (!pathCharacters.test(segment)) return 'a segment holds a character a path must percent-encode';
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return 'a segment is not valid percent-encoding';
    }
    const why = objectNameProblem(decoded);
    if (why) return `a segment ${why.replace(/^it /, '')}`;
  }
  return undefined;
}
