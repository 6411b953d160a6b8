import {
  crdInstancesDecision,
  foreignOwnerOf,
  type CrdEvidence,
  type LiveCrd,
} from '../../../src/plan/crd-ownership.js';
import { releaseFacts, type ProvidedCrd } from '../../../src/plan/release-facts.js';
import { isBuiltInGroup } from '../../../src/kube/built-in-groups.js';
import { recordedRelease } from '../support/fixtures.js';

// Recorded: stack ships widgets.stack.kube-sweep.test in crds/; operator ships widgets.fixture4.kube-sweep.test in its templates.
const stack = releaseFacts(recordedRelease('helm4-stack.json'));
const operator = releaseFacts(recordedRelease('helm4-operator.json'));
const stackCrd = stack.crds[0]!;
const operatorCrd = operator.crds[0]!;

/** The live CRD as the API server holds what `crd` declares, with `metadata`. */
const liveOf = (crd: ProvidedCrd, metadata: Partial<LiveCrd> = {}): LiveCrd => ({
  group: crd.group,
  plural: crd.plural,
  kind: crd.kind,
  scope: crd.namespaced ? 'Namespaced' : 'Cluster',
  ...metadata,
});
const helmMarks = (name: string, namespace: string): Partial<LiveCrd> => ({
  labels: { 'app.kubernetes.io/managed-by': 'Helm' },
  annotations: { 'meta.helm.sh/release-name': name, 'meta.helm.sh/release-namespace': namespace },
});
const evidence = (live: LiveCrd | undefined, served = live !== undefined): CrdEvidence => ({
  liveCrd: () => live,
  served: () => served,
});
const refusalOf = (crd: ProvidedCrd, why: string, release = 'fixture-stack/stack') =>
  `release ${release} declares CustomResourceDefinition ${crd.name} in its ${crd.source === 'crds/' ? `chart file ${crd.file}` : 'templates'}, ` +
  `but ${why}: kube-sweep deletes the custom resources of a CRD first only when the CRD is the release's. ` +
  'The record may be forged: check it, then remove the release by hand';

test('a crds/ CRD with no mark at all, as Helm creates it, is the release’s', () => {
  expect(stackCrd.file).toBe('crds/widgets.yaml');
  expect(crdInstancesDecision(stack, stackCrd, evidence(liveOf(stackCrd)))).toEqual({ use: true });
  expect(
    crdInstancesDecision(stack, stackCrd, evidence(liveOf(stackCrd, helmMarks('stack', 'fixture-stack')))),
  ).toEqual({ use: true });
});

test('a templated CRD carrying this release’s Helm marks is the release’s; without them it is refused', () => {
  expect(
    crdInstancesDecision(
      operator,
      operatorCrd,
      evidence(liveOf(operatorCrd, helmMarks('operator', 'fixture-helm4'))),
    ),
  ).toEqual({ use: true });
  expect(crdInstancesDecision(operator, operatorCrd, evidence(liveOf(operatorCrd)))).toEqual({
    use: false,
    refusal: refusalOf(
      operatorCrd,
      "the one in the cluster is not the release's (it has no meta.helm.sh/release-name and release-namespace annotations)",
      'fixture-helm4/operator',
    ),
  });
});

test.each([
  [
    'another release’s Helm annotations',
    helmMarks('billing', 'team-b'),
    'its meta.helm.sh annotations name release "team-b/billing"',
  ],
  [
    'ownerReferences',
    { ownerReferences: [{ kind: 'Operator', name: 'team-b' }] },
    'it has ownerReferences ("Operator team-b")',
  ],
  [
    'OLM labels',
    { labels: { 'operators.coreos.com/widgets.team-b': '', 'olm.managed': 'true' } },
    'it carries OLM labels ("operators.coreos.com/widgets.team-b", "olm.managed")',
  ],
])('a crds/ CRD in the cluster with %s is another owner’s: refused', (_what, marks, why) => {
  expect(crdInstancesDecision(stack, stackCrd, evidence(liveOf(stackCrd, marks)))).toEqual({
    use: false,
    refusal: refusalOf(stackCrd, `the one in the cluster is not the release's (${why})`),
  });
});

