/**
 * The S19-S23 rules over snapshots recorded from the real control plane by the scenario tests
 * (__tests__/integration/rules/s19..s23, RECORD_FIXTURES=1), and variants of them.
 */
import type { InventoryData } from '../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { csiDriverGoneRule } from '../../../src/rules/csi-driver-gone.js';
import { helmReleaseRecordLostRule } from '../../../src/rules/helm-release-record-lost.js';
import { runRules } from '../../../src/rules/index.js';
import { rbacDanglingSubjectsRule } from '../../../src/rules/rbac-dangling-subjects.js';
import { staleLeaderLeaseRule } from '../../../src/rules/stale-leader-lease.js';
import { statefulSetClaimLeftoverRule } from '../../../src/rules/statefulset-claim-leftover.js';
import { stuckFinalizerRule } from '../../../src/rules/stuck-finalizer.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const summary = (findings: { code: string; severity: string; object: { kind: string; name: string } }[]) =>
  findings.map((f) => [f.code, f.severity, f.object.kind, f.object.name]);

/** The data with one more object, listed as metadata and (optionally) whole. */
function plus(
  d: InventoryData,
  meta: ObjectMetadata,
  whole?: { resource: string; body: object },
): InventoryData {
  const full = d.full as unknown as Record<string, unknown[]>;
  return {
    ...d,
    objects: [...d.objects, meta],
    full: (whole
      ? { ...full, [whole.resource]: [...(full[whole.resource] ?? []), whole.body] }
      : d.full) as unknown as InventoryData['full'],
  };
}

