/**
 * S22: StatefulSet claims survive `helm uninstall`. Built for real with Helm 4: a local chart
 * renders StatefulSet `pg` (claim template `data`, no retention policy) and StatefulSet `pg2`
 * (`whenDeleted: Delete`) in namespace `<id>-db`; the StatefulSet controller makes claims
 * `data-pg-0` and `data-pg2-0`. After the uninstall, `data-pg-0` stays (no owner, no Helm
 * annotation) and must be reported as StatefulSetClaimLeftover with its size, phase and the
 * release it came from; `data-pg2-0` goes with its StatefulSet. Clean: the claims of a
 * StatefulSet that exists are never reported as leftovers; the StatefulSet whose claim will outlive
 * it gets the StatefulSetClaimsRetained note, the one that owns its claims none.
 */
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { statefulSetClaimLeftoverRule } from '../../../src/rules/statefulset-claim-leftover.js';
import { createNamespace, uniqueName, waitGone } from '../support/cluster.js';
import { helm4Ok, summarize, writeChart } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  scenarioContext,
  snapshot,
  claimPath,
  createKeptAndOwnedStatefulSets,
  createObject,
  statefulSet,
  waitForClaim,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S22: a StatefulSet claim outlives helm uninstall: StatefulSetClaimLeftover', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s22');
  const ns = `${id}-db`;
  const release = 'pg';
  const chart = writeChart('pg', {
    'templates/statefulsets.yaml': [
      JSON.stringify(statefulSet('pg', release)),
      JSON.stringify(statefulSet('pg2', release, { whenDeleted: 'Delete' })),
    ].join('\n---\n'),
  });
  try {
    await helm4Ok(['install', release, chart.path, '-n', ns, '--create-namespace']);
    await waitForClaim(api, ns, 'data-pg-0');
    await waitForClaim(api, ns, 'data-pg2-0');
    await helm4Ok(['uninstall', release, '-n', ns]);
    // whenDeleted: Delete gives the claim an owner: the garbage collector removes it with the StatefulSet.
    await waitGone(api, claimPath(ns, 'data-pg2-0'), 90_000);
    await waitGone(api, `/apis/apps/v1/namespaces/${ns}/statefulsets/pg`);

    const inventory = await snapshot(api);
    recordFixture('s22-statefulset-claim-leftover', inventory, {
      scenario: 'S22 StatefulSet claims survive helm uninstall',
      names: { namespace: ns, release, claim: 'data-pg-0' },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(summarize(mine)).toEqual([
      ['StatefulSetClaimLeftover', 'warning', 'PersistentVolumeClaim', `${ns}/data-pg-0`, 'environment'],
    ]);
    const [f] = mine;
    expect(f!.message).toBe(
      `PersistentVolumeClaim ${ns}/data-pg-0 (1Gi, Pending) is named like claim template data of StatefulSet pg, ` +
        `ordinal 0, and no such StatefulSet exists: data left by a removed workload, which the next StatefulSet ` +
        `pg in ${ns} mounts again`,
    );
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        `name: <template>-<statefulset>-<ordinal> = data-pg-0; no StatefulSet pg (nor any other name this one splits into) in namespace ${ns}`,
        'size: 1Gi; phase: Pending; volume: (none bound)',
        `label app.kubernetes.io/instance=${release}: no release ${release} is installed in namespace ${ns}`,
      ]),
    );
    const commands = f!.remediation.commands;
    expect(commands[0]).toBe(`kubectl get persistentvolumeclaims data-pg-0 -n ${ns} -o yaml`);
    expect(commands.slice(-2)).toEqual([
      expect.stringMatching(/^# WARNING: deleting the claim loses its data/),
      `kubectl delete persistentvolumeclaim data-pg-0 -n ${ns}`,
    ]);
  } finally {
    chart.remove();
    await deleteNamespaceAndWait(api, ns);
  }
});

test('clean: the claims of a StatefulSet that exists are never leftovers; a kept claim is a note, an owned one is not', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s22-clean');
  try {
    await createKeptAndOwnedStatefulSets(api, ns, { kept: 'web-db', owned: 'cache', release: 'web' });
    const inventory = await snapshot(api);
    const findings = runRules(
      inventory,
      { ...scenarioContext([ns]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [statefulSetClaimLeftoverRule],
    );
    // Only the note that web-db's claim will outlive it (whenDeleted is not Delete); nothing
    // about cache, whose claim it owns, and no leftover anywhere in the control plane's namespaces.
    expect(
      findings
        .filter((f) => f.object.namespace === ns || !f.object.namespace?.startsWith('rules-'))
        .map((f) => [f.code, f.severity, f.object.kind, f.object.name]),
    ).toEqual([['StatefulSetClaimsRetained', 'info', 'StatefulSet', 'web-db']]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
});

test('clean: a hand-made claim named like a StatefulSet claim (backup-volume-2), labelled, is no leftover', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s22-hand');
  try {
    await createNamespace(api, ns);
    // Named <a>-<b>-<n>, labelled, no owner, and no StatefulSet "volume": but no label names one.
    await createObject(api, `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'backup-volume-2', labels: { app: 'backup', tier: 'storage' } },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: '',
        resources: { requests: { storage: '1Gi' } },
      },
    });
    const inventory = await snapshot(api);
    expect(inventory.objects.some((o) => o.namespace === ns && o.name === 'backup-volume-2')).toBe(true);
    const findings = runRules(
      inventory,
      { ...scenarioContext([ns]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [statefulSetClaimLeftoverRule],
    );
    expect(findings.filter((f) => f.object.namespace === ns)).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
});
