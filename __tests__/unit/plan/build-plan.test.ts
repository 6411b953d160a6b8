import { buildPlan, type PlanInput } from '../../../src/plan/build-plan.js';
import { OrderingCycleError } from '../../../src/plan/stages.js';
import { unlistedKinds } from '../../../src/plan/release-reach.js';
import { recordedRelease } from '../support/fixtures.js';
import { inFaceTerms } from '../../../src/report/face.js';

const scope = (namespaces: string[]) => ({ namespaces, protectedMatched: [], unmatchedPatterns: [] });
// What discovery says of the kinds in the recorded charts (the webhook rule names the plural).
const resourceOf: PlanInput['resourceOf'] = (group, kind) =>
  ({ ConfigMap: 'configmaps', Deployment: 'deployments', Widget: 'widgets' })[kind] ??
  (group ? undefined : undefined);

function plan(overrides: Partial<PlanInput>) {
  return buildPlan({
    scope: scope(['fixture-helm4']),
    releaseRefs: [],
    foundReleases: [recordedRelease('helm4-operator.json'), recordedRelease('helm4-app.json')],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf,
    instancesOf: () => [],
    ...overrides,
  });
}

test('the app goes before the operator whose CRD and webhook it uses', () => {
  const p = plan({});
  expect(p.stages.map((s) => s.releases)).toEqual([['fixture-helm4/app'], ['fixture-helm4/operator']]);
  expect(
    p.stages[1]!.crdInstancesFirst.map((c) => [c.name, c.kind, c.plural, c.namespaced, c.versions]),
  ).toEqual([['widgets.fixture4.kube-sweep.test', 'Widget', 'widgets', true, ['v1']]]);
  expect(p.edges).toEqual([
    {
      before: 'fixture-helm4/app',
      after: 'fixture-helm4/operator',
      reason:
        'Widget objects pass webhook validate.fixture4.kube-sweep.test (ValidatingWebhookConfiguration operator-fixture4.kube-sweep.test); ' +
        'has Widget objects (CRD widgets.fixture4.kube-sweep.test from fixture-helm4/operator)',
    },
  ]);
  expect(p.namespacesToDelete).toEqual(['fixture-helm4']);
});

test('an order line that contradicts the dependencies is a cycle', () => {
  expect(() =>
    plan({ userOrder: [{ before: { name: 'operator' }, after: { name: 'app' }, line: 'operator -> app' }] }),
  ).toThrow(OrderingCycleError);
});

test('order lines that name nothing in scope are warnings', () => {
  const p = plan({
    userOrder: [{ before: { name: 'ghost' }, after: { name: 'app' }, line: 'ghost -> app' }],
  });
  expect(p.warnings).toEqual(["order 'ghost -> app': no release in scope matches 'ghost'"]);
});

test('the releases input picks releases; a missing one is a warning', () => {
  const p = plan({
    scope: scope([]),
    releaseRefs: [
      { namespace: 'fixture-helm4', name: 'app' },
      { namespace: 'fixture-helm4', name: 'nope' },
    ],
  });
  expect(p.stages.map((s) => s.releases)).toEqual([['fixture-helm4/app']]);
  expect(p.warnings).toEqual(['release fixture-helm4/nope was not found (already uninstalled?)']);
  expect(p.namespacesToDelete).toEqual([]);
});

test('releases outside the scoped namespaces are left alone', () => {
  const p = plan({ scope: scope(['some-other-ns']) });
  expect(p.releases).toEqual([]);
  expect(p.stages).toEqual([]);
});

test('CRDs from the chart crds/ folder count as shipped by the release', () => {
  const stack = recordedRelease('helm4-stack.json');
  const p = buildPlan({
    scope: scope(['fixture-stack']),
    releaseRefs: [],
    foundReleases: [stack],
    userOrder: [],
    deleteNamespaces: false,
    resourceOf,
    instancesOf: () => [],
  });
  expect(p.releases[0]!.crds.map((c) => [c.name, c.source])).toEqual([
    ['widgets.stack.kube-sweep.test', 'crds/'],
  ]);
  expect(p.namespacesToDelete).toEqual([]);
});