test('S19: two whole-binding leftovers, one partly dangling binding, one missing account ranked as info', () => {
  const { fixture, inventory } = loadRecordedFixture('s19-dangling-rbac-subjects');
  const { leftover, shared, other } = fixture.names;
  const findings = rbacDanglingSubjectsRule.check(inventory, replayContext(fixture));
  expect(summary(findings).sort((a, b) => a[3]!.localeCompare(b[3]!))).toEqual([
    ['RBACBindingDanglingSubject', 'info', 'RoleBinding', 'ghost-reader'],
    ['RBACBindingLeftover', 'warning', 'RoleBinding', 'reads'],
    ['RBACBindingLeftover', 'warning', 'ClusterRoleBinding', leftover],
    ['RBACBindingDanglingSubject', 'warning', 'ClusterRoleBinding', shared],
  ]);
  expect(findings.find((f) => f.object.name === 'ghost-reader')!.object.namespace).toBe(other);
  // Not judged when the ServiceAccounts could not be listed.
  const blind = withInventory(inventory, (d) => ({
    ...d,
    coverage: [{ resource: 'serviceaccounts/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  expect(rbacDanglingSubjectsRule.check(blind, replayContext(fixture))).toEqual([]);
  // The namespace comes back (name reuse): nothing dangles, and it gets the rights again.
  const reused = withInventory(inventory, (d) =>
    plus(
      d,
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        resource: 'namespaces',
        name: fixture.names.namespace!,
        uid: 'n',
      },
      { resource: 'namespaces', body: { metadata: { name: fixture.names.namespace, uid: 'n' } } },
    ),
  );
  expect(
    summary(rbacDanglingSubjectsRule.check(reused, replayContext(fixture))).map((s) => s[0]),
  ).not.toContain('RBACBindingLeftover');
});

test('S20: the stale Lease is reported; the control plane’s own Leases never, even when not renewed', () => {
  const { fixture, inventory } = loadRecordedFixture('s20-stale-leader-lease');
  const { lease, holder } = fixture.names;
  expect(summary(staleLeaderLeaseRule.check(inventory, replayContext(fixture)))).toEqual([
    ['StaleLeaderLease', 'info', 'Lease', lease],
  ]);
  // Every other Lease aged by a day: an old kube-apiserver identity, node heartbeats, KCM's and
  // the scheduler's leader Leases (a restarted control plane leaves such) stay unreported.
  const old = '2020-01-01T00:00:00.000000Z';
  const extra = [
    ['kube-node-lease', 'kwok-node-0', {}],
    ['kube-system', 'kube-controller-manager', {}],
    ['kube-system', 'kube-scheduler', {}],
    ['kube-system', 'apiserver-old', { 'apiserver.kubernetes.io/identity': 'kube-apiserver' }],
  ] as const;
  const aged = withInventory(inventory, (d) =>
    extra.reduce(
      (data, [namespace, name, labels], i) =>
        plus(
          data,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            resource: 'leases',
            namespace,
            name,
            uid: `l${i}`,
            labels,
          },
          {
            resource: 'leases',
            body: {
              metadata: { name, namespace, uid: `l${i}`, labels },
              spec: { holderIdentity: `${name}_x`, leaseDurationSeconds: 15, renewTime: old },
            },
          },
        ),
      d,
    ),
  );
  expect(summary(staleLeaderLeaseRule.check(aged, replayContext(fixture))).map((s) => s[3])).toEqual([lease]);
  // A pod of the holder's name exists: maybe stalled, not gone; not reported.
  const podName = holder!.slice(0, holder!.indexOf('_'));
  const withPod = withInventory(inventory, (d) =>
    plus(d, {
      apiVersion: 'v1',
      kind: 'Pod',
      resource: 'pods',
      namespace: 'default',
      name: podName,
      uid: 'p',
    }),
  );
  expect(staleLeaderLeaseRule.check(withPod, replayContext(fixture))).toEqual([]);
});

test.each(['helm3', 'helm4'])(
  'S21 (%s): one HelmReleaseRecordLost, linked to the finalizer and the namespace',
  (helm) => {
    const { fixture, inventory } = loadRecordedFixture(`s21-helm-release-record-lost-${helm}`);
    const { namespace, finalizer } = fixture.names;
    const findings = runRules(inventory, replayContext(fixture));
    const lost = findings.filter((f) => f.code === 'HelmReleaseRecordLost');
    expect(summary(lost)).toEqual([['HelmReleaseRecordLost', 'warning', 'ConfigMap', 'cfg']]);
    const causes = findings
      .filter((f) => lost[0]!.causedBy?.includes(f.key))
      .map((f) => [f.code, f.object.name]);
    expect(causes.sort()).toEqual([
      ['NamespaceBlockedByFinalizer', namespace],
      ['OperatorGoneFinalizer', 'cfg'],
    ]);
    expect(lost[0]!.evidence.join('\n')).toContain(`finalizers ${finalizer}`);
    // Younger than the stuck threshold: in progress, not reported.
    expect(
      helmReleaseRecordLostRule.check(inventory, replayContext(fixture, { stuckAfterSeconds: 86_400 })),
    ).toEqual([]);
  },
);

test('S21: a release this run uninstalled is not record-lost (its uninstall succeeded; the finalizer findings stay)', () => {
  const { fixture, inventory } = loadRecordedFixture('s21-helm-release-record-lost-helm4');
  const { release, releaseNamespace } = fixture.names;
  const context = replayContext(fixture, {
    removedReleases: [{ namespace: releaseNamespace!, name: release! }],
  });
  expect(helmReleaseRecordLostRule.check(inventory, context)).toEqual([]);
  expect(runRules(inventory, context).map((f) => f.code)).toContain('OperatorGoneFinalizer');
  // Another release removed by the run changes nothing.
  const other = replayContext(fixture, {
    removedReleases: [{ namespace: releaseNamespace!, name: 'other' }],
  });
  expect(helmReleaseRecordLostRule.check(inventory, other)).toHaveLength(1);
});

test('S22: the claim is reported; with its StatefulSet back it is not, and the StatefulSet gets the retained-claims note', () => {
  const { fixture, inventory } = loadRecordedFixture('s22-statefulset-claim-leftover');
  const { namespace, claim } = fixture.names;
  expect(summary(statefulSetClaimLeftoverRule.check(inventory, replayContext(fixture)))).toEqual([
    ['StatefulSetClaimLeftover', 'warning', 'PersistentVolumeClaim', claim],
  ]);
  const back = withInventory(inventory, (d) =>
    plus(d, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      resource: 'statefulsets',
      namespace,
      name: 'pg',
      uid: 's',
    }),
  );
  // Before a teardown: the StatefulSet lives, its claim has no ownerReference to it (whenDeleted
  // is not Delete), so the plan says the claim will stay.
  const notes = statefulSetClaimLeftoverRule.check(back, replayContext(fixture));
  expect(summary(notes)).toEqual([['StatefulSetClaimsRetained', 'info', 'StatefulSet', 'pg']]);
  expect(notes[0]!.message).toBe(
    `StatefulSet ${namespace}/pg keeps its claim ${claim} when it is deleted ` +
      '(persistentVolumeClaimRetentionPolicy.whenDeleted is not Delete): helm uninstall leaves it and the data, ' +
      `and only deleting namespace ${namespace} removes it`,
  );
  expect(notes[0]!.scope).toBe('environment');
  // Outside the environment: no note.
  expect(
    statefulSetClaimLeftoverRule.check(back, replayContext(fixture, { environmentNamespaces: new Set() })),
  ).toEqual([]);
  // whenDeleted: Delete makes the StatefulSet the claim's owner: nothing is kept, no note.
  const owned = withInventory(back, (d) => ({
    ...d,
    objects: d.objects.map((o) =>
      o.name === claim && o.resource === 'persistentvolumeclaims'
        ? {
            ...o,
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'pg', uid: 's', controller: true },
            ],
          }
        : o,
    ),
  }));
  expect(statefulSetClaimLeftoverRule.check(owned, replayContext(fixture))).toEqual([]);
});

