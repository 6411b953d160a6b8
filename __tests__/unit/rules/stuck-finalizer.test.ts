import { controllerTokens, findFinalizerControllers } from '../../../src/rules/finalizer-controllers.js';
import { finalizerGroupSubject, stuckFinalizerRule } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';

const rule = stuckFinalizerRule;

test.each([
  ['example.com/cleanup', ['example']],
  ['strimzi.io/topic-operator', ['strimzi']],
  ['resources-finalizer.argocd.argoproj.io', ['argocd', 'argoproj']],
  ['istio-finalizer.install.istio.io', ['istio']],
  ['starrocks.com.service/protection', ['starrocks']],
  ['finalizer.ceph.rook.io', ['ceph', 'rook']],
  ['cert-manager.io/cleanup', ['cert-manager']],
  ['foregroundDeleteKubeVirt', []],
])('controllerTokens(%j)', (finalizer, tokens) => {
  expect(controllerTokens(finalizer)).toEqual(tokens);
});

test('S02: one OperatorGoneFinalizer for the finalizer, grouping both objects of the namespace', () => {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  const { namespace: ns, group } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    key: `OperatorGoneFinalizer:${finalizerGroupSubject(ns, 'example.com/cleanup')}`,
    code: 'OperatorGoneFinalizer',
    severity: 'error',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'Service', namespace: ns, name: 's1' },
  });
  expect(f!.message).toMatch(
    new RegExp(
      `^2 objects in namespace ${ns} have waited up to \\d+s for finalizer example\\.com/cleanup to be removed, and no controller for it appears to run$`,
    ),
  );
  expect(f!.evidence.map((e) => e.replace(/deletionTimestamp [^)]+/, 'deletionTimestamp …'))).toEqual([
    `services ${ns}/s1 (deletionTimestamp …)`,
    `widgets.${group} ${ns}/t1 (deletionTimestamp …)`,
    'no controller for example.com/cleanup appears to run: none of the Deployments, StatefulSets, DaemonSets, ServiceAccounts and Leases outside Terminating namespaces has the words of its domain (example) in its name, namespace or app label',
    `namespace ${ns} is Terminating: if the controller for this finalizer lived in the namespace being deleted, it was deleted with it (delete such objects before their namespace)`,
  ]);
  // One JSON patch per object removes exactly this finalizer, guarded by a test op; last, after the warning.
  expect(f!.remediation.commands.slice(-3)).toEqual([
    expect.stringMatching(/^# WARNING: removing finalizers skips the cleanup/),
    `kubectl patch services s1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    `kubectl patch widgets.${group} t1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
  ]);
});

/** The S02 snapshot plus one object that looks like the finalizer's controller. */
function withCandidate(extra: Partial<ObjectMetadata> & Pick<ObjectMetadata, 'resource' | 'name'>) {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  const template = inventory.objects.find(
    (o) => o.resource === 'serviceaccounts' && o.namespace === 'kube-system',
  )!;
  const candidate = { ...template, uid: 'candidate', labels: {}, ...extra } as ObjectMetadata;
  return {
    fixture,
    inventory: withInventory(inventory, (d) => ({ ...d, objects: [...d.objects, candidate] })),
  };
}

test.each([
  [
    'a ServiceAccount named like it',
    'StuckFinalizer',
    { resource: 'serviceaccounts', name: 'example-operator' },
  ],
  [
    'a ServiceAccount whose app label names it',
    'StuckFinalizer',
    { resource: 'serviceaccounts', name: 'controller', labels: { 'app.kubernetes.io/name': 'example' } },
  ],
  [
    'the default ServiceAccount of a matching namespace',
    'OperatorGoneFinalizer',
    { resource: 'serviceaccounts', name: 'default', namespace: 'example' },
  ],
  [
    'a ServiceAccount being deleted',
    'OperatorGoneFinalizer',
    { resource: 'serviceaccounts', name: 'example-operator', deletionTimestamp: '2020-01-01T00:00:00Z' },
  ],
  [
    'a name that only contains the token inside a word',
    'OperatorGoneFinalizer',
    { resource: 'serviceaccounts', name: 'counterexample' },
  ],
])('controller heuristic: %s → %s', (_name, code, extra) => {
  const { fixture, inventory } = withCandidate(extra as Pick<ObjectMetadata, 'resource' | 'name'>);
  expect(rule.check(inventory, replayContext(fixture)).map((f) => f.code)).toEqual([code]);
});

