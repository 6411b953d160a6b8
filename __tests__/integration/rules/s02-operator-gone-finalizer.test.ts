/**
 * S02: custom resources and a core Service carry an operator finalizer, the operator is gone,
 * the namespace is deleted. Built for real; the rules must list each object with its
 * finalizer (NamespaceBlockedByFinalizer), say the operator is gone (OperatorGoneFinalizer)
 * and link the two. Then a Deployment that looks like the operator appears: StuckFinalizer.
 */
import { findingKey } from '../../../src/rules/findings.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { clusterEnv, createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createDeployment,
  createObject,
  createWidget,
  createWidgetCrd,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  snapshot,
  waitAvailable,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S02: NamespaceBlockedByFinalizer lists every object, caused by OperatorGoneFinalizer', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s02');
  const group = `${id}.example.com`;
  const ns = `${id}-kafka-test`;
  const operatorNs = `${id}-operators`;
  const crd = await createWidgetCrd(api, group);
  const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/t1`;
  const servicePath = `/api/v1/namespaces/${ns}/services/s1`;
  try {
    await createNamespace(api, ns);
    await createWidget(api, group, ns, 't1', [cleanupFinalizer]);
    await createObject(api, `/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's1', finalizers: [cleanupFinalizer] },
      spec: { type: 'ClusterIP', ports: [{ port: 80 }] },
    });
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    const conditions = await waitForCondition(
      api,
      `/api/v1/namespaces/${ns}`,
      'NamespaceFinalizersRemaining',
    );
    expect(conditions.find((c) => c.type === 'NamespaceFinalizersRemaining')?.message).toBe(
      `Some content in the namespace has finalizers remaining: ${cleanupFinalizer} in 2 resource instances`,
    );

    const inventory = await snapshot(api);
    recordFixture('s02-operator-gone-finalizer', inventory, {
      scenario: 'S02 CRs and a Service carry an operator finalizer, and the operator was uninstalled first',
      names: { group, crd, namespace: ns },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [crd] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    const subject = finalizerGroupSubject(ns, cleanupFinalizer);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.scope])).toEqual([
      ['NamespaceBlockedByFinalizer', 'Namespace', ns, 'environment'],
      ['OperatorGoneFinalizer', 'Service', 's1', 'environment'],
    ]);
    const [blocked, gone] = mine;
    expect(gone!.key).toBe(findingKey('OperatorGoneFinalizer', subject));
    expect(blocked!.causedBy).toEqual([gone!.key]);
    expect(blocked!.evidence).toEqual(
      expect.arrayContaining([
        `NamespaceContentRemaining=True (SomeResourcesRemain): Some resources are remaining: services. has 1 resource instances, widgets.${group} has 1 resource instances`,
        `NamespaceFinalizersRemaining=True (SomeFinalizersRemain): Some content in the namespace has finalizers remaining: ${cleanupFinalizer} in 2 resource instances`,
        expect.stringMatching(
          new RegExp(`^in the snapshot: services ${ns}/s1 \\[${cleanupFinalizer}\\] \\(deletionTimestamp `),
        ),
        expect.stringMatching(
          new RegExp(
            `^in the snapshot: widgets.${group.replace(/\./g, '\\.')} ${ns}/t1 \\[${cleanupFinalizer}\\]`,
          ),
        ),
      ]),
    );
    // Safe first; the finalizer strip last, after its warning.
    const commands = blocked!.remediation.commands;
    expect(commands.at(-3)).toMatch(/^# WARNING: removing finalizers/);
    expect(commands.slice(-2)).toEqual([
      `kubectl patch services s1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
      `kubectl patch widgets.${group} t1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    ]);
    expect(gone!.evidence).toContain(
      'no controller for it appears to run: no live Deployment, StatefulSet, DaemonSet (available replicas) or Lease ' +
        `(renewed within its duration) outside a Terminating namespace carries the word example (from ${cleanupFinalizer}) in its name, namespace or app label` +
        "; a guess from names: nothing in the structure (the CRD's Helm marks, OLM labels, ownerReferences) names its controller",
    );

    // A Deployment that looks like the finalizer's controller and runs (kwok runs its pod): the
    // finding softens to StuckFinalizer.
    if (!clusterEnv().kwok) throw new Error('this test needs kwok (test/cluster/up.sh starts it when built)');
    await createNamespace(api, operatorNs);
    await createDeployment(api, operatorNs, 'example-operator', 1);
    await waitAvailable(api, operatorNs, 'example-operator');
    const withOperator = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]);
    const stuck = withOperator.find((f) => f.code === 'StuckFinalizer');
    expect(withOperator.map((f) => f.code)).toEqual(['NamespaceBlockedByFinalizer', 'StuckFinalizer']);
    expect(stuck!.evidence).toContain(
      `taken as its controller (live, and its name, namespace or app label carries the word example (from ${cleanupFinalizer})): ` +
        `deployments.apps ${operatorNs}/example-operator (name matches example; 1 of 1 replicas available)` +
        "; a guess from names: nothing in the structure (the CRD's Helm marks, OLM labels, ownerReferences) names its controller",
    );
    expect(withOperator[0]!.causedBy).toEqual([findingKey('StuckFinalizer', subject)]);
  } finally {
    await removeFinalizers(api, widgetPath);
    await removeFinalizers(api, servicePath);
    await deleteNamespaceAndWait(api, ns);
    await deleteIfPresent(api, `/api/v1/namespaces/${operatorNs}`);
    await deleteCrdAndWait(api, crd);
  }
});