test('S22: a claim is reported only with a label naming its StatefulSet: a hand-made backup-volume-2 is not', () => {
  const { fixture, inventory } = loadRecordedFixture('s22-statefulset-claim-leftover');
  const { claim } = fixture.names;
  const relabelled = (name: string, labels: Record<string, string>) =>
    withInventory(inventory, (d) => ({
      ...d,
      objects: d.objects.map((o) =>
        o.name === claim && o.resource === 'persistentvolumeclaims' ? { ...o, name, labels } : o,
      ),
    }));
  const check = (i: ReturnType<typeof relabelled>) =>
    statefulSetClaimLeftoverRule.check(i, replayContext(fixture));
  // The recorded claim carries its StatefulSet's selector labels, which name it: the evidence line says so.
  expect(check(inventory)[0]!.evidence).toContain(
    "label app.kubernetes.io/instance=pg names StatefulSet pg: the StatefulSet controller copies its selector's labels onto the claims it makes",
  );
  // Named like <template>-<statefulset>-<ordinal> and labelled, but no label names StatefulSet "volume".
  expect(check(relabelled('backup-volume-2', { app: 'backup', tier: 'storage' }))).toEqual([]);
  expect(check(relabelled('backup-volume-2', { app: 'backup-volume' }))).toEqual([]);
  // A chart's selector names its StatefulSet (`<release>-postgresql`) by the release or the chart.
  const [bitnami] = check(
    relabelled('data-my-postgresql-0', {
      'app.kubernetes.io/instance': 'my',
      'app.kubernetes.io/name': 'postgresql',
    }),
  );
  expect(bitnami!.message).toContain('claim template data of StatefulSet my-postgresql, ordinal 0');
});

test('S23: CSIDriverGone; with the attacher’s leader Lease renewed, StuckFinalizer taking it as the controller', () => {
  const { fixture, inventory } = loadRecordedFixture('s23-csi-driver-gone');
  const { attachment, finalizer } = fixture.names;
  const context = replayContext(fixture);
  expect(summary(csiDriverGoneRule.check(inventory, context))).toEqual([
    ['CSIDriverGone', 'error', 'VolumeAttachment', attachment],
  ]);
  expect(stuckFinalizerRule.check(inventory, context)).toEqual([]);
  const leaseName = `external-attacher-leader-${finalizer!.slice('external-attacher/'.length)}`;
  const live = withInventory(inventory, (d) =>
    plus(
      d,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        resource: 'leases',
        namespace: 'storage',
        name: leaseName,
        uid: 'al',
      },
      {
        resource: 'leases',
        body: {
          metadata: { name: leaseName, namespace: 'storage', uid: 'al' },
          spec: { holderIdentity: 'csi-attacher-0', leaseDurationSeconds: 15, renewTime: d.takenAt },
        },
      },
    ),
  );
  expect(csiDriverGoneRule.check(live, context)).toEqual([]);
  const [stuck] = stuckFinalizerRule.check(live, context);
  expect(stuck!.code).toBe('StuckFinalizer');
  expect(stuck!.evidence.join('\n')).toContain(
    `leases.coordination.k8s.io storage/${leaseName} (the attacher leader Lease of the driver; renewed 0s before the snapshot`,
  );
});
