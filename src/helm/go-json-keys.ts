/**
 * Where Go's JSON reader and `JSON.parse` read one release record differently. Helm 3 and 4
 * decode a release record with Go's encoding/json into structs (helm.sh/helm pkg/release
 * `Release`, `Info`, `Hook`, pkg/chart `Chart`, `Metadata`, `File`), which:
 * - matches an object key to a struct field without regard to case, folding as
 *   `unicode.SimpleFold` does (so `MANIFEST`, `Manifest` and `manifeſt` are all `manifest`),
 *   the last such key winning; `JSON.parse` keeps them as keys of their own;
 * - decodes a repeated key into the value already there: a second `"hooks": [{…}]` updates the
 *   first list's hooks field by field, where `JSON.parse` keeps only the second list.
 * A record Helm wrote has neither (Go's encoder writes each field once, by its exact name), so
 * a record that has one was written by hand, and kube-sweep would check one release while
 * `helm uninstall` acts on another.
 */

/** Pure: a key as Go's encoding/json compares it with a field name (ASCII case, `ſ` = s, `K` (Kelvin) = k). */
export function goFoldedKey(key: string): string {
  return key
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .replace(/\u017f/g, 's')
    .replace(/\u212a/g, 'k');
}

/** JSON field names of the Go structs of a stored release, by where they sit in the record. */
const releaseFields = [
  'name',
  'info',
  'chart',
  'config',
  'manifest',
  'hooks',
  'version',
  'namespace',
  'labels',
];
const infoFields = [
  'first_deployed',
  'last_deployed',
  'deleted',
  'description',
  'status',
  'notes',
  'resources',
];
const chartFields = ['metadata', 'lock', 'templates', 'values', 'schema', 'files'];
const metadataFields = [
  'name',
  'home',
  'sources',
  'version',
  'description',
  'keywords',
  'maintainers',
  'icon',
  'apiVersion',
  'condition',
  'tags',
  'appVersion',
  'deprecated',
  'annotations',
  'kubeVersion',
  'dependencies',
  'type',
];
const fileFields = ['name', 'data'];
const hookFields = [
  'name',
  'kind',
  'path',
  'manifest',
  'events',
  'last_run',
  'weight',
  'delete_policies',
  'output_log_policies',
];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: the first key of `value` that Go reads as one of `fields` without being it, as `"key" … "field"`, or undefined. */
function foldedKeyIn(value: unknown, fields: readonly string[]): string | undefined {
  if (!isObject(value)) return undefined;
  const byFold = new Map(fields.map((f) => [goFoldedKey(f), f]));
  for (const key of Object.keys(value)) {
    const field = byFold.get(goFoldedKey(key));
    // A key that folds to a field name holds only that name's letters (any case), ſ or K: safe to print.
    if (field !== undefined && field !== key)
      return `a key ${JSON.stringify(key)} that Helm reads as ${JSON.stringify(field)}`;
  }
  return undefined;
}

/**
 * Pure: why Go's encoding/json (Helm) would read the parsed record `stored` otherwise than
 * `JSON.parse` did because of a key's case: the first struct key (of the release, its `info`,
 * `chart`, `chart.metadata`, a `chart.files`/`chart.templates` entry or a hook) spelled
 * otherwise than its field but folding to it, or undefined. Keys of free maps (values, config,
 * labels, annotations) are not fields and may differ in case.
 */
export function foldedKeyProblem(stored: unknown): string | undefined {
  if (!isObject(stored)) return undefined;
  const chart = stored.chart;
  const lists = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const problem =
    foldedKeyIn(stored, releaseFields) ??
    foldedKeyIn(stored.info, infoFields) ??
    foldedKeyIn(chart, chartFields) ??
    (isObject(chart)
      ? (foldedKeyIn(chart.metadata, metadataFields) ??
        [...lists(chart.files), ...lists(chart.templates)]
          .map((f) => foldedKeyIn(f, fileFields))
          .find((p) => p))
      : undefined) ??
    lists(stored.hooks)
      .map((h) => foldedKeyIn(h, hookFields))
      .find((p) => p);
  return problem && `its JSON has ${problem} (Go's JSON reader ignores the case of keys)`;
}

/**
 * Pure: whether valid JSON `text` has an object with the same key twice (after unescaping).
 * Call it only on text `JSON.parse` accepted: it tracks strings and brackets, nothing else.
 * Linear in the text.
 */
export function hasRepeatedKey(text: string): boolean {
  const frames: ({ keys: Set<string>; expectKey: boolean } | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      const top = frames.at(-1);
      if (top?.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return true;
        top.keys.add(key);
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b) frames.push({ keys: new Set(), expectKey: true });
    else if (c === 0x5b) frames.push(undefined);
    else if (c === 0x7d || c === 0x5d) frames.pop();
    else if (c === 0x2c) {
      const top = frames.at(-1);
      if (top) top.expectKey = true;
    }
  }
  return false;
}
