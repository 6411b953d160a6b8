/**
 * S28: Helm release records stored in another namespace than their release, for a namespace that
 * no longer exists. Built for real with Helm 4, without Flux: chart `api` (a ConfigMap and
 * ClusterRole `<release namespace>-api-reader`) installed as `<id>-api` into `<id>-pr-7`; its record
 * Secret is then moved to `<id>-gitops`, where helm-controller would keep it, and `<id>-pr-7` is
 * deleted. `helm list -A` still lists the release under `<id>-pr-7`, `helm status -n <id>-pr-7`
 * answers not found, and the ClusterRole stays. The rules must report HelmReleaseNamespaceGone on
 * the record, with the HelmLeftover of the ClusterRole linked to it and never saying the release
 * does not exist. Clean: a release whose record is stored elsewhere while its namespace exists is
 * not reported, and its objects are not leftovers.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { findingKey } from '../../../src/rules/findings.js';
import { runRules } from '../../../src/rules/index.js';
import { helm4 } from '../support/widgets.js';
import { createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { helm4Ok, writeChart } from './support/helm.js';
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

const apiChart = () =>
  writeChart('api', {
    'templates/objects.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: api-config',
      'data:',
      '  port: "8080"',
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRole',
      'metadata:',
      '  name: {{ .Release.Namespace }}-api-reader',
      'rules:',
      '  - apiGroups: [""]',
      '    resources: [configmaps]',
      '    verbs: [get]',
      '',
    ].join('\n'),
  });

const secretPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/secrets/${name}`;

/** Moves Secret `name` from `from` to `to` (what helm-controller's storageNamespace does from the start). */
async function moveSecret(api: ApiClient, from: string, to: string, name: string): Promise<void> {
  const secret = await api.request<{ metadata: Record<string, unknown>; [k: string]: unknown }>({
    path: secretPath(from, name),
  });
  const metadata: Record<string, unknown> = { ...secret.metadata, namespace: to };
  for (const field of ['resourceVersion', 'uid', 'creationTimestamp', 'managedFields'])
    delete metadata[field];
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${to}/secrets`,
    body: { ...secret, metadata },
  });
  await api.request({ method: 'DELETE', path: secretPath(from, name) });
}

/** Installs chart `api` as `release` into `ns` and moves its record to `storage`. */
async function installStoredElsewhere(
  api: ApiClient,
  release: string,
  ns: string,
  storage: string,
  chart: string,
) {
  await helm4Ok(['install', release, chart, '-n', ns, '--create-namespace']);
  await moveSecret(api, ns, storage, `sh.helm.release.v1.${release}.v1`);
}

test('S28: the record stays in the storage namespace after the release namespace is deleted: HelmReleaseNamespaceGone', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s28');
  const gitops = `${id}-gitops`;
  const target = `${id}-pr-7`;
  const release = `${id}-api`;
  const secret = `sh.helm.release.v1.${release}.v1`;
  const clusterRole = `${target}-api-reader`;
  const chart = apiChart();
  try {
    await createNamespace(api, gitops);
    await installStoredElsewhere(api, release, target, gitops, chart.path);
    await deleteNamespaceAndWait(api, target);
    // What Helm says now: listed under the gone namespace, and not found there.
    const list = await helm4(['list', '-A', '-o', 'json']);
    const listed = (
      JSON.parse(String(list.stdout)) as { name: string; namespace: string; status: string }[]
    ).find((r) => r.name === release);
    expect(listed).toMatchObject({ namespace: target, status: 'deployed' });
    const status = await helm4(['status', release, '-n', target]);
    expect(status.exitCode).not.toBe(0);
    expect(String(status.stderr)).toContain('release: not found');

    const inventory = await snapshot(api);
    recordFixture('s28-helm-release-namespace-gone', inventory, {
      scenario: 'S28 Helm release records stored in another namespace for a namespace that no longer exists',
      names: { namespace: gitops, target, release, secret, clusterRole },
      environmentNamespaces: [target],
      selection: { namespaces: [gitops, target], clusterObjects: [clusterRole] },
    });
    const mine = findingsAbout(findingsOf(inventory, [target]), [id]);
    const recordKey = findingKey('HelmReleaseNamespaceGone', {
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: gitops,
      name: secret,
    });
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.causedBy ?? []])).toEqual([
      ['HelmLeftover', 'ClusterRole', clusterRole, [recordKey]],
      ['HelmReleaseNamespaceGone', 'Secret', secret, []],
    ]);
    const [leftover, record] = mine;
    expect(record!.message).toBe(
      `Helm release ${target}/${release} is recorded as deployed in namespace ${gitops}, but its namespace ${target} ` +
        'no longer exists: no uninstall ran, so 1 object of it stays, and `helm list -A` still lists it while ' +
        `\`helm status -n ${target}\` finds nothing`,
    );
    expect(record!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^Secret ${gitops}/${secret}: labels .*name=${release}.*status=deployed`),
        ),
        expect.stringMatching(
          new RegExp(
            `^the decoded release's namespace ${target} differs from the Secret's namespace ${gitops} `,
          ),
        ),
        `namespace ${target} does not exist`,
        `left by the release (its meta.helm.sh annotations): clusterroles.rbac.authorization.k8s.io ${clusterRole}`,
      ]),
    );
    expect(record!.remediation.commands).toEqual(
      expect.arrayContaining([
        `kubectl delete clusterroles.rbac.authorization.k8s.io ${clusterRole}`,
        `kubectl delete secrets -n ${gitops} -l owner=helm,name=${release}`,
      ]),
    );
    expect(record!.remediation.summary).toContain(`Do not run \`helm uninstall -n ${gitops}\``);
    // Never "the release does not exist" while a record exists.
    for (const f of mine) expect([f.message, ...f.evidence].join('\n')).not.toContain('does not exist:');
    expect(leftover!.message).toContain(
      `whose namespace no longer exists (its record stays in namespace ${gitops})`,
    );

    // The remedy works: delete what the release left, then its record; nothing is reported any more.
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await api.request({
      method: 'DELETE',
      path: `/api/v1/namespaces/${gitops}/secrets`,
      query: { labelSelector: `owner=helm,name=${release}` },
    });
    expect(findingsAbout(findingsOf(await snapshot(api), [target]), [id])).toEqual([]);
  } finally {
    chart.remove();
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await deleteNamespaceAndWait(api, gitops);
    await deleteNamespaceAndWait(api, target);
  }
}, 180_000);

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
