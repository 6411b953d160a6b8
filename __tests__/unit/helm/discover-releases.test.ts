import { gunzipSync, gzipSync } from 'node:zlib';
import { joinDrivers, recordLabelProblem, releasesOfRecords } from '../../../src/helm/discover-releases.js';
import type { HelmRelease } from '../../../src/helm/release-storage.js';
import { recordedRecord, recordedRelease } from '../support/fixtures.js';

// Recorded: release app in fixture-helm4 (Secret), release modes in fixture-configmap (ConfigMap).
const secretApp = recordedRelease('helm4-app.json');
const configMapModes = recordedRelease('helm4-configmap-modes.json');
/** The configmap-driver record as if it had been installed as `app` in fixture-helm4 too. */
const configMapApp: HelmRelease = {
  ...configMapModes,
  name: 'app',
  namespace: 'fixture-helm4',
  revision: 3,
  storage: { kind: 'ConfigMap', name: 'sh.helm.release.v1.app.v3' },
};

test('releases of both drivers are joined, sorted by namespace and name', () => {
  const { releases, conflicts } = joinDrivers([secretApp], [configMapModes]);
  expect(releases.map((r) => [r.namespace, r.name, r.storage.kind])).toEqual([
    ['fixture-configmap', 'modes', 'ConfigMap'],
    ['fixture-helm4', 'app', 'Secret'],
  ]);
  expect(conflicts).toEqual([]);
});

test('a release name with records in both drivers in one namespace is left out and is a conflict naming both records and the fix', () => {
  const { releases, conflicts } = joinDrivers([secretApp], [configMapApp, configMapModes]);
  expect(releases.map((r) => `${r.namespace}/${r.name}`)).toEqual(['fixture-configmap/modes']);
  expect(conflicts).toEqual([
    {
      namespace: 'fixture-helm4',
      name: 'app',
      message:
        'release app in namespace fixture-helm4 has records of both Helm storage drivers: ' +
        'Secret fixture-helm4/sh.helm.release.v1.app.v1 (revision 1, deployed) and ' +
        'ConfigMap fixture-helm4/sh.helm.release.v1.app.v3 (revision 3, deployed). Helm keeps them as two ' +
        'releases (one for HELM_DRIVER=secret, one for HELM_DRIVER=configmap) and kube-sweep cannot know which ' +
        'one the teardown should remove: uninstall the one you mean (helm uninstall -n fixture-helm4 -- app, or ' +
        'HELM_DRIVER=configmap helm uninstall -n fixture-helm4 -- app) or delete the stale records of the ' +
        'other, then run the teardown again',
    },
  ]);
});

test('the same name in two namespaces is no conflict', () => {
  const { releases, conflicts } = joinDrivers([secretApp], [{ ...configMapApp, namespace: 'other' }]);
  expect(releases.map((r) => `${r.namespace}/${r.name}/${r.storage.kind}`)).toEqual([
    'fixture-helm4/app/Secret',
    'other/app/ConfigMap',
  ]);
  expect(conflicts).toEqual([]);
});

/** The JSON of a recorded record, decoded as Helm decodes it (no checks). */
function recordJson(file: string): Record<string, unknown> {
  const r = recordedRecord(file);
  const helmEncoded =
    r.kind === 'Secret' ? Buffer.from(r.data.release, 'base64').toString('utf8') : r.data.release;
  return JSON.parse(gunzipSync(Buffer.from(helmEncoded, 'base64')).toString('utf8')) as Record<
    string,
    unknown
  >;
}

/**
 * A record item of `kind` as a list returns it: `json` encoded as Helm encodes it, labelled and
 * named as Helm names it for `labels.name` and `labels.version` unless `objectName` says otherwise.
 */
function item(
  kind: 'Secret' | 'ConfigMap',
  json: unknown,
  labels: Record<string, string>,
  objectName = `sh.helm.release.v1.${labels.name}.v${labels.version}`,
) {
  const helmEncoded = gzipSync(Buffer.from(JSON.stringify(json))).toString('base64');
  const release = kind === 'Secret' ? Buffer.from(helmEncoded).toString('base64') : helmEncoded;
  return { metadata: { name: objectName, labels: { owner: 'helm', ...labels } }, data: { release } };
}

