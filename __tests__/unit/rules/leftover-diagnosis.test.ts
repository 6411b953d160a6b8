import type { ObjectRef } from '../../../src/inventory/types.js';
import { findingKey } from '../../../src/rules/findings.js';
import { runRules } from '../../../src/rules/index.js';
import {
  diagnoseLeftovers,
  leftoverStillThere,
  leftoverUnreadable,
  withCauses,
  type Leftover,
} from '../../../src/rules/leftover-diagnosis.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';
import type { NamespaceObject } from '../../../src/rules/kubernetes-objects.js';

function run(name: string) {
  const { fixture, inventory } = loadRecordedFixture(name);
  return { fixture, inventory, findings: runRules(inventory, replayContext(fixture)) };
}

const namespaceRef = (name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Namespace', name });
const stage = (object: ObjectRef, note?: string): Leftover => ({
  object,
  source: 'stage',
  ...(note ? { note } : {}),
});

test('S01: a stuck namespace left by a teardown has the StaleAPIService as root cause, though it is outside the environment', () => {
  const { fixture, inventory, findings } = run('s01-stale-apiservice');
  const ns = fixture.names.namespace!;
  const stale = findingKey('StaleAPIService', {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    name: fixture.names.apiService!,
  });
  expect(findings.find((f) => f.key === stale)?.scope).toBe('cluster');
  const [d] = diagnoseLeftovers([{ object: namespaceRef(ns), source: 'namespace' }], findings, inventory);
  expect(d).toEqual({
    object: namespaceRef(ns),
    source: 'namespace',
    findings: [`NamespaceBlockedByDiscovery:v1/Namespace//${ns}`],
    rootCauses: [stale],
    reason: expect.stringMatching(/^deleting since \S+, no finalizer left$/),
  });
  // The environment's findings bring their causes along, wherever those are.
  const environment = findings.filter((f) => f.scope === 'environment').map((f) => f.key);
  expect(environment).not.toContain(stale);
  expect(withCauses(findings, environment).map((f) => f.key)).toEqual(findings.map((f) => f.key));
});

test('S02: a custom resource held by a finalizer whose operator is gone: the finalizer finding explains it', () => {
  const { fixture, inventory, findings } = run('s02-operator-gone-finalizer');
  const ns = fixture.names.namespace!;
  const gone = findingKey('OperatorGoneFinalizer', finalizerGroupSubject(ns, 'example.com/cleanup'));
  const widget = { apiVersion: `${fixture.names.group}/v1`, kind: 'Widget', namespace: ns, name: 't1' };
  const [d] = diagnoseLeftovers([stage(widget)], findings, inventory);
  expect(d).toMatchObject({ findings: [gone], rootCauses: [gone] });
  expect(d!.reason).toMatch(/^deleting since \S+, held by finalizer example\.com\/cleanup$/);
});

test('S04: an object whose deletion an admission webhook rejects is explained by that webhook', () => {
  const { fixture, inventory, findings } = run('s04-webhook-backend-missing');
  const webhook = findingKey('WebhookBackendMissing', {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    name: fixture.names.configuration!,
  });
  const widget = {
    apiVersion: `${fixture.names.group}/v1`,
    kind: 'Widget',
    namespace: fixture.names.namespace!,
    name: 'w1',
  };
  const [d] = diagnoseLeftovers(
    [stage(widget, 'release x/y of its stage not uninstalled')],
    findings,
    inventory,
  );
  expect(d).toMatchObject({ findings: [webhook], rootCauses: [webhook] });
  expect(d!.reason).toBe('still there and not being deleted; release x/y of its stage not uninstalled');
});

test('S06: the stuck CRD is explained by its own finding, rooted in the finalizer of its instance; the instance not by the CRD', () => {
  const { fixture, inventory, findings } = run('s06-crd-stuck');
  const ns = fixture.names.namespace!;
  const crd = findingKey('CRDStuckTerminating', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: fixture.names.crd!,
  });
  const gone = findingKey('OperatorGoneFinalizer', finalizerGroupSubject(ns, 'example.com/cleanup'));
  const [ofCrd, ofWidget] = diagnoseLeftovers(
    [
      stage({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: fixture.names.crd!,
      }),
      {
        object: { apiVersion: `${fixture.names.group}/v1`, kind: 'Widget', namespace: ns, name: 'w1' },
        source: 'crd-instances',
      },
    ],
    findings,
    inventory,
  );
  expect(ofCrd).toMatchObject({ findings: [crd], rootCauses: [gone] });
  expect(ofWidget).toMatchObject({ source: 'crd-instances', findings: [gone], rootCauses: [gone] });
});