test('uninstalling an operator whose CRD has instances outside the scope is refused', () => {
  const p = plan({
    releaseRefs: [{ namespace: 'fixture-helm4', name: 'operator' }],
    deleteNamespaces: false,
    instancesOf: (group, kind) =>
      group === 'fixture4.kube-sweep.test' && kind === 'Widget'
        ? [
            { namespace: 'fixture-helm4', name: 'in-scope' },
            { namespace: 'other-team', name: 'w1' },
          ]
        : [],
  });
  expect(p.refusals).toEqual([
    'release fixture-helm4/operator ships CRD widgets.fixture4.kube-sweep.test in its templates, so uninstalling it deletes the CRD ' +
      'and with it 1 Widget object(s) outside the scope (other-team/w1); add their namespaces to the scope or tear them down first',
  ]);
  expect(plan({}).refusals).toEqual([]);
});

test('deleting a namespace that holds a release the releases input does not list is refused', () => {
  const p = plan({ releaseRefs: [{ namespace: 'fixture-helm4', name: 'app' }] });
  expect(p.refusals.map((r) => inFaceTerms('action', r))).toEqual([
    "namespace fixture-helm4 is to be deleted but holds release fixture-helm4/operator, which 'releases' does not list; " +
      "add it to 'releases', or set 'delete-namespaces: false'",
  ]);
  // The CLI names the flags (the words are data in the message, not a guess over its prose).
  expect(p.refusals.map((r) => inFaceTerms('cli', r))).toEqual([
    'namespace fixture-helm4 is to be deleted but holds release fixture-helm4/operator, which --releases does not list; ' +
      'add it to --releases, or set --delete-namespaces false',
  ]);
  expect(
    plan({ releaseRefs: [{ namespace: 'fixture-helm4', name: 'app' }], deleteNamespaces: false }).refusals,
  ).toEqual([]);
});

test("a release's object in a namespace outside the scope is named before the teardown", () => {
  const app = recordedRelease('helm4-app.json');
  const crossing = {
    ...app,
    manifest: `${app.manifest}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: other-team\n`,
  };
  const p = plan({ foundReleases: [crossing] });
  expect(p.warnings).toContain(
    'release fixture-helm4/app also has ConfigMap other-team/shared, in a namespace outside the scope: uninstalling the release deletes it',
  );
});

/** The recorded app release with `extra` YAML documents appended to its manifest. */
const appWith = (...extra: string[]) => {
  const app = recordedRelease('helm4-app.json');
  return { ...app, manifest: [app.manifest, ...extra].join('\n---\n') };
};

test('a Namespace object outside the scope in a manifest is refused: removing the release would delete it', () => {
  const p = plan({
    foundReleases: [appWith('apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shared-tools')],
  });
  expect(p.refusals).toEqual([
    expect.stringMatching(
      /^release fixture-helm4\/app renders Namespace shared-tools, which is outside the scope/,
    ),
  ]);
  // In the scope, or kept by Helm: no refusal.
  expect(
    plan({
      scope: scope(['fixture-helm4', 'shared-tools']),
      foundReleases: [appWith('apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shared-tools')],
    }).refusals,
  ).toEqual([]);
  const kept =
    'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shared-tools\n  annotations:\n    helm.sh/resource-policy: Keep';
  expect(plan({ foundReleases: [appWith(kept)] }).refusals).toEqual([]);
});

test('the kept-but-deleted-with-its-namespace warning is only for namespaced objects', () => {
  const role =
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: kept-role\n  annotations:\n    helm.sh/resource-policy: " KEEP "';
  const cm =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept-cm\n  annotations:\n    helm.sh/resource-policy: keep';
  const p = plan({
    foundReleases: [appWith(role, cm)],
    namespacedOf: (_group, kind) => kind !== 'ClusterRole',
  });
  expect(p.warnings.filter((w) => w.includes('keeps'))).toEqual([
    expect.stringContaining('keeps ConfigMap fixture-helm4/kept-cm'),
  ]);
});

test('a release whose manifest names an object in a protected namespace is refused', () => {
  const p = plan({
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      appWith('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n  namespace: kube-system\n'),
    ],
  });
  expect(p.refusals).toEqual([
    'release fixture-helm4/app has ConfigMap kube-system/planted in its manifest, in protected namespace kube-system ' +
      '(a control-plane namespace): removing the release would delete it; kube-sweep never deletes objects there. ' +
      'Remove the release by hand after moving that object out of its manifest',
  ]);
});

