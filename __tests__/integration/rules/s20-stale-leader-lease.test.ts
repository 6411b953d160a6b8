/**
 * S20: a removed controller's leader-election Lease stays in kube-system, and liveness evidence
 * must be live. Built for real: Lease `kube-system/<id>-widget-controller` last renewed 30
 * minutes ago by a pod that does not exist, and a ConfigMap held by the finalizer `<id>.io/cleanup`
 * whose name shares the Lease's words. The rules must report the stale Lease (StaleLeaderLease)
 * and keep the finalizer finding OperatorGoneFinalizer, naming the Lease as not taken. Renewed,
 * the Lease is taken as the controller (StuckFinalizer) and no longer stale. A Deployment named
 * like the controller counts only once it has an available replica (kwok runs its pod). Clean:
 * the control plane's own Leases (kube-apiserver identity, node heartbeats) are never reported.
 */
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { staleLeaderLeaseRule } from '../../../src/rules/stale-leader-lease.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { clusterEnv, createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createDeployment,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  microTime,
  recordFixture,
  removeFinalizers,
  scenarioContext,
  snapshot,
  waitAvailable,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S20: a stale Lease is reported and no longer passes for a live controller', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s20');
  const lease = `${id}-widget-controller`;
  const holder = `${id}-widget-controller-7f9c6d-abcde_0a1b`;
  const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${lease}`;
  const ns = `${id}-app`;
  const ops = `${id}-ops`;
  const finalizer = `${id}.io/cleanup`;
  const held = `/api/v1/namespaces/${ns}/configmaps/settings`;
  try {
    await createObject(api, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: lease },
      spec: {
        holderIdentity: holder,
        leaseDurationSeconds: 60,
        acquireTime: microTime(1800),
        renewTime: microTime(1800),
      },
    });
    await createNamespace(api, ns);
    await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', finalizers: [finalizer] },
    });
    await api.request({ method: 'DELETE', path: held });

    const inventory = await snapshot(api);
    recordFixture('s20-stale-leader-lease', inventory, {
      scenario: 'S20 a removed controller left its leader-election Lease in kube-system',
      names: { lease, holder, namespace: ns, finalizer },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.severity, f.object.kind, f.object.namespace, f.object.name])).toEqual(
      expect.arrayContaining([
        ['OperatorGoneFinalizer', 'error', 'ConfigMap', ns, 'settings'],
        ['StaleLeaderLease', 'info', 'Lease', 'kube-system', lease],
      ]),
    );
    expect(mine).toHaveLength(2);
    const stale = mine.find((f) => f.code === 'StaleLeaderLease')!;
    expect(stale.message).toMatch(
      new RegExp(
        `^leases.coordination.k8s.io kube-system/${lease} was last renewed 30m\\d*s? ago \\(leaseDurationSeconds 60\\) ` +
          `by ${holder}, and no pod ${id}-widget-controller-7f9c6d-abcde exists: the leader-election Lease of a ` +
          'controller that no longer runs$',
      ),
    );
    expect(stale.remediation.commands.at(-1)).toBe(`kubectl delete lease ${lease} -n kube-system`);
    const gone = mine.find((f) => f.code === 'OperatorGoneFinalizer')!;
    expect(gone.evidence.join('\n')).toMatch(
      new RegExp(
        `not live, so not taken: leases.coordination.k8s.io kube-system/${lease} \\(name matches ${id}; ` +
          `renewed 30m\\d*s? before the snapshot, past its leaseDurationSeconds 60 \\+ 10 s grace, holder ${holder}\\)`,
      ),
    );

    // Renewed now, as a live holder would: it is taken as the controller and is not stale.
    await api.request({
      method: 'PATCH',
      path: leasePath,
      contentType: 'application/merge-patch+json',
      body: { spec: { renewTime: microTime(0) } },
    });
    const renewed = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]);
    expect(renewed.map((f) => f.code)).toEqual(['StuckFinalizer']);
    expect(renewed[0]!.key).toBe(`StuckFinalizer:${finalizerGroupSubject(ns, finalizer)}`);
    expect(renewed[0]!.evidence.join('\n')).toMatch(
      new RegExp(
        `taken as its controller \\(live, and its name, namespace or app label carries the word ${id} \\(from ${finalizer}\\)\\): ` +
          `leases.coordination.k8s.io kube-system/${lease} \\(name matches ${id}; renewed \\d+s before the snapshot, ` +
          'within its leaseDurationSeconds 60 \\+ 10 s grace',
      ),
    );

    // Gone again; a Deployment named like the controller counts only with an available replica.
    await deleteIfPresent(api, leasePath);
    await createNamespace(api, ops);
    await createDeployment(api, ops, `${id}-widget-operator`, 0);
    const scaledDown = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]);
    expect(scaledDown.map((f) => f.code)).toEqual(['OperatorGoneFinalizer']);
    expect(scaledDown[0]!.evidence.join('\n')).toContain(
      `not live, so not taken: deployments.apps ${ops}/${id}-widget-operator (name matches ${id}; 0 of 0 replicas available)`,
    );
    if (!clusterEnv().kwok) throw new Error('this test needs kwok (test/cluster/up.sh starts it when built)');
    await api.request({
      method: 'PATCH',
      path: `/apis/apps/v1/namespaces/${ops}/deployments/${id}-widget-operator`,
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 1 } },
    });
    await waitAvailable(api, ops, `${id}-widget-operator`);
    const running = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]);
    expect(running.map((f) => f.code)).toEqual(['StuckFinalizer']);
    expect(running[0]!.evidence.join('\n')).toContain(
      `taken as its controller (live, and its name, namespace or app label carries the word ${id} (from ${finalizer})): ` +
        `deployments.apps ${ops}/${id}-widget-operator (name matches ${id}; 1 of 1 replicas available)`,
    );
  } finally {
    await deleteIfPresent(api, leasePath);
    await removeFinalizers(api, held);
    await deleteNamespaceAndWait(api, ns);
    await deleteNamespaceAndWait(api, ops);
  }
});

test('clean: the control plane’s own Leases, and a Lease renewed in time, are never reported', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s20-clean');
  try {
    await createNamespace(api, ns);
    await createObject(api, `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'app-leader' },
      spec: { holderIdentity: 'no-such-pod_1', leaseDurationSeconds: 15, renewTime: microTime(0) },
    });
    const inventory = await snapshot(api);
    const leases = inventory.full.leases as { metadata: { name: string; namespace: string } }[];
    const own = leases.filter((l) => ['kube-system', 'kube-node-lease', ns].includes(l.metadata.namespace));
    // kube-apiserver's identity Lease (kube-system), and kwok's node heartbeat when kwok runs.
    expect(own.filter((l) => l.metadata.namespace === 'kube-system').length).toBeGreaterThan(0);
    const findings = runRules(
      inventory,
      { ...scenarioContext([ns]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [staleLeaderLeaseRule],
    );
    const names = new Set(own.map((l) => `${l.metadata.namespace}/${l.metadata.name}`));
    expect(findings.filter((f) => names.has(`${f.object.namespace}/${f.object.name}`))).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
});
