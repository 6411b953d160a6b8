/**
 * A release whose namespace was deleted instead of uninstalling it: its release Secret goes with
 * the namespace, while what it rendered into another namespace and cluster-scoped objects stay,
 * carrying the annotations of a release that no longer exists (HelmLeftover, release-gone).
 * And the other way round: a release installed and uninstalled properly (Helm 4 and Helm 3)
 * leaves nothing the Helm rules report.
 */
import { waitFor } from '../../../src/util/wait.js';
import { clusterEnv, createNamespace, deleteIfPresent, helm, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import { helm4Ok, helmFindings, summarize, writeChart } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('a release whose namespace was deleted leaves its objects elsewhere: HelmLeftover (release-gone)', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-gone');
  const ns = `${id}-app`;
  const shared = `${id}-shared`;
  const role = `${id}-reader`;
  const leftover = writeChart('leftover', {
    'templates/resources.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: { name: local }',
      'data: { a: b }',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      `metadata: { name: ${id}-settings, namespace: ${shared} }`,
      'data: { a: b }',
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRole',
      `metadata: { name: ${role} }`,
      'rules: [{ apiGroups: [""], resources: [configmaps], verbs: [get] }]',
      '',
    ].join('\n'),
  });
  try {
    await createNamespace(api, shared);
    await helm4Ok(['install', 'web', leftover.path, '-n', ns, '--create-namespace']);
    await deleteNamespaceAndWait(api, ns);

    const inventory = await snapshot(api);
    recordFixture('helm-release-gone', inventory, {
      scenario: 'Release namespace deleted instead of helm uninstall: objects elsewhere survive',
      names: { namespace: ns, sharedNamespace: shared, release: 'web', clusterRole: role },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns, shared], clusterObjects: [role] },
    });
    const mine = helmFindings(findingsAbout(findingsOf(inventory, [ns]), [id]));
    expect(summarize(mine)).toEqual([
      ['HelmLeftover', 'warning', 'ClusterRole', `/${role}`, 'environment'],
      ['HelmLeftover', 'warning', 'ConfigMap', `${shared}/${id}-settings`, 'environment'],
    ]);
    for (const f of mine) {
      expect(f.message).toMatch(
        new RegExp(
          `^Helm leftover \\(release-gone\\): .* carries the annotations of Helm release ${ns}/web, which no longer exists$`,
        ),
      );
      expect(f.evidence).toEqual(
        expect.arrayContaining([
          'subtype: release-gone',
          'meta.helm.sh/release-name: web',
          `meta.helm.sh/release-namespace: ${ns}`,
          `no release Secret or ConfigMap sh.helm.release.v1.web.v* (owner=helm) in namespace ${ns}: the release does not exist`,
        ]),
      );
    }
    expect(mine[0]!.remediation.commands.slice(-2)).toEqual([
      '# not needed any more:',
      `kubectl delete clusterroles.rbac.authorization.k8s.io ${role}`,
    ]);
  } finally {
    leftover.remove();
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
    await deleteNamespaceAndWait(api, shared);
    await deleteNamespaceAndWait(api, ns);
  }
});

test.each(['helm4', 'helm3'] as const)(
  'a release installed and uninstalled properly (%s) leaves nothing the Helm rules report',
  async (binary) => {
    const api = suiteApi();
    const ns = uniqueName(`rules-helm-clean-${binary}`);
    const run = (args: string[]) => (binary === 'helm4' ? helm4(args) : helm(clusterEnv().helm3, args));
    try {
      expect((await run(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(
        0,
      );
      expect((await run(['uninstall', 'web', '-n', ns])).exitCode).toBe(0);
      // A proper uninstall ends when the garbage collector has removed what the Deployment
      // made (ReplicaSet, Pods); until then a Pod briefly names an owner that is gone.
      await waitFor(
        async () => {
          const pods = await api.request<{ items: unknown[] }>({ path: `/api/v1/namespaces/${ns}/pods` });
          const sets = await api.request<{ items: unknown[] }>({
            path: `/apis/apps/v1/namespaces/${ns}/replicasets`,
          });
          const done = pods.items.length === 0 && sets.items.length === 0;
          return { done, value: done };
        },
        { timeoutMs: 60_000, description: 'the garbage collector to remove the ReplicaSet and Pods' },
      );
      const findings = findingsOf(await snapshot(api), [ns]);
      expect(summarize(findingsAbout(findings, [ns]))).toEqual([]);
    } finally {
      await deleteNamespaceAndWait(api, ns);
    }
  },
);
