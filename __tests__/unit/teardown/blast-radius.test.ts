import type { ApiClient } from '../../../src/cluster/api-client.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { renderBlastRadius } from '../../../src/report/plan-markdown.js';
import { blastRadiusOf } from '../../../src/teardown/blast-radius.js';
import { dryRunOf } from '../../../src/teardown/dry-run.js';
import { removalWords } from '../../../src/model/teardown-result.js';
import { deleteNamespaceContent } from '../../../src/teardown/namespace-content.js';
import { recordedRelease } from '../support/fixtures.js';
import { helm4Resources, served } from '../support/served-resources.js';
import { resourceIndex } from '../../../src/teardown/resource-index.js';

const resources = helm4Resources;

function plan(extraAppYaml = '') {
  const app = recordedRelease('helm4-app.json');
  return buildPlan({
    scope: { namespaces: ['fixture-helm4'], protectedMatched: [], unmatchedPatterns: [] },
    releaseRefs: [],
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      { ...app, manifest: extraAppYaml ? `${app.manifest}\n---\n${extraAppYaml}` : app.manifest },
    ],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf: (group, kind) => resources(group, kind)?.resource,
    namespacedOf: (group, kind) => resources(group, kind)?.namespaced,
    instancesOf: () => [],
  });
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  name: 'widgets.fixture4.kube-sweep.test',
};
const webhook = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  name: 'operator-fixture4.kube-sweep.test',
};

test('the blast radius names the namespaces, the releases and every cluster-scoped object, with who deletes it', () => {
  expect(blastRadiusOf(plan(), resources, 'auto')).toEqual({
    namespaces: ['fixture-helm4'],
    releases: [
      // The app goes first (stage 1), before its namespace can go (after the operator, stage 2).
      { release: 'fixture-helm4/app', method: 'helm' },
      { release: 'fixture-helm4/operator', method: 'namespace' },
    ],
    clusterScoped: [
      { ...crd, release: 'fixture-helm4/operator', by: 'kube-sweep' },
      { ...webhook, release: 'fixture-helm4/operator', by: 'kube-sweep' },
    ],
    otherNamespaces: [],
  });
  const helm = blastRadiusOf(plan(), resources, 'helm');
  expect(helm.releases.map((r) => r.method)).toEqual(['helm', 'helm']);
  expect(helm.clusterScoped.map((o) => o.by)).toEqual(['helm', 'helm']);
});

test('objects outside the namespaces in scope are named; kept ones are not', () => {
  const b = blastRadiusOf(
    plan(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: other-team\n---\n' +
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  namespace: other-team\n  annotations:\n    helm.sh/resource-policy: keep\n',
    ),
    resources,
    'auto',
  );
  expect(b.otherNamespaces).toEqual([
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'other-team',
      name: 'shared',
      release: 'fixture-helm4/app',
      by: 'helm',
    },
  ]);
});

test('a protected namespace is never emptied: no request is sent for it', async () => {
  const paths: string[] = [];
  const api = {
    request: async (r: { path: string }) => {
      paths.push(r.path);
      return {};
    },
  } as unknown as ApiClient;
  const collections = [{ group: '', version: 'v1', resource: 'configmaps', namespaced: true }];
  const { failures, refusals } = await deleteNamespaceContent(
    api,
    new Map([
      ['pr-1', collections],
      ['kube-extra', collections],
      ['vault', collections],
    ]),
    { patterns: [], labelled: ['vault'] },
  );
  expect(paths).toEqual(['/api/v1/namespaces/pr-1/configmaps']);
  expect(failures).toEqual(['kube-extra: protected, not emptied', 'vault: protected, not emptied']);
  expect(refusals).toEqual([]);
});

test('a configmap-driver release is marked helmDriver configmap in the blast radius and the dry run, and said with HELM_DRIVER=configmap', () => {
  const modes = recordedRelease('helm4-configmap-modes.json');
  const configMapPlan = buildPlan({
    scope: { namespaces: ['fixture-configmap'], protectedMatched: [], unmatchedPatterns: [] },
    releaseRefs: [],
    foundReleases: [modes, { ...recordedRelease('helm4-app.json'), namespace: 'fixture-configmap' }],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf: (group, kind) => resources(group, kind)?.resource,
    namespacedOf: (group, kind) => resources(group, kind)?.namespaced,
    instancesOf: () => [],
  });
  const helm = blastRadiusOf(configMapPlan, resources, 'helm');
  expect(helm.releases).toEqual([
    { release: 'fixture-configmap/app', method: 'helm' },
    { release: 'fixture-configmap/modes', method: 'helm', helmDriver: 'configmap' },
  ]);
  expect(helm.releases.map(removalWords)).toEqual(['helm uninstall', 'HELM_DRIVER=configmap helm uninstall']);
  expect(renderBlastRadius(helm).join('\n')).toContain(
    '`fixture-configmap/modes` (HELM\\_DRIVER=configmap helm uninstall)',
  );
  // Alone in its namespace (app's Widgets are not served here, so app would keep it on Helm).
  const alone = buildPlan({
    scope: { namespaces: ['fixture-configmap'], protectedMatched: [], unmatchedPatterns: [] },
    releaseRefs: [],
    foundReleases: [modes],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf: (group, kind) => resources(group, kind)?.resource,
    namespacedOf: (group, kind) => resources(group, kind)?.namespaced,
    instancesOf: () => [],
  });
  const withRbac = resourceIndex([
    served('', 'v1', 'configmaps', 'ConfigMap', true),
    served('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  ]);
  const auto = blastRadiusOf(alone, withRbac, 'auto');
  expect(auto.releases.map((r) => [r.release, removalWords(r), r.helmDriver])).toEqual([
    ['fixture-configmap/modes', 'with its namespace', 'configmap'],
  ]);
  const dry = dryRunOf(configMapPlan, resources, {
    failedGroupVersions: new Set(),
    instancesOf: () => [],
    uninstallMode: 'helm',
  });
  expect(dry.stages.flatMap((s) => s.removals).map((r) => [r.release, r.method, r.helmDriver])).toEqual([
    ['fixture-configmap/app', 'helm', undefined],
    ['fixture-configmap/modes', 'helm', 'configmap'],
  ]);
});
