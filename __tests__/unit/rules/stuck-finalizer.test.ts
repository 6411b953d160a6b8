import { controllerTokens, findFinalizerControllers } from '../../../src/rules/finalizer-controllers.js';
import { finalizerGroupSubject, stuckFinalizerRule } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';

const rule = stuckFinalizerRule;
const guessNote =
  "; a guess from names: nothing in the structure (the CRD's Helm marks, OLM labels, ownerReferences) names its controller";

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
    'no controller for it appears to run: no live Deployment, StatefulSet, DaemonSet (available replicas) or Lease (renewed within its duration) outside a Terminating namespace carries the word example (from example.com/cleanup) in its name, namespace or app label' +
      guessNote,
    `namespace ${ns} is Terminating: if the controller for this finalizer lived in the namespace being deleted, it was deleted with it (delete such objects before their namespace)`,
  ]);
  // One JSON patch per object removes exactly this finalizer, guarded by a test op; last, after the warning.
  expect(f!.remediation.commands.slice(-3)).toEqual([
    expect.stringMatching(/^# WARNING: removing finalizers skips the cleanup/),
    `kubectl patch services s1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    `kubectl patch widgets.${group} t1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
  ]);
});

/** The S02 snapshot plus one object that looks like the finalizer's controller (metadata, and its whole body). */
function withCandidate(
  extra: Partial<ObjectMetadata> & Pick<ObjectMetadata, 'resource' | 'name'>,
  whole?: { spec?: object; status?: object },
) {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  const kinds: Record<string, [string, string]> = {
    deployments: ['apps/v1', 'Deployment'],
    daemonsets: ['apps/v1', 'DaemonSet'],
    leases: ['coordination.k8s.io/v1', 'Lease'],
    serviceaccounts: ['v1', 'ServiceAccount'],
  };
  const [apiVersion, kind] = kinds[extra.resource]!;
  const candidate = {
    apiVersion,
    kind,
    namespace: 'operators',
    uid: 'candidate',
    ...extra,
  } as ObjectMetadata;
  const body = {
    apiVersion,
    kind,
    metadata: { name: candidate.name, namespace: candidate.namespace, uid: 'candidate' },
    ...whole,
  };
  return {
    fixture,
    inventory: withInventory(inventory, (d) => ({
      ...d,
      objects: [...d.objects, candidate],
      full: whole
        ? {
            ...d.full,
            [extra.resource]: [
              ...((d.full as unknown as Record<string, unknown[]>)[extra.resource] ?? []),
              body,
            ],
          }
        : d.full,
    })),
  };
}

/** An RFC 3339 time `seconds` before the S02 snapshot was taken. */
function beforeSnapshot(seconds: number): string {
  const { fixture } = loadRecordedFixture('s02-operator-gone-finalizer');
  return new Date(Date.parse(fixture.inventory.takenAt) - seconds * 1000).toISOString();
}

