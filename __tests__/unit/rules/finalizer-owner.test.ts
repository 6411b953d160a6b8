/**
 * Who owns a finalizer, from structure first (finalizer-controllers.ts `findFinalizerControllers`
 * with the held objects): the S02 recording (Widgets of CRD widgets.<group> held by
 * example.com/cleanup, no operator), varied: the CRD marked as shipped by a Helm release or
 * installed by OLM, whose workload is named unlike the finalizer; a workload with no available
 * replica whose pod renews a Lease (controller-liveness.ts); and the dry-run removal checks
 * and managers read with the held bodies (finalizer-evidence.ts).
 */
import type { Inventory, InventoryData } from '../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { findFinalizerControllers } from '../../../src/rules/finalizer-controllers.js';
import { deletionOutlook } from '../../../src/rules/deletion-forecast.js';
import { heldEvidence, refusedRemoval, withRefusal } from '../../../src/rules/finalizer-evidence.js';
import { stripFinalizers, stripFinalizersWarning } from '../../../src/rules/kubectl.js';
import { stuckFinalizerRule } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const finalizer = 'example.com/cleanup';
const { fixture, inventory: s02 } = loadRecordedFixture('s02-operator-gone-finalizer');
const group = fixture.names.group!;
const crdName = `widgets.${group}`;
const widgets = () => s02.objects.filter((o) => o.resource === 'widgets');

/** S02 with the CRD's metadata changed by `mark`, and `add` objects (metadata and whole bodies). */
function variant(
  mark: (crd: ObjectMetadata) => ObjectMetadata,
  add: { objects?: ObjectMetadata[]; full?: Partial<Record<string, unknown[]>> } = {},
  more: (d: InventoryData) => InventoryData = (d) => d,
): Inventory {
  return withInventory(s02, (d) =>
    more({
      ...d,
      objects: [
        ...d.objects.map((o) =>
          o.resource === 'customresourcedefinitions' && o.name === crdName ? mark(o) : o,
        ),
        ...(add.objects ?? []),
      ],
      full: Object.fromEntries(
        [...new Set([...Object.keys(d.full), ...Object.keys(add.full ?? {})])].map((k) => [
          k,
          [...((d.full as Record<string, readonly unknown[]>)[k] ?? []), ...(add.full?.[k] ?? [])],
        ]),
      ) as unknown as InventoryData['full'],
    }),
  );
}

const helmMarks = { 'meta.helm.sh/release-name': 'operator', 'meta.helm.sh/release-namespace': 'pr7' };

function deployment(available: number, replicas = 1, extra: Partial<ObjectMetadata> = {}) {
  const meta: ObjectMetadata = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    resource: 'deployments',
    namespace: 'pr7',
    name: 'widgets',
    uid: 'deploy-widgets',
    annotations: helmMarks,
    ...extra,
  };
  return {
    objects: [meta],
    full: {
      deployments: [
        {
          metadata: { name: 'widgets', namespace: 'pr7', uid: 'deploy-widgets' },
          spec: { replicas, template: { spec: { serviceAccountName: 'widgets-sa' } } },
          status: { availableReplicas: available },
        },
      ],
    },
  };
}

test('a live Deployment of the Helm release that shipped the CRD is its controller, whatever its name', () => {
  const inventory = variant((c) => ({ ...c, annotations: helmMarks }), deployment(1));
  const search = findFinalizerControllers(inventory, finalizer, widgets());
  expect(search).toMatchObject({ result: 'found', basis: 'structure' });
  const [f] = stuckFinalizerRule.check(inventory, replayContext(fixture));
  expect(f!.code).toBe('StuckFinalizer');
  expect(f!.message).toContain('its controller runs but has not removed it');
  expect(f!.remediation.summary).not.toMatch(/scale it up|Reinstall/);
  expect(f!.remediation.commands).toContain(
    `kubectl auth can-i patch widgets.${group} -n ${fixture.names.namespace} --as system:serviceaccount:pr7:widgets-sa`,
  );
  // Without the objects (the name search alone), the same cluster reads as gone: the old bug.
  expect(findFinalizerControllers(inventory, finalizer).result).toBe('none');
});

test.each([
  ['scaled to zero', deployment(0, 0), 'scaled to zero: deployments.apps pr7/widgets has spec.replicas 0'],
  [
    'uninstalled',
    {},
    `uninstalled: Helm release pr7/operator, which shipped CRD ${crdName} (its meta.helm.sh annotations), has no Deployment, StatefulSet or DaemonSet left`,
  ],
])('gone says how: %s', (_name, add, how) => {
  const inventory = variant((c) => ({ ...c, annotations: helmMarks }), add);
  const [f] = stuckFinalizerRule.check(inventory, replayContext(fixture));
  expect(f!.code).toBe('OperatorGoneFinalizer');
  expect(f!.message).toContain(`no controller for it appears to run (${how})`);
});

test('installed but not available (a rollout not finished, a crash loop, no Lease renewed): down, not gone; a teardown waits for it', () => {
  const inventory = variant((c) => ({ ...c, annotations: helmMarks }), deployment(0, 1));
  const search = findFinalizerControllers(inventory, finalizer, widgets());
  expect(search).toMatchObject({ result: 'none', basis: 'structure' });
  expect(search.result === 'none' && search.down?.map((c) => c.object.name)).toEqual(['widgets']);
  const [f] = stuckFinalizerRule.check(inventory, replayContext(fixture));
  expect(f!.code).toBe('StuckFinalizer');
  expect(f!.message).toContain(
    'its controller is installed but does not run now (deployments.apps pr7/widgets (a workload of Helm release pr7/operator',
  );
  expect(f!.evidence.join('\n')).toContain('down, not gone (it may come back and remove the finalizer)');
  // The forecast of a teardown: deleting a Widget waits on that controller, it is not a hang.
  const outlook = deletionOutlook(inventory, { now: Date.parse(inventory.takenAt), stuckAfterSeconds: 300 });
  const live = { ...widgets()[0]!, deletionTimestamp: undefined };
  expect(outlook(live)).toMatchObject({ outcome: 'waits' });
  // Scaled to zero, the same controller is gone: deleting the Widget hangs.
  const zero = variant((c) => ({ ...c, annotations: helmMarks }), deployment(0, 0));
  expect(
    deletionOutlook(zero, { now: Date.parse(zero.takenAt), stuckAfterSeconds: 300 })(live),
  ).toMatchObject({
    outcome: 'hangs',
  });
});

