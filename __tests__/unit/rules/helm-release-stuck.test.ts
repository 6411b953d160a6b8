import type { InventoryData } from '../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { helmReleaseStuckRule } from '../../../src/rules/helm-release-stuck.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = helmReleaseStuckRule;

const isRelease = (o: ObjectMetadata) => o.resource === 'secrets' && o.name.startsWith('sh.helm.release.v1.');

/** The snapshot with the release Secrets' labels changed by `labels`, plus `extra` objects. */
function relabel(
  data: InventoryData,
  labels: (l: Readonly<Record<string, string>>) => Record<string, string>,
  extra: ObjectMetadata[] = [],
): InventoryData {
  return {
    ...data,
    objects: [
      ...data.objects.map((o) => (isRelease(o) ? { ...o, labels: labels(o.labels ?? {}) } : o)),
      ...extra,
    ],
  };
}

test('S15: a killed install is HelmReleaseStuck pending-install, with uninstall as the remedy', () => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  const { namespace: ns } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    key: `HelmReleaseStuck:helm release ${ns}/slow`,
    code: 'HelmReleaseStuck',
    severity: 'error',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'sh.helm.release.v1.slow.v1' },
  });
  expect(f!.message).toMatch(
    new RegExp(
      `^Helm release ${ns}/slow is pending-install \\(revision 1, last modified \\d+s ago\\): only the helm client`,
    ),
  );
  expect(f!.evidence).toEqual([
    `release: ${ns}/slow`,
    'status: pending-install (label of Secret sh.helm.release.v1.slow.v1)',
    'revision: 1 (revisions stored: v1 pending-install)',
    expect.stringMatching(/^release Secret created: \d{4}-\d\d-\d\dT.*Z \(\d+s ago\), no modifiedAt label$/),
    'Helm keeps no lock or heartbeat in the cluster: whether a helm client still works on this release cannot be told from the snapshot',
  ]);
  expect(f!.remediation.commands).toEqual([
    `helm history -n ${ns} -- slow`,
    `kubectl get secrets -n ${ns} -l owner=helm,name=slow --show-labels`,
    expect.stringMatching(/^# once no helm client works on it any more/),
    `helm uninstall -n ${ns} -- slow`,
  ]);
  expect(rule.check(inventory, replayContext(fixture, { environmentNamespaces: new Set() }))[0]!.scope).toBe(
    'cluster',
  );
});

test('a pending release younger than the threshold is an operation in progress; modifiedAt gives the age', () => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  expect(rule.check(inventory, replayContext(fixture, { stuckAfterSeconds: 3600 }))).toEqual([]);
  const now = Date.parse(fixture.inventory.takenAt);
  const modified = withInventory(inventory, (d) =>
    relabel(d, (l) => ({ ...l, modifiedAt: String(Math.floor(now / 1000) - 7200) })),
  );
  const [f] = rule.check(modified, replayContext(fixture, { stuckAfterSeconds: 3600 }));
  expect(f!.evidence[3]).toMatch(/^last modified by Helm: .* \(2h ago, modifiedAt label\)$/);
});

test('a pending upgrade offers a rollback to the last deployed revision', () => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  const { namespace: ns } = fixture.names;
  const v1 = inventory.objects.find(isRelease)!;
  const upgraded = withInventory(inventory, (d) =>
    relabel(d, (l) => ({ ...l, status: 'deployed' }), [
      {
        ...v1,
        uid: 'v2-uid',
        name: 'sh.helm.release.v1.slow.v2',
        labels: { ...v1.labels, status: 'pending-upgrade', version: '2' },
      },
    ]),
  );
  const [f] = rule.check(upgraded, replayContext(fixture));
  expect(f!.object.name).toBe('sh.helm.release.v1.slow.v2');
  expect(f!.evidence).toEqual(
    expect.arrayContaining([
      'revision: 2 (revisions stored: v1 deployed, v2 pending-upgrade)',
      'last deployed revision: 1',
    ]),
  );
  expect(f!.remediation.commands.slice(-2)).toEqual([
    '# or, to keep the release, roll back to the last deployed revision 1:',
    `helm rollback -n ${ns} -- slow 1`,
  ]);
});

test('failed is a warning reported at once; deployed, superseded and uninstalled are not reported', () => {
  const { fixture, inventory } = loadRecordedFixture('s15-helm-pending-install');
  const as = (status: string) => withInventory(inventory, (d) => relabel(d, (l) => ({ ...l, status })));
  const [failed] = rule.check(as('failed'), replayContext(fixture, { stuckAfterSeconds: 3600 }));
  expect(failed).toMatchObject({ severity: 'warning', code: 'HelmReleaseStuck' });
  for (const status of ['deployed', 'superseded', 'uninstalled'])
    expect(rule.check(as(status), replayContext(fixture))).toEqual([]);
});

test('S16: uninstalling names the hook Job, what remains, and --no-hooks last after its warning', () => {
  const { fixture, inventory } = loadRecordedFixture('s16-helm-uninstalling');
  const { namespace: ns } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({ severity: 'error', scope: 'environment' });
  expect(f!.message).toMatch(
    new RegExp(
      `^Helm release ${ns}/hooked is uninstalling \\(revision 1, last modified \\d+s ago\\): an uninstall stopped half-way`,
    ),
  );
  expect(f!.evidence).toEqual([
    `release: ${ns}/hooked`,
    'status: uninstalling (label of Secret sh.helm.release.v1.hooked.v1)',
    'revision: 1 (revisions stored: v1 uninstalling)',
    expect.stringMatching(/^last modified by Helm: .*, modifiedAt label\)$/),
    `hook jobs.batch ${ns}/cleanup (helm.sh/hook: pre-delete): Helm records no release on hook objects, so it may belong to another release of namespace ${ns}`,
    `1 object annotated with this release remain: configmaps ${ns}/cfg`,
  ]);
  expect(f!.remediation.commands).toEqual([
    `helm history -n ${ns} -- hooked`,
    `kubectl get secrets -n ${ns} -l owner=helm,name=hooked --show-labels`,
    `kubectl get jobs.batch cleanup -n ${ns} -o yaml`,
    '# fix what the hook waits for, or delete the hook object so that it is created afresh:',
    `kubectl delete jobs.batch cleanup -n ${ns}`,
    '# then run the uninstall again:',
    `helm uninstall -n ${ns} -- hooked`,
    expect.stringMatching(/^# WARNING: --no-hooks skips the pre-delete and post-delete hooks/),
    `helm uninstall -n ${ns} --no-hooks -- hooked`,
  ]);
});

test('no release Secrets, no findings; other owners of sh.helm.release names are ignored', () => {
  const { fixture, inventory } = loadRecordedFixture('s16-helm-uninstalling');
  const foreign = withInventory(inventory, (d) => relabel(d, (l) => ({ ...l, owner: 'someone' })));
  expect(rule.check(foreign, replayContext(fixture))).toEqual([]);
});
