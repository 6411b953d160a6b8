import { buildPlan } from '../../../src/plan/build-plan.js';
import {
  describeWaves,
  gitopsWaves,
  managerOf,
  type GitOpsInstance,
} from '../../../src/plan/gitops-order.js';
import { recordedRelease } from '../support/fixtures.js';

const argo = (namespace: string, name: string, managedBy?: string): GitOpsInstance => ({
  group: 'argoproj.io',
  kind: 'Application',
  namespace,
  name,
  ...(managedBy
    ? {
        annotations: {
          'argocd.argoproj.io/tracking-id': `${managedBy}:argoproj.io/Application:${namespace}/${name}`,
        },
      }
    : {}),
});
const names = (waves: readonly (readonly GitOpsInstance[])[]) =>
  waves.map((w) => w.map((i) => `${i.kind} ${i.namespace}/${i.name}`));

test('managerOf reads Argo CD tracking ids and Flux labels, never the Helm-shared app.kubernetes.io/instance label', () => {
  expect(managerOf(argo('gitops', 'shop', 'bootstrap'))).toEqual({
    group: 'argoproj.io',
    kind: 'Application',
    name: 'bootstrap',
  });
  expect(managerOf(argo('team-a', 'shop', 'team-a_root'))).toEqual({
    group: 'argoproj.io',
    kind: 'Application',
    namespace: 'team-a',
    name: 'root',
  });
  expect(
    managerOf({
      labels: {
        'kustomize.toolkit.fluxcd.io/name': 'flux-system',
        'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
      },
    }),
  ).toEqual({
    group: 'kustomize.toolkit.fluxcd.io',
    kind: 'Kustomization',
    namespace: 'flux-system',
    name: 'flux-system',
  });
  expect(
    managerOf({
      labels: { 'helm.toolkit.fluxcd.io/name': 'podinfo', 'helm.toolkit.fluxcd.io/namespace': 'apps' },
    }),
  ).toEqual({ group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease', namespace: 'apps', name: 'podinfo' });
  expect(managerOf({ labels: { 'app.kubernetes.io/instance': 'bootstrap' } })).toBeUndefined();
  expect(managerOf({ labels: { 'kustomize.toolkit.fluxcd.io/name': 'only-name' } })).toBeUndefined();
});

test('an app of apps goes after its children, and its own parent after it: leaf applications first', () => {
  const waves = gitopsWaves([
    argo('gitops', 'bootstrap', 'bootstrap'), // self-managed: not its own child
    argo('gitops', 'infra', 'bootstrap'),
    argo('gitops', 'shop', 'bootstrap'),
    argo('gitops', 'ingress', 'infra'),
    argo('gitops', 'standalone'),
  ]);
  expect(names(waves)).toEqual([
    ['Application gitops/ingress', 'Application gitops/shop', 'Application gitops/standalone'],
    ['Application gitops/infra'],
    ['Application gitops/bootstrap'],
  ]);
  expect(describeWaves(waves.map((w) => w.map((i) => ({ ...i, namespace: i.namespace! }))))[2]).toBe(
    'GitOps applications, wave 3 of 3 (leaf applications first): Application gitops/bootstrap',
  );
});

test('Flux: the Kustomizations a Kustomization applied go first; a parent of another namespace is matched by its namespace', () => {
  const kustomization = (namespace: string, name: string, parent?: [string, string]): GitOpsInstance => ({
    group: 'kustomize.toolkit.fluxcd.io',
    kind: 'Kustomization',
    namespace,
    name,
    ...(parent
      ? {
          labels: {
            'kustomize.toolkit.fluxcd.io/namespace': parent[0],
            'kustomize.toolkit.fluxcd.io/name': parent[1],
          },
        }
      : {}),
  });
  const waves = gitopsWaves([
    kustomization('flux-system', 'flux-system'),
    kustomization('flux-system', 'apps', ['flux-system', 'flux-system']),
    kustomization('other', 'apps', ['nowhere', 'flux-system']),
  ]);
  expect(names(waves)).toEqual([
    ['Kustomization flux-system/apps', 'Kustomization other/apps'],
    ['Kustomization flux-system/flux-system'],
  ]);
});

test('applications that manage each other (a cycle) go together in one last wave; none give no wave', () => {
  const waves = gitopsWaves([argo('g', 'a', 'b'), argo('g', 'b', 'a'), argo('g', 'leaf', 'a')]);
  expect(names(waves)).toEqual([['Application g/leaf'], ['Application g/a', 'Application g/b']]);
  expect(gitopsWaves([])).toEqual([]);
});

const applicationCrd = [
  'apiVersion: apiextensions.k8s.io/v1',
  'kind: CustomResourceDefinition',
  'metadata:',
  '  name: applications.argoproj.io',
  'spec:',
  '  group: argoproj.io',
  '  scope: Namespaced',
  '  names: { kind: Application, plural: applications }',
  '  versions: [{ name: v1alpha1, served: true, storage: true }]',
  '',
].join('\n');

test('plan: the stage of the release that ships the Application CRD deletes its applications in waves (none when one wave)', () => {
  const operator = recordedRelease('helm4-operator.json');
  const argocd = {
    ...operator,
    name: 'argocd',
    crdFiles: [{ name: 'crds/application.yaml', yaml: applicationCrd }],
  };
  const apps = [
    argo('fixture-helm4', 'bootstrap'),
    argo('fixture-helm4', 'shop', 'bootstrap'),
    argo('other-team', 'elsewhere', 'bootstrap'),
  ];
  const plan = (instances: GitOpsInstance[]) =>
    buildPlan({
      scope: { namespaces: ['fixture-helm4'], protectedMatched: [], unmatchedPatterns: [] },
      releaseRefs: [],
      foundReleases: [argocd],
      userOrder: [],
      deleteNamespaces: true,
      resourceOf: () => undefined,
      instancesOf: (group, kind) => (group === 'argoproj.io' && kind === 'Application' ? instances : []),
    });
  const [stage] = plan(apps).stages;
  expect(stage!.crdInstancesFirst.map((c) => c.name)).toContain('applications.argoproj.io');
  // Out of scope (other-team) is not deleted by this teardown.
  expect(stage!.gitopsWaves).toEqual([
    [{ group: 'argoproj.io', kind: 'Application', namespace: 'fixture-helm4', name: 'shop' }],
    [{ group: 'argoproj.io', kind: 'Application', namespace: 'fixture-helm4', name: 'bootstrap' }],
  ]);
  expect(plan([argo('fixture-helm4', 'a'), argo('fixture-helm4', 'b')]).stages[0]!.gitopsWaves).toEqual([]);
});
