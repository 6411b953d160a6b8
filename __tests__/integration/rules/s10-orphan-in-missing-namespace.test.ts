/**
 * S10: a namespace is force-finalized through /finalize while a ConfigMap and a Widget still
 * carry finalizers; they stay stored in a namespace that no longer exists. Built for real
 * (the one thing kube-sweep never does itself). Next to it, a namespace whose name extends the
 * missing one exists: names are compared exactly (seed 002), so its objects are not orphans.
 */
import { createNamespace, getOrUndefined, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createObject,
  createWidget,
  createWidgetCrd,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  forceFinalizeNamespace,
  recordFixture,
  removeFinalizers,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S10: OrphanInMissingNamespace for each object, compared by exact namespace name', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s10');
  const group = `${id}.example.com`;
  const ns = `${id}-orphan-demo`;
  const longer = `${ns}-2`;
  const crd = await createWidgetCrd(api, group);
  const configMapPath = `/api/v1/namespaces/${ns}/configmaps/cm1`;
  const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/w1`;
  try {
    await createNamespace(api, ns);
    await createNamespace(api, longer);
    await createObject(api, `/api/v1/namespaces/${longer}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kept' },
    });
    await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm1', finalizers: [cleanupFinalizer] },
    });
    await createWidget(api, group, ns, 'w1', [cleanupFinalizer]);
    await forceFinalizeNamespace(api, ns);
    expect(await getOrUndefined(api, configMapPath)).toBeDefined();

    const inventory = await snapshot(api);
    recordFixture('s10-orphan-in-missing-namespace', inventory, {
      scenario: 'S10 Namespace force-finalized: objects remain in a namespace that does not exist',
      names: { group, crd, namespace: ns, existingNamespace: longer },
      environmentNamespaces: [ns, longer],
      selection: { namespaces: [ns, longer], clusterObjects: [crd] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns, longer]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['OperatorGoneFinalizer', 'ConfigMap', ns, 'cm1'],
      ['OrphanInMissingNamespace', 'ConfigMap', ns, 'cm1'],
      ['OrphanInMissingNamespace', 'Widget', ns, 'w1'],
    ]);
    const orphan = mine[1]!;
    expect(orphan.scope).toBe('environment');
    expect(orphan.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^namespace ${ns} is not among the \\d+ namespaces listed$`)),
        `finalizers: ${cleanupFinalizer}`,
        expect.stringMatching(/^deletionTimestamp: /),
      ]),
    );
    expect(orphan.remediation.commands[0]).toBe(`kubectl create namespace ${ns}`);
    expect(orphan.remediation.commands.at(-1)).toBe(
      `kubectl patch configmaps cm1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    );
  } finally {
    // The remedy the finding gives: recreate the namespace, then the objects are writable again.
    if (!(await getOrUndefined(api, `/api/v1/namespaces/${ns}`))) await createNamespace(api, ns);
    await removeFinalizers(api, configMapPath);
    await removeFinalizers(api, widgetPath);
    await deleteNamespaceAndWait(api, ns);
    await deleteNamespaceAndWait(api, longer);
    await deleteCrdAndWait(api, crd);
  }
});