test('a delete hook whose objects go to a protected namespace is refused; an install hook there is not run by uninstall', () => {
  const app = recordedRelease('helm4-app.json');
  const hook = (events: string[], manifest: string) => ({
    name: 'cleanup',
    kind: 'Job',
    path: 'app/templates/cleanup.yaml',
    manifest,
    events,
    deletePolicies: [],
  });
  const job = 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: cleanup\n  namespace: kube-system\n';
  const p = plan({
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      { ...app, hooks: [hook(['pre-install'], job), hook(['pre-delete', 'post-delete'], job)] },
    ],
  });
  expect(p.refusals).toEqual([
    'release fixture-helm4/app has Job kube-system/cleanup in its pre-delete/post-delete hook app/templates/cleanup.yaml, ' +
      'in protected namespace kube-system (a control-plane namespace): removing the release would delete it; ' +
      'kube-sweep never deletes objects there. Remove the release by hand after moving that object out of its manifest',
  ]);
  const unreadable = plan({
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      { ...app, hooks: [hook(['post-delete'], 'a: [')] },
    ],
  });
  expect(unreadable.refusals).toEqual([
    expect.stringMatching(/delete hook \(app\/templates\/cleanup.yaml\) whose manifest does not parse/),
  ]);
  // The hook in the release's own namespace: no refusal.
  const own = job.replace('kube-system', 'fixture-helm4');
  expect(
    plan({
      foundReleases: [recordedRelease('helm4-operator.json'), { ...app, hooks: [hook(['pre-delete'], own)] }],
    }).refusals,
  ).toEqual([]);
});

test('a namespace labelled protected, or matched by protect, counts as protected; kept objects do not count', () => {
  const p = plan({
    scope: {
      ...scope(['fixture-helm4']),
      protection: { patterns: ['infra-*'], labelled: ['vault'] },
    },
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      appWith(
        'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: vault\n---\n' +
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: infra-db\n---\n' +
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  namespace: infra-db\n' +
          '  annotations:\n    helm.sh/resource-policy: keep\n',
      ),
    ],
  });
  expect(p.refusals.map((r) => inFaceTerms('action', r)).map((r) => r.slice(0, r.indexOf(':')))).toEqual([
    'release fixture-helm4/app has Secret vault/s in its manifest, in protected namespace vault (labelled kube-sweep.io/protected=true)',
    "release fixture-helm4/app has ConfigMap infra-db/c in its manifest, in protected namespace infra-db (input 'protect' matches it ('infra-*'))",
  ]);
});

test('a cluster-scoped kind is not in a namespace, whatever its metadata says', () => {
  const p = plan({
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      appWith(
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n  namespace: kube-system\n',
      ),
    ],
    namespacedOf: (_group, kind) => kind !== 'ClusterRole',
  });
  expect(p.refusals).toEqual([]);
});

test('a release in a protected namespace, named by the releases input, is refused', () => {
  const app = recordedRelease('helm4-app.json');
  const p = plan({
    scope: scope([]),
    releaseRefs: [{ namespace: 'kube-tools', name: 'app' }],
    foundReleases: [{ ...app, namespace: 'kube-tools' }],
  });
  expect(inFaceTerms('action', p.refusals[0]!)).toBe(
    'release kube-tools/app is in protected namespace kube-tools (every kube-* namespace is protected): ' +
      "kube-sweep never uninstalls releases there; take it out of 'releases'",
  );
  expect(inFaceTerms('cli', p.refusals[0]!)).toMatch(/; take it out of --releases$/);
  // Refused whether or not the release exists (a tester got `clean` for kube-system/foo).
  const missing = plan({ scope: scope([]), releaseRefs: [{ namespace: 'kube-system', name: 'foo' }] });
  expect(missing.refusals.map((r) => inFaceTerms('action', r))).toEqual([
    'release kube-system/foo is in protected namespace kube-system (a control-plane namespace): ' +
      "kube-sweep never uninstalls releases there; take it out of 'releases'",
  ]);
});

test('a release that renders a protected Namespace is refused, saying it is protected', () => {
  const p = plan({
    foundReleases: [
      recordedRelease('helm4-operator.json'),
      appWith('apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kube-extra\n'),
    ],
  });
  expect(p.refusals).toEqual([
    'release fixture-helm4/app renders Namespace kube-extra, which is protected (every kube-* namespace is protected): ' +
      'removing the release deletes that namespace and everything in it; kube-sweep never deletes it: annotate it ' +
      'helm.sh/resource-policy: keep or remove the release by hand',
  ]);
});

test("the scope's own refusals come first", () => {
  const p = plan({ scopeRefusals: ['scope refused'] });
  expect(p.refusals).toEqual(['scope refused']);
});

