import { joinDrivers } from '../../../src/helm/discover-releases.js';
import type { HelmRelease } from '../../../src/helm/release-storage.js';
import { recordedRelease } from '../support/fixtures.js';

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
