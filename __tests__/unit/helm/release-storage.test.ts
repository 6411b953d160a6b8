import {
  currentReleases,
  decodeRelease,
  ReleaseDecodeError,
  type HelmRelease,
} from '../../../src/helm/release-storage.js';
import { recordedRelease } from '../support/fixtures.js';

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