const app = recordJson('helm4-app.json');
const appRevision = (version: number, extra: Record<string, unknown> = {}) => ({
  ...app,
  version,
  info: { ...(app.info as object), status: version === 1 ? 'superseded' : 'deployed' },
  ...extra,
});
const appLabels = (version: number) => ({ name: 'app', version: String(version) });
const secrets = (...items: ReturnType<typeof item>[]) => [
  { namespace: 'fixture-helm4', kind: 'Secret' as const, items },
];

test('releasesOfRecords reads recorded records of both drivers as Helm files them', () => {
  const found = releasesOfRecords([
    { namespace: 'fixture-helm4', kind: 'Secret', items: [recordedRecord('helm4-app.json')] },
    {
      namespace: 'fixture-configmap',
      kind: 'ConfigMap',
      items: [recordedRecord('helm4-configmap-modes.json')],
    },
  ]);
  expect(found.releases.map((r) => [r.namespace, r.name, r.revision, r.storage.kind])).toEqual([
    ['fixture-configmap', 'modes', 1, 'ConfigMap'],
    ['fixture-helm4', 'app', 1, 'Secret'],
  ]);
  expect(found).toMatchObject({ refused: [], refusedReleases: [], earlierRevisions: [], conflicts: [] });
});

test('releasesOfRecords: the highest version is current, the others are earlier revisions Helm may read', () => {
  const found = releasesOfRecords(
    secrets(item('Secret', appRevision(1), appLabels(1)), item('Secret', appRevision(2), appLabels(2))),
  );
  expect(found.releases.map((r) => [r.name, r.revision, r.storage.name])).toEqual([
    ['app', 2, 'sh.helm.release.v1.app.v2'],
  ]);
  expect(found.earlierRevisions.map((r) => [r.name, r.revision])).toEqual([['app', 1]]);
  expect(found.refusedReleases).toEqual([]);
});

test('releasesOfRecords: a refused revision takes its release out, named with the record and the fix; the valid revision is not used', () => {
  // Revision 2 ships a crds/ file kube-sweep refuses (a group without a dot); Helm would decode it.
  const crd =
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.nodot\n' +
    'spec:\n  group: nodot\n  names: {plural: things, kind: Thing}\n  scope: Namespaced\n';
  const forged = appRevision(2, {
    chart: {
      ...(app.chart as object),
      files: [{ name: 'crds/things.yaml', data: Buffer.from(crd).toString('base64') }],
    },
  });
  const found = releasesOfRecords(
    secrets(item('Secret', appRevision(1), appLabels(1)), item('Secret', forged, appLabels(2))),
  );
  expect(found.releases).toEqual([]);
  expect(found.earlierRevisions).toEqual([]);
  expect(found.refused).toEqual([
    {
      kind: 'Secret',
      namespace: 'fixture-helm4',
      secret: 'sh.helm.release.v1.app.v2',
      release: 'app',
      reason: expect.stringMatching(
        /^release Secret fixture-helm4\/sh\.helm\.release\.v1\.app\.v2 is not a valid Helm release: .*CustomResourceDefinition the API server would not accept/,
      ),
    },
  ]);
  expect(found.refusedReleases).toEqual([
    {
      namespace: 'fixture-helm4',
      name: 'app',
      kind: 'Secret',
      current: true,
      message: expect.stringContaining(
        'release app in namespace fixture-helm4 has release Secrets that kube-sweep refused (release Secret fixture-helm4/sh.helm.release.v1.app.v2 is not a valid Helm release',
      ),
    },
  ]);
  expect(found.refusedReleases[0]!.message).toContain(
    'helm uninstall reads every Secret labelled owner=helm,name=app in namespace fixture-helm4 (HELM_DRIVER=secret), ' +
      'skips only what it cannot decode and acts on the highest version: what it would delete is unknown. Check who wrote ' +
      'them, remove them (kubectl delete secret -n fixture-helm4 -- sh.helm.release.v1.app.v2) or remove the release by hand',
  );
});

