/**
 * S28: Helm release records stored in another namespace than their release, for a namespace that
 * no longer exists. Built for real with Helm 4, without Flux: chart `api` (a ConfigMap and
 * ClusterRole `<release namespace>-api-reader`) installed as `<id>-api` into `<id>-pr-7`; its record
 * Secret is then moved to `<id>-gitops`, where helm-controller would keep it, and `<id>-pr-7` is
 * deleted. `helm list -A` still lists the release under `<id>-pr-7`, `helm status -n <id>-pr-7`
 * answers not found, and the ClusterRole stays. The rules must report HelmReleaseNamespaceGone on
 * the record, with the HelmLeftover of the ClusterRole linked to it and never saying the release
 * does not exist. The same with Helm's configmap driver (`HELM_DRIVER=configmap`): the record is a
 * ConfigMap, and the finding and its remedy name ConfigMaps. Clean: a release whose record is stored elsewhere while its namespace exists is
 * not reported, and its objects are not leftovers.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { findingKey } from '../../../src/rules/findings.js';
import { runRules } from '../../../src/rules/index.js';
import { helm4 } from '../support/widgets.js';
import { createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { apiChart, helm4Ok, moveRecord } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  scenarioContext,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

/** Helm's two Kubernetes storage drivers: where a release record is kept, and how helm is told. */
interface Driver {
  readonly kind: 'Secret' | 'ConfigMap';
  readonly resource: 'secrets' | 'configmaps';
  readonly env: Readonly<Record<string, string>>;
  readonly fixture: string;
}
const secretDriver: Driver = {
  kind: 'Secret',
  resource: 'secrets',
  env: {},
  fixture: 's28-helm-release-namespace-gone',
};
/** `HELM_DRIVER=configmap`: records are ConfigMaps of the same name and labels. */
const configMapDriver: Driver = {
  kind: 'ConfigMap',
  resource: 'configmaps',
  env: { HELM_DRIVER: 'configmap' },
  fixture: 'helm-configmap-driver-namespace-gone',
};

/** Installs chart `api` as `release` into `ns` with `driver` and moves its record to `storage`. */
async function installStoredElsewhere(
  api: ApiClient,
  release: string,
  ns: string,
  storage: string,
  chart: string,
  driver: Driver = secretDriver,
) {
  await helm4Ok(['install', release, chart, '-n', ns, '--create-namespace'], driver.env);
  await moveRecord(api, driver.resource, ns, storage, `sh.helm.release.v1.${release}.v1`);
}

