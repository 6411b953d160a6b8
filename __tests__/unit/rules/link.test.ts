import { findingKey } from '../../../src/rules/findings.js';
import { runRules } from '../../../src/rules/index.js';
import { linkFindings } from '../../../src/rules/link.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext } from './support/recorded-fixture.js';

function run(name: string) {
  const { fixture, inventory } = loadRecordedFixture(name);
  return { fixture, inventory, findings: runRules(inventory, replayContext(fixture)) };
}

const causes = (findings: ReturnType<typeof run>['findings']) =>
  findings.filter((f) => f.causedBy).map((f) => [f.key, f.causedBy]);

test('S01: the namespace blocked by discovery is caused by the StaleAPIService', () => {
  const { fixture, findings } = run('s01-stale-apiservice');
  const stale = findingKey('StaleAPIService', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    name: fixture.names.apiService!,
  });
  expect(findings.map((f) => f.key)).toEqual([
    `NamespaceBlockedByDiscovery:v1/Namespace//${fixture.names.namespace}`,
    stale,
  ]);
  expect(causes(findings)).toEqual([[findings[0]!.key, [stale]]]);
});

test('S02: the namespace blocked by finalizers is caused by the finalizer whose operator is gone', () => {
  const { fixture, findings } = run('s02-operator-gone-finalizer');
  const gone = findingKey(
    'OperatorGoneFinalizer',
    finalizerGroupSubject(fixture.names.namespace, 'example.com/cleanup'),
  );
  expect(causes(findings)).toEqual([
    [`NamespaceBlockedByFinalizer:v1/Namespace//${fixture.names.namespace}`, [gone]],
  ]);
});

test('S04: the content deletion failure is caused by the webhook whose backend is gone', () => {
  const { fixture, findings } = run('s04-webhook-backend-missing');
  const webhook = findingKey('WebhookBackendMissing', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    name: fixture.names.configuration!,
  });
  expect(causes(findings)).toEqual([
    [`NamespaceContentDeletionFailed:v1/Namespace//${fixture.names.namespace}`, [webhook]],
  ]);
});

test('S06: the stuck CRD is caused by the finalizer of its instance', () => {
  const { fixture, findings } = run('s06-crd-stuck');
  const gone = findingKey(
    'OperatorGoneFinalizer',
    finalizerGroupSubject(fixture.names.namespace, 'example.com/cleanup'),
  );
  expect(causes(findings)).toEqual([
    [`CRDStuckTerminating:apiextensions.k8s.io/v1/CustomResourceDefinition//${fixture.names.crd}`, [gone]],
  ]);
});

test('links only to findings of the same run', () => {
  const { inventory, findings } = run('s01-stale-apiservice');
  const withoutCause = findings
    .filter((f) => f.code !== 'StaleAPIService')
    .map(({ causedBy: _c, ...f }) => f);
  expect(linkFindings(withoutCause, inventory).every((f) => f.causedBy === undefined)).toBe(true);
});

test('S11: the namespace whose pods never go away is caused by PodStuckTerminating', () => {
  const { fixture, findings } = run('s11-pod-stuck-terminating');
  const pod = findingKey('PodStuckTerminating', {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: fixture.names.namespace!,
    name: 'p1',
  });
  expect(causes(findings)).toEqual([
    [`NamespaceContentDeletionFailed:v1/Namespace//${fixture.names.namespace}`, [pod]],
  ]);
});

test('S10: a finalizer group in a force-finalized namespace is caused by the orphans waiting there (one object, one entry)', () => {
  const { fixture, findings } = run('s10-orphan-in-missing-namespace');
  const ns = fixture.names.namespace!;
  const orphan = (kind: string, name: string) =>
    findings.find(
      (f) => f.code === 'OrphanInMissingNamespace' && f.object.kind === kind && f.object.name === name,
    );
  const finalizerGroup = findings.find((f) => f.object.namespace === ns && /Finalizer$/.test(f.code));
  expect(finalizerGroup).toBeDefined();
  // The ConfigMap waits for example.com/cleanup in the missing namespace: its orphan finding explains the group.
  expect(finalizerGroup!.causedBy).toContain(orphan('ConfigMap', 'cm1')!.key);
  // The orphans themselves are roots: nothing in the run causes them.
  for (const f of findings.filter((x) => x.code === 'OrphanInMissingNamespace'))
    expect(f.causedBy).toBeUndefined();
});

test('a finding in an existing namespace is never linked to an orphan', () => {
  const { findings } = run('s02-operator-gone-finalizer');
  expect(
    findings.flatMap((f) => f.causedBy ?? []).filter((k) => k.startsWith('OrphanInMissingNamespace')),
  ).toEqual([]);
});