test('an OLM operator label on the CRD ties it to the workloads with the same label', () => {
  const label = 'operators.coreos.com/widgets.operators';
  const add = deployment(1, 1, { annotations: {}, labels: { [label]: '' } });
  const inventory = variant((c) => ({ ...c, labels: { [label]: '' } }), add);
  const search = findFinalizerControllers(inventory, finalizer, widgets());
  expect(search).toMatchObject({ result: 'found', basis: 'structure' });
});

test('a workload with no available replica runs while its pod renews a Lease (a NotReady node)', () => {
  const snapshotMs = Date.parse(s02.takenAt);
  const rs: ObjectMetadata = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    resource: 'replicasets',
    namespace: 'pr7',
    name: 'widgets-7f9c',
    uid: 'rs-1',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'widgets', uid: 'deploy-widgets' }],
  };
  const pod: ObjectMetadata = {
    apiVersion: 'v1',
    kind: 'Pod',
    resource: 'pods',
    namespace: 'pr7',
    name: 'widgets-7f9c-abcde',
    uid: 'pod-1',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'widgets-7f9c', uid: 'rs-1' }],
  };
  const lease = (secondsAgo: number) => ({
    metadata: { name: 'widgets-leader', namespace: 'pr7', uid: 'lease-1' },
    spec: {
      holderIdentity: 'widgets-7f9c-abcde_1b2c',
      leaseDurationSeconds: 15,
      renewTime: new Date(snapshotMs - secondsAgo * 1000).toISOString(),
    },
  });
  const base = deployment(0, 1);
  const withLease = (secondsAgo: number) =>
    variant((c) => ({ ...c, annotations: helmMarks }), {
      objects: [...base.objects, rs, pod],
      full: { ...base.full, leases: [lease(secondsAgo)] },
    });
  const live = findFinalizerControllers(withLease(2), finalizer, widgets());
  expect(live.result).toBe('found');
  expect(live.result === 'found' && live.candidates[0]!.liveness.reason).toMatch(
    /^0 of 1 replicas available, but its pod widgets-7f9c-abcde holds Lease pr7\/widgets-leader, renewed 2s before the snapshot/,
  );
  expect(findFinalizerControllers(withLease(600), finalizer, widgets()).result).toBe('none');
});

test('a live lookalike by name still wins over a structural owner that does not run (never called gone)', () => {
  const lookalike: ObjectMetadata = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    resource: 'deployments',
    namespace: 'ops',
    name: 'example-operator',
    uid: 'deploy-lookalike',
  };
  const add = deployment(0, 0);
  const inventory = variant((c) => ({ ...c, annotations: helmMarks }), {
    objects: [...add.objects, lookalike],
    full: {
      deployments: [
        ...add.full.deployments,
        { metadata: { uid: 'deploy-lookalike' }, spec: { replicas: 1 }, status: { availableReplicas: 1 } },
      ],
    },
  });
  expect(findFinalizerControllers(inventory, finalizer, widgets())).toMatchObject({
    result: 'found',
    basis: 'names',
  });
});

test('held bodies: managers that added the finalizer, status conditions, and refused removals are evidence', () => {
  const [w] = widgets();
  const inventory = withInventory(s02, (d) => ({
    ...d,
    heldBodies: [
      {
        uid: w!.uid,
        status: {
          conditions: [
            { type: 'Ready', status: 'False', reason: 'CleanupFailed', message: 'bucket\nnot empty' },
          ],
        },
        finalizerManagers: { [finalizer]: ['widget-manager'] },
        removalChecks: [
          {
            finalizer,
            outcome: 'refused',
            message: 'HTTP 403: admission webhook "v.example.com" denied the request: no',
          },
        ],
      },
    ],
  }));
  expect(heldEvidence(inventory, [w!], finalizer)).toEqual([
    `finalizer ${finalizer} was added by field manager widget-manager (metadata.managedFields of 1 of 1 object)`,
    `${`widgets.${group}`} ${w!.namespace}/${w!.name} says (status.conditions): Ready=False (CleanupFailed): bucket not empty`,
    `removing finalizer ${finalizer} from widgets.${group} ${w!.namespace}/${w!.name} is refused by the API server (tried with dryRun=All): HTTP 403: admission webhook "v.example.com" denied the request: no`,
  ]);
  const refusal = refusedRemoval(inventory, [w!], finalizer);
  const remedy = withRefusal(
    { summary: 'Then this.', commands: ['kubectl get x', ...stripFinalizers([w!], finalizer)] },
    finalizer,
    refusal,
  );
  expect(remedy.summary).toMatch(
    /^Resolve first what refuses removing finalizer example\.com\/cleanup .*denied the request: no"\), so the removal printed below fails until then\. Then this\.$/,
  );
  expect(remedy.commands.indexOf(stripFinalizersWarning)).toBe(2);
  expect(remedy.commands[1]).toMatch(/^# REFUSED now: .*denied the request: no$/);
  expect(withRefusal(remedy, finalizer, undefined)).toBe(remedy);
});