describe('objects outside the scope must be the release’s own (release-reach.ts, issue 21)', () => {
  const role = (name: string) =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}`;
  const namespacedOf: PlanInput['namespacedOf'] = (_group, kind) =>
    kind !== 'ClusterRole' && kind !== 'ClusterRoleBinding';
  const owned = {
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': 'app', 'meta.helm.sh/release-namespace': 'fixture-helm4' },
  };
  const live = (
    objects: Record<string, { labels?: Record<string, string>; annotations?: Record<string, string> }>,
  ) =>
    ((group: string, kind: string, namespace: string | undefined, name: string) =>
      objects[`${group}/${kind}/${namespace ?? ''}/${name}`]) as PlanInput['liveObject'];

  test('a forged record naming ClusterRole cluster-admin is refused; the release’s own ClusterRole is not', () => {
    const p = plan({
      foundReleases: [
        recordedRelease('helm4-operator.json'),
        appWith(role('cluster-admin'), role('app-reader')),
      ],
      namespacedOf,
      liveObject: live({
        'rbac.authorization.k8s.io/ClusterRole//cluster-admin': {
          labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
        },
        'rbac.authorization.k8s.io/ClusterRole//app-reader': owned,
      }),
    });
    expect(p.refusals).toEqual([
      'release fixture-helm4/app names ClusterRole cluster-admin in its manifest, outside the scope, but that object is ' +
        "not the release's (it has no meta.helm.sh/release-name and release-namespace annotations): removing the release " +
        'would delete it. The release record may be forged or the object adopted by hand; check the record, then remove ' +
        'the release by hand',
    ]);
  });

  test('another release’s object, a namespaced one in another team’s namespace, and a missing label are refused', () => {
    const other = { ...owned, annotations: { ...owned.annotations, 'meta.helm.sh/release-name': 'other' } };
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: marker\n  namespace: infra';
    const p = plan({
      foundReleases: [
        recordedRelease('helm4-operator.json'),
        appWith(role('shared'), cm, role('unlabelled')),
      ],
      namespacedOf,
      liveObject: live({
        'rbac.authorization.k8s.io/ClusterRole//shared': other,
        '/ConfigMap/infra/marker': {},
        'rbac.authorization.k8s.io/ClusterRole//unlabelled': { annotations: owned.annotations },
      }),
    });
    expect(p.refusals.map((r) => r.slice(0, r.indexOf(': removing')))).toEqual([
      'release fixture-helm4/app names ClusterRole shared in its manifest, outside the scope, but that object is not ' +
        'the release\'s (its meta.helm.sh annotations name release "fixture-helm4/other")',
      'release fixture-helm4/app names ConfigMap infra/marker in its manifest, outside the scope, but that object is not ' +
        "the release's (it has no meta.helm.sh/release-name and release-namespace annotations)",
      'release fixture-helm4/app names ClusterRole unlabelled in its manifest, outside the scope, but that object is not ' +
        "the release's (it has no app.kubernetes.io/managed-by: Helm label)",
    ]);
  });

  test('objects in the scope, objects that do not exist and kept objects are not checked', () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray';
    const kept = `${role('kept')}\n  annotations:\n    helm.sh/resource-policy: keep`;
    const p = plan({
      foundReleases: [recordedRelease('helm4-operator.json'), appWith(cm, role('gone'), kept)],
      namespacedOf,
      liveObject: live({
        '/ConfigMap/fixture-helm4/stray': {},
        'rbac.authorization.k8s.io/ClusterRole//kept': {},
      }),
    });
    expect(p.refusals).toEqual([]);
  });

  test('an object outside the scope of a kind the snapshot could not list is refused: whose it is is unknown', () => {
    const gaps = [
      { resource: 'clusterroles.rbac.authorization.k8s.io/v1', reason: 'forbidden' },
      { resource: 'metrics.k8s.io/v1beta1', reason: 'discovery' },
    ];
    const unlistedKind = unlistedKinds(gaps, (group, kind) =>
      group === 'rbac.authorization.k8s.io' && kind === 'ClusterRole'
        ? { resource: 'clusterroles' }
        : undefined,
    );
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gone\n  namespace: infra';
    const p = plan({
      foundReleases: [recordedRelease('helm4-operator.json'), appWith(role('unseen'), cm)],
      namespacedOf,
      liveObject: live({}),
      unlistedKind,
    });
    expect(p.refusals).toEqual([
      'release fixture-helm4/app names ClusterRole unseen in its manifest, outside the scope, but that object is not ' +
        "the release's (kube-sweep could not list ClusterRole objects (a coverage gap: grant list on them, rbac/), so whose " +
        'it is is unknown): removing the release would delete it. The release record may be forged or the object adopted ' +
        'by hand; check the record, then remove the release by hand',
    ]);
    expect(
      plan({ foundReleases: [appWith(role('unseen'))], namespacedOf, liveObject: live({}) }).refusals,
    ).toEqual([]);
  });

  test('a delete hook that creates a cluster-scoped object or one outside the scope is refused', () => {
    const app = recordedRelease('helm4-app.json');
    const hook = (manifest: string) => ({
      name: 'escalate',
      kind: 'ClusterRoleBinding',
      path: 'app/templates/hook.yaml',
      manifest,
      events: ['pre-delete'],
      deletePolicies: [],
    });
    const binding =
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: tenant-escalation\n' +
      'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}';
    const elsewhere = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: note\n  namespace: infra';
    const unserved = 'apiVersion: example.test/v1\nkind: Gadget\nmetadata:\n  name: g';
    const own = 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: cleanup';
    const p = plan({
      foundReleases: [
        recordedRelease('helm4-operator.json'),
        { ...app, hooks: [hook([binding, elsewhere, unserved, own].join('\n---\n'))] },
      ],
      namespacedOf: (group, kind) => (group === 'example.test' ? undefined : namespacedOf(group, kind)),
    });
    expect(p.refusals).toEqual([
      'release fixture-helm4/app has a pre-delete hook (app/templates/hook.yaml) that creates ClusterRoleBinding ' +
        "tenant-escalation, a cluster-scoped object: helm uninstall would create it with kube-sweep's identity. " +
        'Check the hook, then remove the release by hand',
      expect.stringContaining('creates ConfigMap infra/note, outside the scope:'),
      expect.stringContaining('creates Gadget g, of a kind the API server does not serve:'),
    ]);
  });

  test('an earlier stored revision is checked as the current one is: helm uninstall acts on it when it cannot decode a later one', () => {
    const app = recordedRelease('helm4-app.json');
    const current = { ...app, revision: 2, storage: { ...app.storage, name: 'sh.helm.release.v1.app.v2' } };
    const hooky = {
      ...appWith(role('cluster-admin')),
      hooks: [
        {
          name: 'bind',
          kind: 'ClusterRoleBinding',
          path: 'app/templates/hook.yaml',
          manifest:
            'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: bind',
          events: ['post-delete'],
          deletePolicies: [],
        },
      ],
    };
    const input = {
      foundReleases: [recordedRelease('helm4-operator.json'), current],
      namespacedOf,
      liveObject: live({ 'rbac.authorization.k8s.io/ClusterRole//cluster-admin': {} }),
    };
    expect(plan(input).refusals).toEqual([]);
    const p = plan({ ...input, earlierRevisions: [hooky] });
    expect(p.refusals.map((r) => r.slice(0, r.indexOf(':')))).toEqual([
      'release fixture-helm4/app (stored revision 1) has a post-delete hook (app/templates/hook.yaml) that creates ClusterRoleBinding bind, a cluster-scoped object',
      "release fixture-helm4/app (stored revision 1) names ClusterRole cluster-admin in its manifest, outside the scope, but that object is not the release's (it has no meta.helm.sh/release-name and release-namespace annotations)",
    ]);
    // The plan still acts on the current revision.
    expect(p.releases.map((r) => [r.key, r.release.revision])).toEqual([
      ['fixture-helm4/app', 2],
      ['fixture-helm4/operator', 1],
    ]);
    // A revision of another release, or of the same name in the other driver, is not this release's.
    const configMap = {
      ...hooky,
      storage: { kind: 'ConfigMap' as const, name: 'sh.helm.release.v1.app.v1' },
    };
    expect(plan({ ...input, earlierRevisions: [configMap, { ...hooky, name: 'other' }] }).refusals).toEqual(
      [],
    );
  });
});

test('a release with a refused record is refused when the teardown would take it, naming the record', () => {
  const refused = (current: boolean) => ({
    namespace: 'fixture-helm4',
    name: 'web',
    kind: 'Secret' as const,
    current,
    message: 'release web in namespace fixture-helm4 has release Secrets that kube-sweep refused (…)',
  });
  expect(plan({ refusedReleases: [refused(true)] }).refusals).toEqual([refused(true).message]);
  // Only refused records, not named: no helm command ever runs for it; the teardown goes on.
  expect(plan({ refusedReleases: [refused(false)] }).refusals).toEqual([]);
  // Named by the releases input: refused (and not said to be missing), whether or not it has a current revision.
  for (const current of [true, false]) {
    const named = plan({
      scope: scope([]),
      releaseRefs: [{ namespace: 'fixture-helm4', name: 'web' }],
      refusedReleases: [refused(current)],
    });
    expect(named.refusals).toEqual([refused(current).message]);
    expect(named.warnings).toEqual([]);
  }
});

describe('instances first only for CRDs the release owns (crd-ownership.ts)', () => {
  const stack = recordedRelease('helm4-stack.json');
  const withCrdFile = (yaml: string) => ({ ...stack, crdFiles: [{ name: 'crds/ingress.yaml', yaml }] });
  const ingressCrd =
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ingresses.networking.k8s.io\n' +
    'spec:\n  group: networking.k8s.io\n  scope: Namespaced\n  names: {plural: ingresses, kind: Ingress}\n' +
    '  versions: [{name: v1, served: true, storage: true}]\n';
  const stackPlan = (overrides: Partial<PlanInput>) =>
    plan({ scope: scope(['fixture-stack']), foundReleases: [stack], deleteNamespaces: false, ...overrides });
  const widgets = { group: 'stack.kube-sweep.test', plural: 'widgets', kind: 'Widget', scope: 'Namespaced' };

  test('a crds/ file declaring a built-in kind is refused, naming the file, even with no evidence; no stage deletes Ingresses', () => {
    const p = stackPlan({ foundReleases: [withCrdFile(ingressCrd)] });
    expect(p.refusals).toEqual([
      'release fixture-stack/stack declares CustomResourceDefinition ingresses.networking.k8s.io in its chart file crds/ingress.yaml, ' +
        `but "networking.k8s.io" is a group the API server serves itself, so its kinds are Kubernetes' own: kube-sweep deletes ` +
        "the custom resources of a CRD first only when the CRD is the release's. The record may be forged: check it, then " +
        'remove the release by hand',
    ]);
    expect(p.stages.flatMap((s) => s.crdInstancesFirst)).toEqual([]);
  });

  test('the release’s own crds/ CRD keeps its instances-first step; another release’s is refused; a missing one is skipped', () => {
    const evidence = (live: Record<string, unknown> | undefined, served = true) => ({
      crdEvidence: { liveCrd: () => live, served: () => served },
    });
    const first = (p: ReturnType<typeof plan>) =>
      p.stages.flatMap((s) => s.crdInstancesFirst.map((c) => c.name));
    const own = stackPlan(evidence(widgets));
    expect([own.refusals, first(own)]).toEqual([[], ['widgets.stack.kube-sweep.test']]);
    const foreign = stackPlan(
      evidence({
        ...widgets,
        annotations: { 'meta.helm.sh/release-name': 'b', 'meta.helm.sh/release-namespace': 'team-b' },
      }),
    );
    expect(foreign.refusals).toEqual([
      expect.stringContaining(
        'in its chart file crds/widgets.yaml, but the one in the cluster is not the release\'s (its meta.helm.sh annotations name release "team-b/b")',
      ),
    ]);
    expect(first(foreign)).toEqual([]);
    const missing = stackPlan(evidence(undefined, false));
    expect([missing.refusals, first(missing)]).toEqual([[], []]);
  });
});

test('a release with records in both drivers is refused when the teardown would take it, not otherwise', () => {
  const conflict = {
    namespace: 'fixture-helm4',
    name: 'web',
    message: 'release web has records of both drivers',
  };
  expect(plan({ storageConflicts: [conflict] }).refusals).toEqual([
    'release web has records of both drivers',
  ]);
  // Named by the releases input, its namespace out of scope: refused too (and not said to be missing).
  const named = plan({
    scope: scope([]),
    releaseRefs: [{ namespace: 'fixture-helm4', name: 'web' }],
    storageConflicts: [conflict],
  });
  expect(named.refusals).toEqual(['release web has records of both drivers']);
  expect(named.warnings).toEqual([]);
  // Only another release of that namespace is named, and the namespace is out of scope: not in the teardown.
  expect(
    plan({
      scope: scope([]),
      releaseRefs: [{ namespace: 'fixture-helm4', name: 'app' }],
      storageConflicts: [conflict],
    }).refusals,
  ).toEqual([]);
});
