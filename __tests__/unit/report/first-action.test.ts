/**
 * The first safe action of every finding code (report/root-causes.ts `firstAction`, shown in
 * the summary's first screen, the CLI and the failure message): the remedy's first sentence,
 * whole, and an instruction that stands on its own. Findings come from every recorded fixture
 * (__tests__/fixtures/rules) plus variants for the codes and remedy shapes those lack.
 */
import { readdirSync } from 'node:fs';
import { allFindingCodes } from '../../../src/rules/codes.js';
import type { Finding } from '../../../src/rules/findings.js';
import { runRules } from '../../../src/rules/index.js';
import { firstAction } from '../../../src/report/root-causes.js';
import type { Inventory, InventoryData } from '../../../src/inventory/snapshot.js';
import {
  loadRecordedFixture,
  recordedFixturesDir,
  replayContext,
  withActiveNamespace,
  withInventory,
  withStatefulSet,
} from '../rules/support/recorded-fixture.js';
import {
  annotateNamespace,
  fullJobQuota,
  held,
  podQuota,
  policyParamMissing,
  recordStoredElsewhere,
} from '../rules/support/round3-variants.js';

/** Runs every rule over fixture `name`, changed by `change`. */
function findingsOf(name: string, change: (d: InventoryData) => InventoryData = (d) => d): Finding[] {
  const { fixture, inventory } = loadRecordedFixture(name);
  return runRules(withInventory(inventory, change), replayContext(fixture));
}

/** Runs every rule over fixture `name`, its snapshot changed by `change`. */
function findingsIn(name: string, change: (inventory: Inventory) => Inventory): Finding[] {
  const { fixture, inventory } = loadRecordedFixture(name);
  return runRules(change(inventory), replayContext(fixture));
}

const namespaceOf = (name: string) => loadRecordedFixture(name).fixture.names.namespace!;

const recorded = readdirSync(recordedFixturesDir)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) => findingsOf(f.replace(/\.json$/, '')));

const variants: Finding[] = [
  // A Namespace held by its own metadata.finalizers (no content finalizer).
  ...findingsOf('s01-stale-apiservice', (d) => ({
    ...d,
    objects: d.objects.map((o) =>
      o.resource === 'namespaces' && o.name === namespaceOf('s01-stale-apiservice')
        ? { ...o, finalizers: ['example.com/hold'] }
        : o,
    ),
  })),
  // A Terminating namespace whose conditions name nothing.
  ...findingsOf('s01-stale-apiservice', (d) => ({
    ...d,
    full: {
      ...d.full,
      namespaces: d.full.namespaces.map((n) => {
        const ns = n as { metadata: { name: string } };
        return ns.metadata.name === namespaceOf('s01-stale-apiservice')
          ? { ...ns, status: { phase: 'Terminating' } }
          : n;
      }),
    },
  })),
  // An environment namespace that exists, not yet deleted, while the APIService is unavailable.
  ...findingsIn('s01-stale-apiservice', (inventory) =>
    withActiveNamespace(inventory, namespaceOf('s01-stale-apiservice')),
  ),
  // The StatefulSet of S22 back: its claim is kept by the retention policy.
  ...findingsIn('s22-statefulset-claim-leftover', (inventory) =>
    withStatefulSet(inventory, namespaceOf('s22-statefulset-claim-leftover'), 'pg'),
  ),
  // Custom-resource data that etcd stores under a prefix no CRD serves.
  ...findingsOf('s10-orphan-in-missing-namespace', (d) => ({
    ...d,
    etcd: {
      endpoint: 'https://127.0.0.1:2379',
      keys: 1,
      prefixes: [
        { group: 'gone.example.com', resource: 'gadgets', count: 1, samples: ['a/g1'], namespaces: ['a'] },
      ],
    },
  })),
  // A namespace DELETE of the run that an admission policy refused.
  ...runRules(
    loadRecordedFixture('s01-stale-apiservice').inventory,
    replayContext(loadRecordedFixture('s01-stale-apiservice').fixture, {
      refusals: [
        {
          step: 'delete-namespace',
          request: `DELETE /api/v1/namespaces/${namespaceOf('s01-stale-apiservice')}`,
          object: { apiVersion: 'v1', kind: 'Namespace', name: namespaceOf('s01-stale-apiservice') },
          status: 422,
          reason: 'Invalid',
          message: "ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: kept",
        },
      ],
    }),
  ),
];

