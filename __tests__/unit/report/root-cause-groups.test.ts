/**
 * Root causes grouped by remedy (report/root-causes.ts): the objects stranded in one missing
 * namespace make one entry, from the S10 snapshot recorded on the real control plane; and the
 * plan says what a teardown will meet (plan-markdown.ts `planForecast`).
 */
import { planForecast } from '../../../src/report/plan-markdown.js';
import { renderFindings } from '../../../src/report/findings-markdown.js';
import type { PlanSummary } from '../../../src/report/report.js';
import { rootCauseLabel, rootCausesOf } from '../../../src/report/root-causes.js';
import { runRules } from '../../../src/rules/index.js';
import type { InventoryData } from '../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import {
  loadRecordedFixture,
  replayContext,
  withActiveNamespace,
  withInventory,
  withStatefulSet,
} from '../rules/support/recorded-fixture.js';

const { fixture, inventory } = loadRecordedFixture('s10-orphan-in-missing-namespace');
const gone = fixture.names.namespace!;

/** The S10 snapshot with `n` more ConfigMaps stored in the missing namespace. */
function withMoreOrphans(n: number) {
  const more: ObjectMetadata[] = Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: gone,
    name: `extra-${i}`,
    uid: `extra-${i}`,
  }));
  return withInventory(inventory, (d: InventoryData) => ({ ...d, objects: [...d.objects, ...more] }));
}

test('orphans in one missing namespace make one root cause naming the count and some names', () => {
  const findings = runRules(withMoreOrphans(4), replayContext(fixture));
  const orphans = findings.filter((f) => f.code === 'OrphanInMissingNamespace');
  expect(orphans).toHaveLength(6);
  const roots = rootCausesOf(findings);
  const entries = roots.causes.filter((c) => c.finding.code === 'OrphanInMissingNamespace');
  expect(entries).toHaveLength(1);
  const [entry] = entries;
  expect(entry!.group.map((f) => f.key).sort()).toEqual(
    orphans
      .filter((f) => f.key !== entry!.finding.key)
      .map((f) => f.key)
      .sort(),
  );
  expect(rootCauseLabel(entry!)).toBe(
    `6 objects in missing namespace ${gone} (ConfigMap ${gone}/cm1, ConfigMap ${gone}/extra-0, ConfigMap ${gone}/extra-1 and 3 more)`,
  );
  // The finalizer finding the orphans cause stays linked under the one entry.
  expect(entry!.explains.map((f) => f.code)).toEqual(['OperatorGoneFinalizer']);
  // Every finding still appears once: roots (with their groups) + linked = all.
  const rooted = roots.causes.reduce((n, c) => n + 1 + c.sameObject.length + c.group.length, 0);
  expect(rooted + roots.linked).toBe(findings.length);
  // One table row for the namespace, in the summary.
  const rows = renderFindings(findings, new Set()).filter((l) => l.startsWith('| 🔴 '));
  expect(rows).toHaveLength(1);
  expect(rows[0]).toContain(`6 objects in missing namespace ${gone}`);
  expect(rows[0]).toContain(`Recreate namespace ${gone} and delete it normally`);
});

test('orphans in two different missing namespaces stay two entries', () => {
  const other = withInventory(inventory, (d) => ({
    ...d,
    objects: [
      ...d.objects,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        resource: 'configmaps',
        namespace: `${gone}-x`,
        name: 'c',
        uid: 'c',
      },
    ],
  }));
  const roots = rootCausesOf(runRules(other, replayContext(fixture)));
  expect(
    roots.causes
      .filter((c) => c.finding.code === 'OrphanInMissingNamespace')
      .map((c) => c.finding.object.namespace),
  ).toEqual([gone, `${gone}-x`].sort());
});

const plan = (namespacesToDelete: string[]): PlanSummary => ({
  namespaces: namespacesToDelete,
  protectedMatched: [],
  namespacesToDelete,
  releases: [],
  edges: [],
  stages: [],
});

test('the plan says which namespace deletion will hang, on which APIService, with the remedy', () => {
  const s01 = loadRecordedFixture('s01-stale-apiservice');
  const ns = s01.fixture.names.namespace!;
  // The environment namespace before the teardown: it exists and is not being deleted.
  const live = withActiveNamespace(s01.inventory, ns);
  const findings = runRules(live, replayContext(s01.fixture));
  const hang = findings.find((f) => f.code === 'NamespaceDeletionWillHang');
  expect(hang).toMatchObject({
    object: { kind: 'Namespace', name: ns },
    scope: 'environment',
    severity: 'warning',
  });
  const stale = findings.find((f) => f.code === 'StaleAPIService')!;
  expect(hang!.causedBy).toEqual([stale.key]);
  const lines = planForecast(plan([ns]), findings);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(
    `**Namespace deletion will hang:** Deleting namespace ${ns} will hang in Terminating`,
  );
  expect(lines[0]).toContain(
    `cannot discover ${s01.fixture.names.group}/v1beta1 \\(APIService ${s01.fixture.names.apiService}, `,
  );
  expect(lines[0]).toContain(
    `Restore the backend of APIService ${s01.fixture.names.apiService} \\(service kube-system/`,
  );
  // Not deleted by this plan: nothing to forecast.
  expect(planForecast(plan([]), findings)).toEqual([]);
  // The recorded snapshot itself (the namespace already Terminating): namespace-stuck says it, not this.
  expect(runRules(s01.inventory, replayContext(s01.fixture)).map((f) => f.code)).not.toContain(
    'NamespaceDeletionWillHang',
  );
});

test('the plan says which StatefulSet claims will stay, and whether the namespace deletion removes them', () => {
  const s22 = loadRecordedFixture('s22-statefulset-claim-leftover');
  const ns = s22.fixture.names.namespace!;
  const back = withStatefulSet(s22.inventory, ns, 'pg');
  const findings = runRules(back, replayContext(s22.fixture));
  expect(planForecast(plan([ns]), findings)).toEqual([
    expect.stringMatching(
      new RegExp(
        `^- Claims that will stay after the uninstall: StatefulSet ${ns}/pg keeps its claim ${s22.fixture.names.claim} .*; this teardown deletes namespace \`${ns}\` afterwards, which removes them\\.$`,
      ),
    ),
  ]);
  expect(planForecast(plan([]), findings)).toEqual([
    expect.stringMatching(new RegExp(`this teardown does not delete namespace \`${ns}\`: they stay\\.$`)),
  ]);
});
