/**
 * S06: a CRD is deleted while one of its instances carries a finalizer nobody removes. Built
 * for real; the rules must report the CRD stuck (CRDStuckTerminating) with the instance and its
 * finalizer, caused by the finalizer whose operator is gone.
 */
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { waitFor } from '../../../src/util/wait.js';
import { createNamespace, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
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

test('S06: CRDStuckTerminating lists the instance that holds it, caused by OperatorGoneFinalizer', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s06');
  const group = `${id}.example.com`;
  const ns = `${id}-ns1`;
  const crd = await createWidgetCrd(api, group);
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`;
  const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/w1`;
  try {
    await createNamespace(api, ns);
    await createWidget(api, group, ns, 'w1', [cleanupFinalizer]);
    await api.request({ method: 'DELETE', path: crdPath });
    await waitForCondition(api, crdPath, 'Terminating');
    // While the CRD is Terminating, creating its objects is refused (on v1.37 with 403, not the
    // 405 of older releases that reference.md 0.2 quotes). The API server refuses once its own
    // CRD cache sees the condition, which can lag the object just read (a fresh-clone run under
    // load got one create through): try until refused, deleting any Widget that got through.
    const refused = await waitFor(
      async () => {
        const error = await createWidget(api, group, ns, 'w2', []).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (error === undefined)
          await api.request({ method: 'DELETE', path: `/apis/${group}/v1/namespaces/${ns}/widgets/w2` });
        return { done: error !== undefined, value: error };
      },
      { timeoutMs: 30_000, description: 'creating a Widget to be refused while its CRD is Terminating' },
    );
    expect(refused).toBeInstanceOf(KubernetesApiError);
    expect((refused as KubernetesApiError).apiMessage).toContain(
      'create not allowed while custom resource definition is terminating',
    );

    const inventory = await snapshot(api);
    recordFixture('s06-crd-stuck', inventory, {
      scenario: 'S06 CRD deleted while CRs with finalizers exist',
      names: { group, crd, namespace: ns },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [crd] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.namespace, f.object.name, f.scope])).toEqual([
      ['CRDStuckTerminating', 'CustomResourceDefinition', undefined, crd, 'environment'],
      ['OperatorGoneFinalizer', 'Widget', ns, 'w1', 'environment'],
    ]);
    const [stuck, gone] = mine;
    expect(stuck!.causedBy).toEqual([gone!.key]);
    expect(stuck!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Terminating=True \(InstanceDeletion(InProgress|Check|Failed)\)/),
        'finalizers of the CRD: customresourcecleanup.apiextensions.k8s.io',
        expect.stringMatching(
          new RegExp(`^instance ${ns}/w1 \\[${cleanupFinalizer}\\] \\(deletionTimestamp `),
        ),
      ]),
    );
    expect(stuck!.remediation.commands.at(-1)).toBe(
      `kubectl patch widgets.${group} w1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    );
    expect(stuck!.remediation.commands.join('\n')).not.toMatch(/patch customresourcedefinition/);
  } finally {
    await removeFinalizers(api, widgetPath);
    await deleteCrdAndWait(api, crd);
    await deleteNamespaceAndWait(api, ns);
  }
});