test('a CRD of a built-in group is refused, whatever the cluster holds', () => {
  const ingresses: ProvidedCrd = {
    ...stackCrd,
    name: 'ingresses.networking.k8s.io',
    group: 'networking.k8s.io',
    kind: 'Ingress',
    plural: 'ingresses',
  };
  const live = liveOf(ingresses, helmMarks('stack', 'fixture-stack'));
  expect(crdInstancesDecision(stack, ingresses, evidence(live))).toEqual({
    use: false,
    refusal: refusalOf(
      ingresses,
      `"networking.k8s.io" is a group the API server serves itself, so its kinds are Kubernetes' own`,
    ),
  });
});

test('a group an APIService of the cluster marks as built-in (automanaged onstart), or an aggregated API serves, is refused', () => {
  const live = liveOf(stackCrd);
  const builtIn = { ...evidence(live), builtInGroups: new Set([stackCrd.group]) };
  expect(crdInstancesDecision(stack, stackCrd, builtIn).refusal).toContain(
    'is a group the API server serves itself',
  );
  const aggregated = { ...evidence(live), aggregatedGroups: new Set([stackCrd.group]) };
  expect(crdInstancesDecision(stack, stackCrd, aggregated).refusal).toContain(
    'group stack.kube-sweep.test is served by an aggregated API (an APIService with a service), not by a CRD',
  );
});

test('no CRD of that name: skipped when the kind is not served (nothing to delete), refused when it is', () => {
  expect(crdInstancesDecision(stack, stackCrd, evidence(undefined, false))).toEqual({ use: false });
  expect(crdInstancesDecision(stack, stackCrd, evidence(undefined, true)).refusal).toBe(
    refusalOf(
      stackCrd,
      'no CustomResourceDefinition of that name exists while the API server serves kind Widget of group stack.kube-sweep.test',
    ),
  );
  expect(
    crdInstancesDecision(stack, stackCrd, { ...evidence(undefined, true), crdsUnlisted: true }).refusal,
  ).toContain('the CustomResourceDefinitions could not all be listed, so whose it is is unknown');
});

test.each([
  ['group', { group: 'other.kube-sweep.test' }],
  ['plural', { plural: 'gadgets' }],
  ['kind', { kind: 'Gadget' }],
  ['scope', { scope: 'Cluster' }],
])('a CRD in the cluster that declares another %s than the file is refused', (_what, change) => {
  expect(crdInstancesDecision(stack, stackCrd, evidence({ ...liveOf(stackCrd), ...change })).refusal).toBe(
    refusalOf(
      stackCrd,
      'the CustomResourceDefinition of that name in the cluster declares another group, plural, kind or scope',
    ),
  );
});

test('foreignOwnerOf: this release’s own annotations are no foreign mark', () => {
  expect(
    foreignOwnerOf(liveOf(stackCrd, helmMarks('stack', 'fixture-stack')), stack.release),
  ).toBeUndefined();
  expect(foreignOwnerOf(liveOf(stackCrd, helmMarks('stack', 'elsewhere')), stack.release)).toBe(
    'its meta.helm.sh annotations name release "elsewhere/stack"',
  );
});

test.each([
  ['', true],
  ['apps', true],
  ['networking.k8s.io', true],
  ['rbac.authorization.k8s.io', true],
  ['anything-without-a-dot', true],
  ['gateway.networking.k8s.io', false],
  ['snapshot.storage.k8s.io', false],
  ['stack.kube-sweep.test', false],
])('isBuiltInGroup(%j) is %s', (group, builtIn) => {
  expect(isBuiltInGroup(group)).toBe(builtIn);
});