test.each([
  [
    'a name label that is not the record’s release',
    item('Secret', { ...appRevision(2), name: 'zz' }, appLabels(2)),
    'release Secret fixture-helm4/sh.helm.release.v1.app.v2 is labelled name=app, but its record is of release zz',
  ],
  [
    'a version label that is not the record’s revision',
    item('Secret', appRevision(7), appLabels(2)),
    'release Secret fixture-helm4/sh.helm.release.v1.app.v2 is labelled version=2, but its record is revision 7',
  ],
  [
    'an object name Helm would not give it',
    item('Secret', appRevision(2), appLabels(2), 'sh.helm.release.v1.app.v2-copy'),
    'release Secret fixture-helm4/sh.helm.release.v1.app.v2-copy holds revision 2 of release app, which Helm stores as sh.helm.release.v1.app.v2',
  ],
])('releasesOfRecords: %s is refused, and so is its release', (_what, forged, reason) => {
  const found = releasesOfRecords(secrets(item('Secret', appRevision(1), appLabels(1)), forged));
  expect(found.refused.map((r) => r.reason)).toEqual([expect.stringContaining(reason)]);
  expect(found.releases).toEqual([]);
  expect(found.refusedReleases.map((r) => [r.namespace, r.name, r.kind, r.current])).toEqual([
    ['fixture-helm4', 'app', 'Secret', true],
  ]);
});

test('releasesOfRecords: a record labelled name=r whose JSON says zz is not filed under zz; r is refused', () => {
  const found = releasesOfRecords(
    secrets(item('Secret', { ...appRevision(1), name: 'zz' }, { name: 'r', version: '1' })),
  );
  expect(found.releases).toEqual([]);
  expect(found.refusedReleases.map((r) => [r.name, r.current])).toEqual([['r', false]]);
});

test('releasesOfRecords: a record with no name label is refused and filed under no release (Helm never reads it)', () => {
  const unlabelled = item('Secret', appRevision(1), appLabels(1));
  delete (unlabelled.metadata.labels as Record<string, string>).name;
  const found = releasesOfRecords(secrets(unlabelled));
  expect(found.refused.map((r) => [r.secret, r.release, r.reason])).toEqual([
    [
      'sh.helm.release.v1.app.v1',
      undefined,
      'release Secret fixture-helm4/sh.helm.release.v1.app.v1 has no name label, so helm never reads it for any release: kube-sweep does not use it either',
    ],
  ]);
  expect(found.releases).toEqual([]);
  expect(found.refusedReleases).toEqual([]);
});

test('releasesOfRecords: ConfigMap records are grouped apart from Secrets, and a refused one names the configmap driver', () => {
  const modes = recordJson('helm4-configmap-modes.json');
  const found = releasesOfRecords([
    {
      namespace: 'fixture-configmap',
      kind: 'ConfigMap',
      items: [
        item('ConfigMap', modes, { name: 'modes', version: '1' }),
        item('ConfigMap', { ...modes, version: 2, name: 'other' }, { name: 'modes', version: '2' }),
      ],
    },
    {
      namespace: 'fixture-configmap',
      kind: 'Secret',
      items: [item('Secret', { ...app, namespace: 'fixture-configmap' }, appLabels(1))],
    },
  ]);
  expect(found.releases.map((r) => [r.name, r.storage.kind])).toEqual([['app', 'Secret']]);
  expect(found.refusedReleases.map((r) => [r.name, r.kind, r.current])).toEqual([
    ['modes', 'ConfigMap', true],
  ]);
  expect(found.refusedReleases[0]!.message).toContain(
    '(HELM_DRIVER=configmap), skips only what it cannot decode and acts on the highest version',
  );
  expect(found.refusedReleases[0]!.message).toContain(
    'kubectl delete configmap -n fixture-configmap -- sh.helm.release.v1.modes.v2',
  );
});

test('recordLabelProblem accepts what Helm writes', () => {
  const r = recordedRecord('helm4-app.json');
  expect(recordLabelProblem(r.metadata, recordedRelease('helm4-app.json'))).toBeUndefined();
});