test.each([
  [
    'a Deployment named like it with an available replica',
    'StuckFinalizer',
    { resource: 'deployments', name: 'example-operator' },
    { spec: { replicas: 1 }, status: { availableReplicas: 1 } },
  ],
  [
    'a Deployment named like it scaled to zero',
    'OperatorGoneFinalizer',
    { resource: 'deployments', name: 'example-operator' },
    { spec: { replicas: 0 }, status: {} },
  ],
  [
    'a Deployment named like it whose status the snapshot does not hold',
    'OperatorGoneFinalizer',
    { resource: 'deployments', name: 'example-operator' },
    undefined,
  ],
  [
    'a DaemonSet whose app label names it, with an available pod',
    'StuckFinalizer',
    { resource: 'daemonsets', name: 'agent', labels: { 'app.kubernetes.io/name': 'example' } },
    { status: { numberAvailable: 1, desiredNumberScheduled: 1 } },
  ],
  [
    'a Lease named like it, renewed within its duration',
    'StuckFinalizer',
    { resource: 'leases', name: 'example-controller' },
    { spec: { holderIdentity: 'x_1', leaseDurationSeconds: 15, renewTime: beforeSnapshot(20) } },
  ],
  [
    'a Lease named like it, last renewed 30 minutes before the snapshot (S20)',
    'OperatorGoneFinalizer',
    { resource: 'leases', name: 'example-controller' },
    { spec: { holderIdentity: 'x_1', leaseDurationSeconds: 60, renewTime: beforeSnapshot(1800) } },
  ],
  [
    'a ServiceAccount named like it (it outlives its controller)',
    'OperatorGoneFinalizer',
    { resource: 'serviceaccounts', name: 'example-operator' },
    undefined,
  ],
  [
    'a live Deployment being deleted',
    'OperatorGoneFinalizer',
    { resource: 'deployments', name: 'example-operator', deletionTimestamp: '2020-01-01T00:00:00Z' },
    { spec: { replicas: 1 }, status: { availableReplicas: 1 } },
  ],
  [
    'a live Deployment whose name only contains the token inside a word',
    'OperatorGoneFinalizer',
    { resource: 'deployments', name: 'counterexample' },
    { spec: { replicas: 1 }, status: { availableReplicas: 1 } },
  ],
])('controller heuristic: %s → %s', (_name, code, extra, whole) => {
  const { fixture, inventory } = withCandidate(extra as Pick<ObjectMetadata, 'resource' | 'name'>, whole);
  expect(rule.check(inventory, replayContext(fixture)).map((f) => f.code)).toEqual([code]);
});

test('the evidence names the object taken as the controller and why, and the lookalikes not taken', () => {
  const live = withCandidate(
    { resource: 'deployments', name: 'example-operator' },
    { spec: { replicas: 2 }, status: { availableReplicas: 1 } },
  );
  const [found] = rule.check(live.inventory, replayContext(live.fixture));
  expect(found!.evidence).toContain(
    'taken as its controller (live, and its name, namespace or app label carries the word example (from example.com/cleanup)): ' +
      'deployments.apps operators/example-operator (name matches example; 1 of 2 replicas available)' +
      guessNote,
  );
  const stale = withCandidate(
    { resource: 'leases', name: 'example-controller' },
    {
      spec: {
        holderIdentity: 'example-controller-7f9c6d-abcde_0a1b',
        leaseDurationSeconds: 60,
        renewTime: beforeSnapshot(1800),
      },
    },
  );
  const [gone] = rule.check(stale.inventory, replayContext(stale.fixture));
  expect(gone!.code).toBe('OperatorGoneFinalizer');
  expect(gone!.evidence).toContain(
    'no controller for it appears to run: no live Deployment, StatefulSet, DaemonSet (available replicas) or Lease ' +
      '(renewed within its duration) outside a Terminating namespace carries the word example (from example.com/cleanup) ' +
      'in its name, namespace or app label; ' +
      'not live, so not taken: leases.coordination.k8s.io operators/example-controller (name matches example; ' +
      'renewed 30m before the snapshot, past its leaseDurationSeconds 60 + 10 s grace, holder ' +
      'example-controller-7f9c6d-abcde_0a1b); ' +
      "a guess from names: nothing in the structure (the CRD's Helm marks, OLM labels, ownerReferences) names its controller",
  );
});

test('a candidate in the Terminating namespace does not count (S03: the controller went with the namespace)', () => {
  const { fixture, inventory } = loadRecordedFixture('s03-operator-in-deleted-namespace');
  const { namespace: ns, finalizer } = fixture.names;
  const controller = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    resource: 'deployments',
    uid: 'x',
    namespace: ns!,
    name: 'application-controller',
  };
  const inside = withInventory(inventory, (d) => ({
    ...d,
    objects: [...d.objects, controller],
    full: {
      ...d.full,
      deployments: [
        {
          metadata: { name: controller.name, namespace: ns, uid: 'x' },
          spec: { replicas: 1 },
          status: { availableReplicas: 1 },
        },
      ],
    },
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