test('a leftover the snapshot no longer holds is reported gone, with no finding; one no finding explains says so', () => {
  const { fixture, inventory, findings } = run('s02-operator-gone-finalizer');
  const ns = fixture.names.namespace!;
  const [gone, unexplained] = diagnoseLeftovers(
    [
      stage({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'never-made' }),
      stage({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' }),
    ],
    findings,
    inventory,
  );
  expect(gone).toMatchObject({ findings: [], rootCauses: [], reason: 'gone by the scan after the teardown' });
  expect(unexplained).toMatchObject({
    findings: [],
    rootCauses: [],
    reason: 'still there and not being deleted; no finding explains it',
  });
});

test('withCauses keeps the seeds and what they are caused by, in the order of the findings, and ignores unknown keys', () => {
  const { findings } = run('s02-operator-gone-finalizer');
  const namespaceFinding = findings.find((f) => f.code === 'NamespaceBlockedByFinalizer')!;
  expect(withCauses(findings, [namespaceFinding.key, 'NoSuchCode:x']).map((f) => f.key)).toEqual(
    findings
      .filter((f) => f.key === namespaceFinding.key || namespaceFinding.causedBy!.includes(f.key))
      .map((f) => f.key),
  );
  expect(withCauses(findings, [])).toEqual([]);
});

test('a namespace whose custom resources cannot be converted roots in the CRD whose conversion webhook is gone', () => {
  const { fixture, inventory, findings } = run('conversion-webhook-namespace');
  const ns = fixture.names.namespace!;
  const conversion = findingKey('ConversionWebhookBackendMissing', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: fixture.names.crd!,
  });
  const content = `NamespaceContentDeletionFailed:v1/Namespace//${ns}`;
  expect(findings.find((f) => f.key === content)?.causedBy).toEqual([conversion]);
  const [d] = diagnoseLeftovers([{ object: namespaceRef(ns), source: 'namespace' }], findings, inventory);
  expect(d).toMatchObject({ findings: [content], rootCauses: [conversion] });
  // The link comes from what the namespace controller quotes: without the quote, none.
  const unquoted = withInventory(inventory, (data) => ({
    ...data,
    full: {
      ...data.full,
      namespaces: (data.full.namespaces as NamespaceObject[]).map((n) =>
        n.metadata?.name !== ns
          ? n
          : {
              ...n,
              status: {
                ...n.status,
                conditions: n.status?.conditions?.map((c) => ({
                  ...c,
                  message: c.message?.replace(/conversion webhook/g, 'x'),
                })),
              },
            },
      ),
    },
  }));
  const again = runRules(unquoted, replayContext(fixture));
  expect(again.find((f) => f.key === content)?.causedBy).toBeUndefined();
});

test('a leftover missing from a snapshot that could not list its kind is unreadable, not gone; one whose kind was read and is absent is gone', () => {
  const { inventory } = run('s01-stale-apiservice');
  const missing = namespaceRef('not-in-the-snapshot');
  expect(leftoverStillThere(inventory, missing)).toBe(false);
  expect(leftoverUnreadable(inventory, missing)).toBe(false);
  const forbidden = withInventory(inventory, (d) => ({
    ...d,
    coverage: [...d.coverage, { resource: 'namespaces/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  expect(leftoverUnreadable(forbidden, missing)).toBe(true);
  // A gap for another kind says nothing of namespaces.
  const other = withInventory(inventory, (d) => ({
    ...d,
    coverage: [...d.coverage, { resource: 'configmaps/v1', reason: 'failed', message: 'HTTP 503' }],
  }));
  expect(leftoverUnreadable(other, missing)).toBe(false);
  // Discovery of the group-version failed: its objects could not be listed at all.
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'a', name: 'w' };
  expect(leftoverUnreadable(inventory, widget)).toBe(false);
  const undiscovered = withInventory(inventory, (d) => ({
    ...d,
    failedGroupVersions: [...d.failedGroupVersions, { groupVersion: 'example.com/v1', message: 'HTTP 503' }],
  }));
  expect(leftoverUnreadable(undiscovered, widget)).toBe(true);
});
