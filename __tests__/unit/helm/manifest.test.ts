import { loadAll } from 'js-yaml';
import {
  helmManifestDocuments,
  ManifestParseError,
  maxReferenceParseLength,
  parseManifest,
  referenceParseRefusal,
  yamlDocuments,
  yamlDocumentsByReference,
} from '../../../src/helm/manifest.js';

/** What Helm renders, and the YAML its templates can produce: comments, empty documents, a List, block and flow styles, scalars of every core type, a `__proto__` key. */
const rendered = `# Source: web/templates/configmap.yaml
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  labels: {app: web, "tier": 'front', n: "1"}
  annotations:
    __proto__: polluted?
    helm.sh/resource-policy: keep
    checksum/config: 0123abc
data:
  script: |
    #!/bin/sh
    echo "hello: world"  # not a comment
  folded: >
    one
    two
  yes: yes
  on: on
  octal: 0o14
  hex: 0x1F
  float: 1.5e3
  inf: .inf
  empty:
  tilde: ~
  date: 2001-12-14t21:59:43.10-05:00
  unicode: "caf\\u00e9 ✓"
---
---
# Source: web/templates/list.yaml
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: other}
  spec:
    ports: [{port: 80, targetPort: 8080, name: http}]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata:
    name: web-reader
  rules:
  - apiGroups: [""]
    resources: ["pods", 'pods/log']
    verbs: [get, list]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;

test('js-yaml reads what the reference reads: same documents, same objects', () => {
  // The fast path takes this text itself (no fallback): js-yaml accepts it.
  expect(() => loadAll(rendered, { maxAliases: 0 })).not.toThrow();
  const fast = yamlDocuments(rendered);
  expect(fast).toEqual(yamlDocumentsByReference(rendered));
  const objects = parseManifest(rendered, 'release pr-1/web');
  expect(objects.map((o) => [o.kind, o.name, o.namespace])).toEqual([
    ['ConfigMap', 'web-config', undefined],
    ['Service', 'web', 'other'],
    ['ClusterRole', 'web-reader', undefined],
    ['CustomResourceDefinition', 'widgets.example.com', undefined],
  ]);
  const annotations = objects[0]!.annotations;
  expect(Object.keys(annotations)).toEqual(['__proto__', 'helm.sh/resource-policy', 'checksum/config']);
  expect(Object.getPrototypeOf(annotations)).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('a text with aliases is read by the reference, which expands them up to its cap', () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: &v shared\n  y: *v\n';
  expect(() => loadAll(text, { maxAliases: 0 })).toThrow();
  expect(parseManifest(text, 'r')[0]!.body).toMatchObject({ data: { x: 'shared', y: 'shared' } });
});

test('an alias bomb is a ManifestParseError, not a hang or another exception', () => {
  const levels = 'abcdefghi'.split('');
  const bomb = levels
    .map((c, i) =>
      i === 0
        ? `${c}: &${c} [lol,lol,lol,lol,lol,lol,lol,lol,lol]`
        : `${c}: &${c} [${Array(9)
            .fill(`*${levels[i - 1]}`)
            .join(',')}]`,
    )
    .join('\n');
  expect(() => parseManifest(bomb, 'release pr-1/web')).toThrow(ManifestParseError);
  expect(() => parseManifest(bomb, 'release pr-1/web')).toThrow(
    /^release pr-1\/web: document 1 is not valid YAML: /,
  );
});

test('invalid YAML names its document, as the reference does', () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\na: [\n';
  expect(yamlDocuments(text)).toEqual(yamlDocumentsByReference(text));
  expect(() => parseManifest(text, 'release x/y')).toThrow(/^release x\/y: document 2 is not valid YAML: /);
  const duplicate = 'a: 1\na: 2\n';
  expect(() => parseManifest(duplicate, 'r')).toThrow(
    /document 1 is not valid YAML: Map keys must be unique/,
  );
});

test('deep nesting that js-yaml refuses is not handed to the reference: refused at once, at a bounded cost', () => {
  // A 2 KB Secret held this (gzip): the reference took 12 s and 640 MB per read of it.
  const deep = (n: number) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\ndata:\n  x: ${'['.repeat(n)}${']'.repeat(n)}\n`;
  // The reference would answer "Maximum call stack size exceeded" (after 12 s): this is the guard's answer.
  expect(yamlDocuments(deep(500_000))).toEqual({
    invalid: { index: 0, message: 'it is not YAML that js-yaml reads, and nested deeper than 1000 levels' },
  });
  expect(referenceParseRefusal(deep(1001))).toMatch(/nested deeper than 1000 levels/);
  // Past js-yaml's maxDepth (100) but within the bound, the reference still reads it.
  expect(referenceParseRefusal(deep(200))).toBeUndefined();
  expect(yamlDocuments(deep(200))).toEqual(yamlDocumentsByReference(deep(200)));
  expect('documents' in yamlDocuments(deep(200))).toBe(true);
  // Closing brackets never count below zero: text of ']' first cannot hide depth.
  expect(referenceParseRefusal(`${']'.repeat(5000)}${'{'.repeat(1001)}`)).toMatch(/deeper than 1000/);
});

test('a long text js-yaml refuses (here an alias first) is not handed to the reference', () => {
  const flat = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n---\n';
  const text = `a: &x 1\nb: *x\n---\n${flat.repeat(Math.ceil((maxReferenceParseLength + 1) / flat.length))}`;
  expect(yamlDocuments(text)).toEqual({
    invalid: {
      index: 0,
      message: `it is not YAML that js-yaml reads, and longer than ${maxReferenceParseLength} characters`,
    },
  });
  // The same alias in a short text is read by the reference, as before.
  expect('documents' in yamlDocuments(`a: &x 1\nb: *x\n---\n${flat}`)).toBe(true);
});

test('a manifest is split as Helm splits it: a line starting with --- starts a document, whatever follows', () => {
  // A YAML reader of the whole text sees one ConfigMap with a key `---#x`; Helm 3 sees two objects.
  const text =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n---#x: "\n' +
    ' apiVersion: rbac.authorization.k8s.io/v1\n kind: ClusterRole\n metadata:\n   name: hidden\n #"\n';
  expect(yamlDocuments(text)).toEqual({ documents: [expect.objectContaining({ kind: 'ConfigMap' })] });
  expect(parseManifest(text, 'r').map((o) => `${o.kind}/${o.name}`)).toEqual([
    'ConfigMap/app-config',
    'ClusterRole/hidden',
  ]);
  // What Helm renders reads the same both ways.
  const whole = (yamlDocuments(rendered) as { documents: unknown[] }).documents.filter((d) => d != null);
  const split = (helmManifestDocuments(rendered) as { documents: unknown[] }).documents.filter(
    (d) => d != null,
  );
  expect(split).toEqual(whole);
  expect(split.length).toBeGreaterThan(1);
  // A piece holding two YAML documents (after `...`) is refused: Helm reads only one.
  expect(() => parseManifest('a: 1\n...\nb: 2\n', 'r')).toThrow(/more than one YAML document/);
});