test('a candidate in the Terminating namespace does not count (S03: the controller went with the namespace)', () => {
  const { fixture, inventory } = loadRecordedFixture('s03-operator-in-deleted-namespace');
  const { namespace: ns, finalizer } = fixture.names;
  const template = inventory.objects.find(
    (o) => o.resource === 'serviceaccounts' && o.namespace === 'kube-system',
  )!;
  const inside = withInventory(inventory, (d) => ({
    ...d,
    objects: [...d.objects, { ...template, uid: 'x', namespace: ns, name: 'application-controller' }],
  }));
  // The namespace name carries the finalizer's distinctive token, but it is being deleted.
  expect(findFinalizerControllers(inside, finalizer!)).toMatchObject({ result: 'none' });
  expect(rule.check(inside, replayContext(fixture)).map((f) => f.code)).toEqual(['OperatorGoneFinalizer']);
});

test('when a footprint kind could not be listed, the finding stays StuckFinalizer and says why', () => {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  const gap = withInventory(inventory, (d) => ({
    ...d,
    coverage: [{ resource: 'leases.coordination.k8s.io/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  const [f] = rule.check(gap, replayContext(fixture));
  expect(f!.code).toBe('StuckFinalizer');
  expect(f!.evidence).toContain(
    'whether its controller runs is unknown: could not list leases to look for its controller',
  );
});

test('S06 and S10: instances outside a Terminating namespace; the CRD cleanup finalizer is left to crd-stuck', () => {
  const s06 = loadRecordedFixture('s06-crd-stuck');
  const [f] = rule.check(s06.inventory, replayContext(s06.fixture));
  expect([f!.code, f!.object.kind, f!.object.name]).toEqual(['OperatorGoneFinalizer', 'Widget', 'w1']);
  expect(f!.evidence.join('\n')).not.toMatch(/is Terminating/);
  const s10 = loadRecordedFixture('s10-orphan-in-missing-namespace');
  expect(rule.check(s10.inventory, replayContext(s10.fixture)).map((x) => [x.code, x.object.name])).toEqual([
    ['OperatorGoneFinalizer', 'cm1'],
  ]);
});

test('a built-in finalizer names the Kubernetes controller that removes it and never strips it', () => {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  const builtIn = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.map((o) =>
      o.namespace === fixture.names.namespace ? { ...o, finalizers: ['kubernetes.io/pvc-protection'] } : o,
    ),
  }));
  const [f] = rule.check(builtIn, replayContext(fixture));
  expect(f!.code).toBe('StuckFinalizer');
  expect(f!.evidence).toContain(
    'removed by the pvc-protection controller of kube-controller-manager (it removes it once no pod with spec.nodeName uses the claim)',
  );
  expect(f!.remediation.commands.join('\n')).not.toMatch(/patch/);
});

test('deletions younger than the threshold are not reported', () => {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  expect(rule.check(inventory, replayContext(fixture, { stuckAfterSeconds: 3600 }))).toEqual([]);
});

test('S06: the remedy names the Helm release that shipped the CRD (its annotations), and why helm install fails now', () => {
  const { fixture, inventory } = loadRecordedFixture('s06-crd-stuck');
  const crdName = fixture.names.crd!;
  const annotated = withInventory(inventory, (data) => ({
    ...data,
    full: {
      ...data.full,
      customresourcedefinitions: (data.full.customresourcedefinitions ?? []).map((c) => {
        const crd = c as { metadata?: { name?: string; annotations?: Record<string, string> } };
        return crd.metadata?.name === crdName
          ? {
              ...crd,
              metadata: {
                ...crd.metadata,
                annotations: {
                  ...crd.metadata.annotations,
                  'meta.helm.sh/release-name': 'operator',
                  'meta.helm.sh/release-namespace': 'shop-operator',
                },
              },
            }
          : c;
      }),
    },
  }));
  const [f] = rule
    .check(annotated, replayContext(fixture))
    .filter((x) => x.object.namespace === fixture.names.namespace);
  expect(f!.code).toBe('OperatorGoneFinalizer');
  expect(f!.remediation.summary).toMatch(
    new RegExp(
      `^Run the controller of Helm release shop-operator/operator again \\(the release shipped CRD ${crdName.replace(/\./g, '\\.')}\\) and let it remove finalizer example\\.com/cleanup after its cleanup; CRD \\S+ is being deleted, so a \`helm install\` that creates it fails`,
    ),
  );
  expect(f!.evidence).toContain(
    `CRD ${crdName} was shipped by Helm release shop-operator/operator (its meta.helm.sh annotations)`,
  );
  // Without the annotations the remedy cannot name a release.
  const [plain] = rule
    .check(inventory, replayContext(fixture))
    .filter((x) => x.object.namespace === fixture.names.namespace);
  expect(plain!.remediation.summary).toMatch(
    /^Reinstall or scale up the operator that owns finalizer example\.com\/cleanup/,
  );
});
