import { gzipSync } from 'node:zlib';
import {
  currentReleases,
  decodeRelease,
  helmDriver,
  helmDriverPrefix,
  maxDecodedReleaseBytes,
  ReleaseDecodeError,
  type HelmRelease,
} from '../../../src/helm/release-storage.js';
import { recordedRecord, recordedRelease } from '../support/fixtures.js';

test.each(['helm3', 'helm4'])('decodes the operator release stored by %s', (helm) => {
  const r = recordedRelease(`${helm}-operator.json`);
  expect(r).toMatchObject({
    name: 'operator',
    namespace: `fixture-${helm}`,
    revision: 1,
    status: 'deployed',
    chart: { name: 'operator', version: '0.1.0' },
    crdFiles: [],
    hooks: [],
  });
  expect(r.manifest).toContain('kind: CustomResourceDefinition');
  expect(r.manifest).toContain('kind: ValidatingWebhookConfiguration');
});

test('reads the crds/ files of a chart', () => {
  const r = recordedRelease('helm4-stack.json');
  expect(r.crdFiles.map((f) => f.name)).toEqual(['crds/widgets.yaml']);
  expect(r.crdFiles[0]!.yaml).toContain('name: widgets.stack.kube-sweep.test');
  expect(r.manifest).not.toContain('CustomResourceDefinition');
});

test('a value that is not a Helm release is a ReleaseDecodeError naming the Secret', () => {
  const decode = () =>
    decodeRelease(Buffer.from('not base64 gzip json').toString('base64'), 'ns/sh.helm.release.v1.x.v1');
  expect(decode).toThrow(ReleaseDecodeError);
  expect(decode).toThrow(/^release Secret ns\/sh\.helm\.release\.v1\.x\.v1 could not be decoded: /);
});

test('currentReleases keeps the highest revision and drops uninstalled ones', () => {
  const base = recordedRelease('helm4-app.json');
  const revisions: HelmRelease[] = [
    { ...base, revision: 1, status: 'superseded' },
    { ...base, revision: 3, status: 'pending-upgrade' },
    { ...base, revision: 2, status: 'superseded' },
    { ...base, name: 'gone', revision: 2, status: 'uninstalled' },
  ];
  expect(currentReleases(revisions).map((r) => [r.name, r.revision, r.status])).toEqual([
    ['app', 3, 'pending-upgrade'],
  ]);
});

/** `secret.data.release` of a record: base64 of base64 of gzip of JSON, as Helm stores it. */
function encoded(record: unknown, gzipped = gzipSync(Buffer.from(JSON.stringify(record)))): string {
  return Buffer.from(gzipped.toString('base64')).toString('base64');
}

/** Nine levels of ten aliases each: a billion strings if expanded whole. */
const aliasBomb = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...'bcdefghi'.split('').map((c, i) => {
    const prev = 'abcdefghi'[i]!;
    return `${c}: &${c} [${Array(9).fill(`*${prev}`).join(',')}]`;
  }),
].join('\n');

const valid = { name: 'web', namespace: 'pr-1', version: 1, info: { status: 'deployed' }, manifest: '' };

