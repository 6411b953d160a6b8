/**
 * S03: the namespace holds both the operator (a Deployment) and its custom resources; deleting
 * the namespace deletes the operator with them, and the finalizer stays. Built for real (the
 * operator never runs here: no one removes the finalizer); the rules must say the operator is
 * gone, with the hint that it may have lived in the namespace being deleted.
 */
import { createNamespace, getOrUndefined, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createDeployment,
  createWidget,
  createWidgetCrd,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S03: OperatorGoneFinalizer with the hint that its controller lived in the namespace being deleted', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s03');
  const group = `${id}.example.com`;
  const finalizer = `${group}/cleanup`;
  const ns = `${id}-argocd`;
  const crd = await createWidgetCrd(api, group);
  const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/app1`;
  try {
    await createNamespace(api, ns);
    await createDeployment(api, ns, 'application-controller', 0);
    await createWidget(api, group, ns, 'app1', [finalizer]);
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    await waitForCondition(api, `/api/v1/namespaces/${ns}`, 'NamespaceFinalizersRemaining');
    expect(
      await getOrUndefined(api, `/apis/apps/v1/namespaces/${ns}/deployments/application-controller`),
    ).toBeUndefined();

    const inventory = await snapshot(api);
    recordFixture('s03-operator-in-deleted-namespace', inventory, {
      scenario: 'S03 The namespace holds both the operator and its CRs',
      names: { group, crd, namespace: ns, finalizer },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [crd] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name])).toEqual([
      ['NamespaceBlockedByFinalizer', 'Namespace', ns],
      ['OperatorGoneFinalizer', 'Widget', 'app1'],
    ]);
    const [blocked, gone] = mine;
    expect(blocked!.causedBy).toEqual([gone!.key]);
    expect(gone!.evidence).toContain(
      `namespace ${ns} is Terminating: if the controller for this finalizer lived in the namespace being ` +
        'deleted, it was deleted with it (delete such objects before their namespace)',
    );
  } finally {
    await removeFinalizers(api, widgetPath);
    await deleteNamespaceAndWait(api, ns);
    await deleteCrdAndWait(api, crd);
  }
});
