/**
 * Helm's configmap storage driver (`HELM_DRIVER=configmap`): the release records are ConfigMaps
 * named `sh.helm.release.v1.<release>.v<revision>` and labelled owner=helm, not Secrets. Built for
 * real with the pinned Helm 4: chart `api` (a ConfigMap and ClusterRole `<release
 * namespace>-api-reader`).
 * A healthy release of the configmap driver, stored with its objects, is not reported: its objects
 * are not "leftovers of a release that does not exist" (they were, before the rules read ConfigMap
 * records).
 * S28 with the configmap driver (a ConfigMap record stored in another namespace, whose release
 * namespace is gone) is built in s28-helm-release-namespace-gone.test.ts.
 */
import { runRules } from '../../../src/rules/index.js';
import { helm4 } from '../support/widgets.js';
import { deleteIfPresent, uniqueName } from '../support/cluster.js';
import { apiChart, helm4Ok } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  recordFixture,
  scenarioContext,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

/** Helm's configmap storage driver. */
const configMapDriver = { HELM_DRIVER: 'configmap' };

/** The release names Helm lists with the configmap driver, with their namespace and status. */
async function listedByHelm(release: string) {
  const list = await helm4(['list', '-A', '-o', 'json'], configMapDriver);
  expect(list.exitCode).toBe(0);
  return (JSON.parse(String(list.stdout)) as { name: string; namespace: string; status: string }[]).find(
    (r) => r.name === release,
  );
}

test('clean: a release of the configmap driver stored with its objects is not reported (its objects are not leftovers)', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-helm-cm-clean');
  const ns = `${id}-pr-1`;
  const release = `${id}-api`;
  const chart = apiChart();
  try {
    await helm4Ok(['install', release, chart.path, '-n', ns, '--create-namespace'], configMapDriver);
    // Stored as a ConfigMap, and no Secret: what the rules must read.
    expect(await listedByHelm(release)).toMatchObject({ namespace: ns, status: 'deployed' });
    const secrets = await api.request<{ items: unknown[] }>({
      path: `/api/v1/namespaces/${ns}/secrets`,
      query: { labelSelector: `owner=helm,name=${release}` },
    });
    expect(secrets.items).toEqual([]);
    const inventory = await snapshot(api);
    expect(
      inventory.objects
        .filter((o) => o.resource === 'configmaps' && o.namespace === ns && o.labels?.owner === 'helm')
        .map((o) => o.name),
    ).toEqual([`sh.helm.release.v1.${release}.v1`]);
    recordFixture('helm-configmap-driver-clean', inventory, {
      scenario: 'a deployed release of the configmap driver, stored with its objects',
      names: { namespace: ns, release, clusterRole: `${ns}-api-reader` },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [`${ns}-api-reader`] },
    });
    expect(findingsAbout(runRules(inventory, scenarioContext([ns])), [id])).toEqual([]);
  } finally {
    chart.remove();
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-api-reader`);
    await deleteNamespaceAndWait(api, ns);
  }
}, 180_000);