test.each<readonly [string, unknown, RegExp]>([
  [
    'a name with a line break and a workflow command',
    { ...valid, name: 'x\n::add-mask::y' },
    /release name is not one Helm allows/,
  ],
  ['a name that is a flag', { ...valid, name: '--dry-run' }, /release name is not one Helm allows/],
  ['a name of 54 characters', { ...valid, name: 'a'.repeat(54) }, /release name is not one Helm allows/],
  [
    'another namespace',
    { ...valid, namespace: 'kube-system' },
    /names namespace kube-system, but its Secret is stored in namespace pr-1/,
  ],
  ['a manifest that is not text', { ...valid, manifest: 7 }, /its manifest is not text/],
  [
    'a manifest of a bare string',
    { ...valid, manifest: 'just words' },
    /document 1 of its manifest is not an object/,
  ],
  [
    'a manifest object with no name',
    { ...valid, manifest: 'apiVersion: v1\nkind: ConfigMap\n' },
    /document 1 of its manifest has no metadata.name/,
  ],
  // Names go into API paths: `DELETE …/configmaps/.` would reach the collection (every ConfigMap).
  ...['.', '..', '', 'a/b', 'a%2e', '%2e'].map(
    (name) =>
      [
        `an object named ${JSON.stringify(name)}`,
        {
          ...valid,
          manifest: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "${name}"\n  namespace: other\n`,
        },
        /document 1 of its manifest has a metadata.name that cannot be an object's name/,
      ] as const,
  ),
  ...['..', 'a/b', 'Other', '-x', 'a'.repeat(64)].map(
    (namespace) =>
      [
        `an object in namespace ${JSON.stringify(namespace)}`,
        {
          ...valid,
          manifest: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: "${namespace}"\n`,
        },
        /document 1 of its manifest has a metadata.namespace that is not a namespace name/,
      ] as const,
  ),
  // `/v1` is core v1 to k8s.io/apimachinery, but not to a check written for `v1` (the Namespace refusal).
  ...['/v1', 'v1/', 'apps/', 'Apps/v1', 'a/b/v1', ' v1', ''].map(
    (apiVersion) =>
      [
        `an object of apiVersion ${JSON.stringify(apiVersion)}`,
        { ...valid, manifest: `apiVersion: "${apiVersion}"\nkind: Namespace\nmetadata:\n  name: victim\n` },
        /document 1 of its manifest has an apiVersion Kubernetes would not write/,
      ] as const,
  ),
  [
    'an object of kind "Config Map"',
    { ...valid, manifest: 'apiVersion: v1\nkind: "Config Map"\nmetadata:\n  name: c\n' },
    /document 1 of its manifest has a kind that is not a kind name/,
  ],
  [
    'a List holding an object named "."',
    {
      ...valid,
      manifest:
        'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: ok}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: "."}}\n',
    },
    /item 2 of document 1 of its manifest has a metadata.name that cannot be an object's name/,
  ],
  [
    'a hook object named ".."',
    { ...valid, hooks: [{ name: 'h', manifest: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: ".."\n' }] },
    /document 1 of its hook manifest has a metadata.name that cannot be an object's name/,
  ],
  [
    'a hook manifest that is not YAML',
    { ...valid, hooks: [{ name: 'h', manifest: 'a: [' }] },
    /hook manifest is not valid YAML/,
  ],
  ['hooks that are not a list', { ...valid, hooks: 'x' }, /its hooks are not a list/],
  [
    'a manifest whose aliases expand past the cap (an alias bomb)',
    { ...valid, manifest: aliasBomb },
    /document 1 of its manifest is not valid YAML/,
  ],
])('a record with %s is refused, naming the Secret and why, never its fields', (_what, record, why) => {
  const decode = () => decodeRelease(encoded(record), 'pr-1/sh.helm.release.v1.web.v1');
  expect(decode).toThrow(ReleaseDecodeError);
  expect(decode).toThrow(
    /^release Secret pr-1\/sh\.helm\.release\.v1\.web\.v1 is not a valid Helm release: /,
  );
  expect(decode).toThrow(why);
  expect(decode).not.toThrow(/add-mask/);
});

test('a valid record with a manifest of objects decodes', () => {
  const manifest = '---\n# Source: x\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n';
  expect(decodeRelease(encoded({ ...valid, manifest }), 'pr-1/sh.helm.release.v1.web.v1').name).toBe('web');
});

test('the diagnosis (storedElsewhere) accepts a record for another namespace, and only that', () => {
  // What Flux helm-controller stores in its storage namespace (S28); plan and teardown refuse it.
  const elsewhere = { ...valid, namespace: 'pr-7' };
  const secret = 'gitops/sh.helm.release.v1.web.v1';
  expect(() => decodeRelease(encoded(elsewhere), secret)).toThrow(/names namespace pr-7, but its Secret/);
  expect(decodeRelease(encoded(elsewhere), secret, { storedElsewhere: true }).namespace).toBe('pr-7');
  expect(() =>
    decodeRelease(encoded({ ...elsewhere, name: '--dry-run' }), secret, { storedElsewhere: true }),
  ).toThrow(/release name is not one Helm allows/);
});

test('a gzip bomb is refused without inflating it all, and bad JSON is named without quoting it', () => {
  // 40 MiB of zeros inflates past the 32 MiB bound; gzipped it is about 40 KiB.
  const bomb = gzipSync(Buffer.alloc(maxDecodedReleaseBytes + 8 * 1024 * 1024));
  expect(bomb.length).toBeLessThan(100 * 1024);
  expect(() => decodeRelease(encoded(null, bomb), 'pr-1/s')).toThrow(
    /^release Secret pr-1\/s could not be decoded: it inflates past 32 MiB \(a gzip bomb\?\)$/,
  );
  const notJson = encoded(null, gzipSync(Buffer.from('x\n::add-mask::y')));
  expect(() => decodeRelease(notJson, 'pr-1/s')).toThrow(
    /^release Secret pr-1\/s could not be decoded: it is not base64 of gzipped JSON$/,
  );
});

test('names, namespaces and apiVersions Kubernetes writes are accepted', () => {
  const manifest = [
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: "system:web:reader"\n',
    'apiVersion: example.com/v1beta1\nkind: Widget\nmetadata:\n  name: w.1\n  namespace: other-ns\n',
    'apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ""}}\n',
  ].join('---\n');
  expect(decodeRelease(encoded({ ...valid, manifest }), 'pr-1/sh.helm.release.v1.web.v1').manifest).toBe(
    manifest,
  );
});

test('decodes a configmap-driver record (Helm 4): its data holds the Helm encoding without the API base64', () => {
  const r = recordedRelease('helm4-configmap-modes.json');
  expect(r).toMatchObject({
    name: 'modes',
    namespace: 'fixture-configmap',
    revision: 1,
    status: 'deployed',
    storage: { kind: 'ConfigMap', name: 'sh.helm.release.v1.modes.v1' },
  });
  expect(r.manifest).toContain('kind: ClusterRole');
  expect(recordedRelease('helm4-app.json').storage).toEqual({
    kind: 'Secret',
    name: 'sh.helm.release.v1.app.v1',
  });
});

test('a ConfigMap record read as a Secret does not decode, and a bad one is named as a ConfigMap', () => {
  const cm = recordedRecord('helm4-configmap-modes.json');
  const name = 'fixture-configmap/sh.helm.release.v1.modes.v1';
  expect(() => decodeRelease(cm.data.release, name)).toThrow(/^release Secret .* could not be decoded/);
  expect(() => decodeRelease('%%% not base64 of gzip %%%', name, { kind: 'ConfigMap' })).toThrow(
    /^release ConfigMap fixture-configmap\/sh\.helm\.release\.v1\.modes\.v1 could not be decoded: /,
  );
  const elsewhere = Buffer.from(encoded({ ...valid, namespace: 'pr-7' }), 'base64').toString('utf8');
  expect(() => decodeRelease(elsewhere, 'pr-1/sh.helm.release.v1.web.v1', { kind: 'ConfigMap' })).toThrow(
    /names namespace pr-7, but its ConfigMap is stored in namespace pr-1/,
  );
});

test('helmDriver and helmDriverPrefix: configmap for ConfigMap records, the default for Secrets', () => {
  expect([helmDriver('Secret'), helmDriver('ConfigMap')]).toEqual(['secret', 'configmap']);
  expect([helmDriverPrefix('Secret'), helmDriverPrefix('ConfigMap')]).toEqual(['', 'HELM_DRIVER=configmap ']);
});

test('a chart crds/ file holding a CustomResourceDefinition the API server would refuse makes the record invalid', () => {
  // A forged "CRD" of the core group with plural configmaps: its "instances" would be every ConfigMap.
  const crd = (group: string, plural: string, name = `${plural}.${group}`) =>
    `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${JSON.stringify(name)}\n` +
    `spec:\n  group: ${JSON.stringify(group)}\n  names: {plural: ${plural}, kind: Widget}\n`;
  const withFile = (yaml: string) => ({
    ...valid,
    chart: {
      metadata: { name: 'c', version: '1' },
      files: [{ name: 'crds/w.yaml', data: Buffer.from(yaml).toString('base64') }],
    },
  });
  const secret = 'pr-1/sh.helm.release.v1.web.v1';
  for (const bad of [
    crd('', 'configmaps', 'configmaps'),
    crd('example', 'widgets'),
    crd('example.com', 'widgets', 'other.example.com'),
  ])
    expect(() => decodeRelease(encoded(withFile(bad)), secret)).toThrow(
      /CustomResourceDefinition the API server would not accept/,
    );
  expect(decodeRelease(encoded(withFile(crd('example.com', 'widgets'))), secret).crdFiles).toHaveLength(1);
});

const role = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: victim\n';

/**
 * Go's encoding/json (Helm's) matches keys to struct fields without regard to case (ſ is s, K
 * is k) and merges a repeated key into the value already there; JSON.parse keeps `MANIFEST` as
 * a key of its own and keeps only the last of a repeated key. Either lets a record show
 * kube-sweep one release and Helm another.
 */
test.each<readonly [string, string, RegExp]>([
  [
    'a MANIFEST key after the manifest',
    JSON.stringify({ ...valid, MANIFEST: role }),
    /its JSON has a key "MANIFEST" that Helm reads as "manifest"/,
  ],
  [
    'a manifeſt key (long s)',
    JSON.stringify({ ...valid, manifeſt: role }),
    /key "manifeſt" that Helm reads as "manifest"/,
  ],
  [
    'a hook whose Events key Go reads as events',
    JSON.stringify({ ...valid, hooks: [{ name: 'h', manifest: '', Events: ['pre-delete'] }] }),
    /key "Events" that Helm reads as "events"/,
  ],
  [
    'an Info key',
    JSON.stringify({ ...valid, Info: { status: 'uninstalled' } }),
    /key "Info" that Helm reads as "info"/,
  ],
  [
    'a chart files entry with a Name key',
    JSON.stringify({ ...valid, chart: { files: [{ Name: 'crds/x.yaml', data: '' }] } }),
    /key "Name" that Helm reads as "name"/,
  ],
  [
    // Go decodes the second list into the first one's hooks: hook 1 keeps its pre-delete event and manifest.
    'a repeated hooks key',
    `${JSON.stringify(valid).slice(0, -1)},"hooks":[{"name":"h","events":["pre-delete"],"manifest":${JSON.stringify(role)}}],"hooks":[{"name":"h"}]}`,
    /its JSON has an object with a repeated key/,
  ],
  [
    'a key repeated through an escape',
    `${JSON.stringify(valid).slice(0, -1)},"manifes\\u0074":""}`,
    /its JSON has an object with a repeated key/,
  ],
])('a record with %s is refused: Helm would read it otherwise', (_what, json, why) => {
  const decode = () =>
    decodeRelease(encoded(undefined, gzipSync(Buffer.from(json))), 'pr-1/sh.helm.release.v1.web.v1');
  expect(decode).toThrow(ReleaseDecodeError);
  expect(decode).toThrow(why);
});

test('keys of free maps (values, config, annotations) may differ in case; a repeated key elsewhere in a string is no key', () => {
  const record = {
    ...valid,
    config: { Name: 'a', name: 'b', Manifest: 'x' },
    chart: { metadata: { name: 'c', annotations: { Version: '1' } }, values: { Hooks: [] } },
    manifest: '# {"a":1,"a":2}\n',
  };
  expect(decodeRelease(encoded(record), 'pr-1/sh.helm.release.v1.web.v1').name).toBe('web');
});