// The round-3 rules on S12's snapshot: a binding whose param is missing, a full Job quota, a full
// Pod-count quota, a Helm
// record stored elsewhere (for when their own recorded fixtures are absent).
const round3: Finding[] = [
  ...findingsOf('s12-pvc-protection-blocked', (d) => policyParamMissing(d)),
  ...findingsOf('s12-pvc-protection-blocked', (d) => fullJobQuota(d, 'default', { hard: 2, jobs: 2 })),
  // An Argo CD app that manages the Terminating namespace it lives in (S24).
  ...findingsOf('s12-pvc-protection-blocked', (d) => {
    const ns = loadRecordedFixture('s12-pvc-protection-blocked').fixture.names.namespace!;
    const app = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      resource: 'applications',
      ns,
      name: 'in-cluster',
      finalizer: 'resources-finalizer.argocd.argoproj.io',
      status: {},
    };
    return annotateNamespace(held(d, [app]), ns, {
      'argocd.argoproj.io/tracking-id': `in-cluster:/Namespace:/${ns}`,
    });
  }),
  ...findingsOf('s12-pvc-protection-blocked', (d) =>
    podQuota(d, 2, [
      { name: 'report-1', phase: 'Succeeded' },
      { name: 'migrate-a', phase: 'Failed', job: 'migrate' },
    ]),
  ),
  ...findingsOf('s12-pvc-protection-blocked', (d) => recordStoredElsewhere(d, 'kube-public', 'pr-7')),
  // Catalogued finalizers in a Terminating namespace (the controller cannot come back in place).
  ...findingsOf('s12-pvc-protection-blocked', (d) =>
    held(
      d,
      ['velero.io/data-upload-download-finalizer', 'resources-finalizer.argocd.argoproj.io'].map(
        (finalizer) => ({
          apiVersion: 'example.io/v1',
          kind: 'Thing',
          resource: 'things',
          ns: namespaceOf('s12-pvc-protection-blocked'),
          name: finalizer.split('/')[0]!.replace(/\./g, '-'),
          finalizer,
          status: { phase: 'InProgress' },
        }),
      ),
    ),
  ),
];

// A release Secret whose record was refused (plan, dry run and teardown decode them).
const refusedRecord = (() => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  return runRules(
    inventory,
    replayContext(fixture, {
      invalidReleaseRecords: [
        {
          namespace: 'pr-1',
          secret: 'sh.helm.release.v1.x.v1',
          reason: 'release Secret pr-1/x is not valid',
        },
      ],
    }),
  );
})();

const all = [...recorded, ...variants, ...round3, ...refusedRecord];

/** Verbs a first action may start with: each says what to do. */
const imperative =
  /^(Bring|Check|Create|Decide|Delete|Fix|Let|Make|Read|Recover|Recreate|Reinstall|Remove|Resolve|Restore|Run|Set) /;

test('the findings cover every finding code', () => {
  expect([...new Set(all.map((f) => f.code))].sort()).toEqual([...allFindingCodes]);
});

test.each(allFindingCodes.map((c) => [c]))(
  '%s: the first action is the whole first sentence of the remedy, an instruction on its own',
  (code) => {
    expect.hasAssertions();
    for (const f of all.filter((x) => x.code === code)) {
      const action = firstAction(f);
      // The whole first sentence: the remedy starts with it, and it ends with a full stop.
      expect(f.remediation.summary.startsWith(action)).toBe(true);
      expect(action).toMatch(/\.$/);
      // An instruction: it starts with what to do, and says more than "do it first".
      expect(action).toMatch(imperative);
      expect(action.split(' ').length).toBeGreaterThanOrEqual(6);
      // Nothing it introduces is cut off: it does not end on a colon before the full stop.
      expect(action).not.toMatch(/:\.$/);
    }
  },
);

test('a clause after a colon stays in the first action (it is the action)', () => {
  const f = recorded.find((x) => x.code === 'RBACBindingDanglingSubject' && x.severity === 'warning')!;
  expect(firstAction(f)).toBe(
    'Remove just the dangling subjects from the binding, not the binding: it names other subjects too, so it belongs to someone else.',
  );
  expect(
    firstAction({
      ...f,
      remediation: { summary: 'Do this: then that (a: b. c); more. Next.', commands: [] },
    }),
  ).toBe('Do this: then that (a: b. c); more.');
});

test('a namespace held by its own metadata.finalizers: the first action names that finalizer and says who removes it', () => {
  const f = variants.find((x) => x.code === 'NamespaceBlockedByFinalizer')!;
  expect(firstAction(f)).toBe(
    `Restore the controller that set finalizer example.com/hold on Namespace ${namespaceOf('s01-stale-apiservice')} itself ` +
      '(reinstall or scale up the operator that owns each) and let it remove them after its cleanup; the namespace ' +
      'controller never removes metadata.finalizers.',
  );
});
