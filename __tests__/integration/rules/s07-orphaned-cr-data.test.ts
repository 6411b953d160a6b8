/**
 * S07: a CRD force-finalized (its customresourcecleanup finalizer removed by hand) while an
 * instance with a finalizer exists. Built for real: the CRD is gone, etcd still stores the
 * instance. With `etcd-endpoint` the scan reports OrphanedCRDataInEtcd; without it, nothing.
 * Then the remedy: the CRD created again serves the old object, which is cleaned up properly.
 */
import { runAction } from '../support/action.js';
import { clusterEnv, createNamespace, getOrUndefined, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createWidget,
  createWidgetCrd,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  recordFixture,
  removeFinalizers,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S07: OrphanedCRDataInEtcd for instances of a force-finalized CRD (etcd read), none without it', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s07');
  const group = `${id}.example.com`;
  const ns = `${id}-ns1`;
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;
  const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/w1`;
  let crd = await createWidgetCrd(api, group);
  try {
    await createNamespace(api, ns);
    await createWidget(api, group, ns, 'w1', [cleanupFinalizer]);
    await api.request({ method: 'DELETE', path: crdPath });
    await waitForCondition(api, crdPath, 'Terminating');
    await removeFinalizers(api, crdPath); // the force-finalize of S07
    await waitGone(api, crdPath);

    const inputs = { mode: 'scan', namespaces: ns, 'fail-on': 'never' };
    const without = await runAction(inputs);
    expect(without.report.findings!.filter((f) => f.code === 'OrphanedCRDataInEtcd')).toEqual([]);

    const { report } = await runAction({ ...inputs, 'etcd-endpoint': clusterEnv().etcdEndpoint });
    const mine = report.findings!.filter((f) => f.code === 'OrphanedCRDataInEtcd');
    expect(mine.map((f) => [f.object.kind, f.object.name, f.scope, f.severity])).toEqual([
      ['CustomResourceDefinition', `widgets.${group}`, 'environment', 'warning'],
    ]);
    expect(mine[0]!.evidence).toEqual([
      `etcd ${clusterEnv().etcdEndpoint}: 1 key under /registry/${group}/widgets/`,
      `for example: ${ns}/w1`,
      `in namespaces: ${ns}`,
      `no CustomResourceDefinition widgets.${group} and no served resource widgets in group ${group}`,
    ]);
    expect(report.inventory!.coverage).toEqual([]);
    recordFixture('s07-orphaned-cr-data', await snapshot(api, { endpoint: clusterEnv().etcdEndpoint }), {
      scenario: 'S07 a CRD force-finalized while an instance with a finalizer exists',
      names: { namespace: ns, group },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [], etcdGroups: [group] },
    });

    // The remedy: the CRD again serves the stored object, deletionTimestamp and finalizer included.
    crd = await createWidgetCrd(api, group);
    const back = await getOrUndefined<{ metadata: { deletionTimestamp?: string; finalizers?: string[] } }>(
      api,
      widgetPath,
    );
    expect(back?.metadata.finalizers).toEqual([cleanupFinalizer]);
  } finally {
    if (!(await getOrUndefined(api, crdPath))) crd = await createWidgetCrd(api, group);
    await removeFinalizers(api, widgetPath);
    await deleteNamespaceAndWait(api, ns);
    await deleteCrdAndWait(api, crd);
  }
}, 180_000);