test.each([
  ['Secret (the default driver)', secretDriver],
  ['ConfigMap (HELM_DRIVER=configmap)', configMapDriver],
])(
  'S28, record in a %s: the record stays in the storage namespace after the release namespace is deleted: HelmReleaseNamespaceGone',
  async (_, driver) => {
    const api = suiteApi();
    const id = uniqueName(driver.kind === 'Secret' ? 'rules-s28' : 'rules-s28-cm');
    const gitops = `${id}-gitops`;
    const target = `${id}-pr-7`;
    const release = `${id}-api`;
    const record = `sh.helm.release.v1.${release}.v1`;
    const clusterRole = `${target}-api-reader`;
    // What a user types for helm to see this release (a ConfigMap record: HELM_DRIVER=configmap).
    const helmCommand = driver.kind === 'Secret' ? 'helm ' : 'HELM_DRIVER=configmap helm ';
    const chart = apiChart();
    try {
      await createNamespace(api, gitops);
      await installStoredElsewhere(api, release, target, gitops, chart.path, driver);
      await deleteNamespaceAndWait(api, target);
      // What Helm says now: listed under the gone namespace, and not found there.
      const list = await helm4(['list', '-A', '-o', 'json'], driver.env);
      const listed = (
        JSON.parse(String(list.stdout)) as { name: string; namespace: string; status: string }[]
      ).find((r) => r.name === release);
      expect(listed).toMatchObject({ namespace: target, status: 'deployed' });
      const status = await helm4(['status', release, '-n', target], driver.env);
      expect(status.exitCode).not.toBe(0);
      expect(String(status.stderr)).toContain('release: not found');

      const inventory = await snapshot(api);
      recordFixture(driver.fixture, inventory, {
        scenario:
          'S28 Helm release records stored in another namespace for a namespace that no longer exists',
        names: { namespace: gitops, target, release, record, clusterRole },
        environmentNamespaces: [target],
        selection: { namespaces: [gitops, target], clusterObjects: [clusterRole] },
      });
      const mine = findingsAbout(findingsOf(inventory, [target]), [id]);
      const recordKey = findingKey('HelmReleaseNamespaceGone', {
        apiVersion: 'v1',
        kind: driver.kind,
        namespace: gitops,
        name: record,
      });
      expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.causedBy ?? []])).toEqual([
        ['HelmLeftover', 'ClusterRole', clusterRole, [recordKey]],
        ['HelmReleaseNamespaceGone', driver.kind, record, []],
      ]);
      const [leftover, found] = mine;
      expect(found!.message).toBe(
        `Helm release ${target}/${release} is recorded as deployed in namespace ${gitops}, but its namespace ${target} ` +
          `no longer exists: no uninstall ran, so 1 object of it stays, and \`${helmCommand}list -A\` still lists it while ` +
          `\`${helmCommand}status -n ${target}\` finds nothing`,
      );
      expect(found!.evidence).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`^${driver.kind} ${gitops}/${record}: labels .*name=${release}.*status=deployed`),
          ),
          expect.stringMatching(
            new RegExp(
              `^the decoded release's namespace ${target} differs from the ${driver.kind}'s namespace ${gitops} `,
            ),
          ),
          `namespace ${target} does not exist`,
          `left by the release (its meta.helm.sh annotations): clusterroles.rbac.authorization.k8s.io ${clusterRole}`,
        ]),
      );
      expect(found!.remediation.commands).toEqual(
        expect.arrayContaining([
          `kubectl delete clusterroles.rbac.authorization.k8s.io ${clusterRole}`,
          `kubectl delete ${driver.resource} -n ${gitops} -l owner=helm,name=${release}`,
        ]),
      );
      expect(found!.remediation.summary).toContain(`Do not run \`${helmCommand}uninstall -n ${gitops}\``);
      // Never "the release does not exist" while a record exists.
      for (const f of mine) expect([f.message, ...f.evidence].join('\n')).not.toContain('does not exist:');
      expect(leftover!.message).toContain(
        `whose namespace no longer exists (its record stays in namespace ${gitops})`,
      );

      // The remedy works: delete what the release left, then its record; nothing is reported any more.
      await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
      await api.request({
        method: 'DELETE',
        path: `/api/v1/namespaces/${gitops}/${driver.resource}`,
        query: { labelSelector: `owner=helm,name=${release}` },
      });
      expect(findingsAbout(findingsOf(await snapshot(api), [target]), [id])).toEqual([]);
    } finally {
      chart.remove();
      await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
      await deleteNamespaceAndWait(api, gitops);
      await deleteNamespaceAndWait(api, target);
    }
  },
  180_000,
);

test('clean: a release stored in another namespace while its own namespace exists is not reported', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s28-clean');
  const gitops = `${id}-gitops`;
  const target = `${id}-pr-8`;
  const release = `${id}-api`;
  const chart = apiChart();
  try {
    await createNamespace(api, gitops);
    await installStoredElsewhere(api, release, target, gitops, chart.path);
    const inventory = await snapshot(api);
    expect(
      inventory.helmRecords?.map((r) => [r.storage.namespace, r.release.namespace, r.release.name]),
    ).toEqual(expect.arrayContaining([[gitops, target, release]]));
    const findings = runRules(inventory, scenarioContext([target, gitops]));
    expect(findingsAbout(findings, [id])).toEqual([]);
  } finally {
    chart.remove();
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${target}-api-reader`);
    await deleteNamespaceAndWait(api, gitops);
    await deleteNamespaceAndWait(api, target);
  }
}, 180_000);
