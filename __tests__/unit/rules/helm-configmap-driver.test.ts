/**
 * Release records of Helm's configmap driver (ConfigMaps, `HELM_DRIVER=configmap`), replayed from
 * snapshots recorded on the local control plane by
 * __tests__/integration/rules/helm-configmap-driver.test.ts.
 */
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { helmReleaseNamespaceGoneRule } from '../../../src/rules/helm-release-namespace-gone.js';
import { helmReleaseStuckRule } from '../../../src/rules/helm-release-stuck.js';
import { releaseHistories, releaseHistoriesById } from '../../../src/rules/helm-releases.js';
import { runRules } from '../../../src/rules/index.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const isConfigMapRecord = (o: ObjectMetadata) =>
  o.resource === 'configmaps' && o.labels?.owner === 'helm' && o.name.startsWith('sh.helm.release.v1.');

test('a deployed release of the configmap driver is a release history stored in a ConfigMap, and nothing is reported', () => {
  const { fixture, inventory } = loadRecordedFixture('helm-configmap-driver-clean');
  const { namespace: ns, release } = fixture.names;
  const history = releaseHistoriesById(inventory).get(`${ns}/${release}`);
  expect(history).toMatchObject({
    namespace: ns,
    storageNamespace: ns,
    storage: 'ConfigMap',
    name: release,
    current: {
      revision: 1,
      status: 'deployed',
      record: { kind: 'ConfigMap', name: `sh.helm.release.v1.${release}.v1` },
    },
  });
  expect(
    runRules(inventory, replayContext(fixture)).filter(
      (f) => f.object.namespace === ns || f.object.name === fixture.names.clusterRole,
    ),
  ).toEqual([]);
});

test('without its ConfigMap record, the same objects are leftovers of a release that does not exist (Secret or ConfigMap named)', () => {
  const { fixture, inventory } = loadRecordedFixture('helm-configmap-driver-clean');
  const { namespace: ns, release } = fixture.names;
  const gone = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.filter((o) => !isConfigMapRecord(o)),
  }));
  const findings = runRules(gone, replayContext(fixture)).filter((f) => f.code === 'HelmLeftover');
  expect(findings.map((f) => f.object.name).sort()).toEqual(['api-config', fixture.names.clusterRole]);
  for (const f of findings)
    expect(f.evidence).toContain(
      `no release Secret or ConfigMap sh.helm.release.v1.${release}.v* (owner=helm) in namespace ${ns}: the release does not exist`,
    );
});

test('a pending release of the configmap driver: HelmReleaseStuck on the ConfigMap, and its helm commands set HELM_DRIVER=configmap', () => {
  const { fixture, inventory } = loadRecordedFixture('helm-configmap-driver-clean');
  const { namespace: ns, release } = fixture.names;
  const pending = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.map((o) =>
      isConfigMapRecord(o) ? { ...o, labels: { ...o.labels, status: 'pending-install' } } : o,
    ),
  }));
  const [f, ...more] = helmReleaseStuckRule.check(pending, replayContext(fixture));
  expect(more).toEqual([]);
  expect(f!.object).toMatchObject({
    kind: 'ConfigMap',
    namespace: ns,
    name: `sh.helm.release.v1.${release}.v1`,
  });
  expect(f!.evidence).toContain(
    `status: pending-install (label of ConfigMap sh.helm.release.v1.${release}.v1)`,
  );
  expect(f!.remediation.commands).toEqual(
    expect.arrayContaining([
      `HELM_DRIVER=configmap helm history -n ${ns} -- ${release}`,
      `kubectl get configmaps -n ${ns} -l owner=helm,name=${release} --show-labels`,
      `HELM_DRIVER=configmap helm uninstall -n ${ns} -- ${release}`,
    ]),
  );
  expect(f!.remediation.commands.filter((c) => c.startsWith('helm '))).toEqual([]);
});

test('a release recorded by both drivers is keyed to the installed history', () => {
  const { fixture, inventory } = loadRecordedFixture('helm-configmap-driver-clean');
  const { namespace: ns, release } = fixture.names;
  const record = inventory.objects.find(isConfigMapRecord)!;
  const both = withInventory(inventory, (d) => ({
    ...d,
    objects: [
      ...d.objects,
      {
        ...record,
        kind: 'Secret',
        resource: 'secrets',
        uid: 'uid-secret-record',
        labels: { ...record.labels, status: 'uninstalled' },
      },
    ],
  }));
  expect(
    releaseHistories(both)
      .filter((h) => h.name === release)
      .map((h) => [h.storage, h.current.status]),
  ).toEqual([
    ['ConfigMap', 'deployed'],
    ['Secret', 'uninstalled'],
  ]);
  expect(releaseHistoriesById(both).get(`${ns}/${release}`)?.storage).toBe('ConfigMap');
});

test('S28 with the configmap driver: HelmReleaseNamespaceGone on the ConfigMap record; the remedy deletes ConfigMaps', () => {
  const { fixture, inventory } = loadRecordedFixture('helm-configmap-driver-namespace-gone');
  const { namespace: gitops, target, release, record } = fixture.names;
  const [f, ...more] = helmReleaseNamespaceGoneRule.check(inventory, replayContext(fixture));
  expect(more).toEqual([]);
  expect(f!.object).toMatchObject({ kind: 'ConfigMap', namespace: gitops, name: record });
  expect(f!.evidence[1]).toMatch(
    new RegExp(
      `^the decoded release's namespace ${target} differs from the ConfigMap's namespace ${gitops} `,
    ),
  );
  expect(f!.remediation.summary).toContain(
    `ConfigMaps labelled owner=helm,name=${release} in namespace ${gitops}`,
  );
  expect(f!.remediation.commands).toContain(
    `kubectl delete configmaps -n ${gitops} -l owner=helm,name=${release}`,
  );
  expect(f!.remediation.commands.some((c) => c.startsWith('kubectl delete secrets'))).toBe(false);
});
