/**
 * S04: a ValidatingWebhookConfiguration with failurePolicy Fail points at a Service that does
 * not exist; it rejects both the finalizer removal and the namespace controller's deletes.
 * Built for real; the rules must report the webhook (WebhookBackendMissing) and tie the stuck
 * namespace to it.
 */
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
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

test('S04: WebhookBackendMissing, and the namespace whose deletes it rejects is linked to it', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s04');
  const group = `${id}.example.com`;
  const ns = `${id}-vm`;
  const configuration = `${id}-vm-admission`;
  const webhook = `validate.${id}.example.com`;
  const configurationPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${configuration}`;
  const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/w1`;
  const crd = await createWidgetCrd(api, group);
  try {
    await createNamespace(api, ns);
    await createWidget(api, group, ns, 'w1', [cleanupFinalizer]);
    await api.request({
      method: 'POST',
      path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: configuration },
        webhooks: [
          {
            name: webhook,
            rules: [
              {
                apiGroups: [group],
                apiVersions: ['v1'],
                resources: ['widgets'],
                operations: ['UPDATE', 'DELETE'],
              },
            ],
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            clientConfig: { service: { namespace: ns, name: 'vm-operator', path: '/validate', port: 443 } },
          },
        ],
      },
    });
    // The finalizer cannot be removed by hand any more.
    const patch = await removeFinalizers(api, widgetPath).catch((e: unknown) => e);
    expect((patch as KubernetesApiError).apiMessage).toContain(`failed calling webhook "${webhook}"`);
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    const conditions = await waitForCondition(
      api,
      `/api/v1/namespaces/${ns}`,
      'NamespaceDeletionContentFailure',
    );
    expect(conditions.find((c) => c.type === 'NamespaceDeletionContentFailure')?.message).toContain(
      `failed calling webhook "${webhook}"`,
    );

    const inventory = await snapshot(api);
    recordFixture('s04-webhook-backend-missing', inventory, {
      scenario: 'S04 Validating webhook with a dead backend blocks finalizer removal and namespace cleanup',
      names: { group, crd, namespace: ns, configuration, webhook },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [crd, configuration] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.severity, f.scope])).toEqual([
      ['NamespaceContentDeletionFailed', 'Namespace', ns, 'error', 'environment'],
      ['WebhookBackendMissing', 'ValidatingWebhookConfiguration', configuration, 'error', 'environment'],
    ]);
    const [failed, backend] = mine;
    expect(failed!.causedBy).toEqual([backend!.key]);
    expect(failed!.evidence).toContain(
      `admission webhook ${webhook} belongs to ValidatingWebhookConfiguration ${configuration}`,
    );
    expect(backend!.evidence).toEqual([
      `webhook ${webhook} → service ${ns}/vm-operator port 443 path /validate: service vm-operator does not exist in namespace ${ns}`,
      `webhook ${webhook} failurePolicy: Fail`,
      `webhook ${webhook} rule: apiGroups [${group}] apiVersions [v1] resources [widgets] operations [UPDATE, DELETE]`,
    ]);
    expect(backend!.remediation.commands).toEqual([
      `kubectl get validatingwebhookconfiguration ${configuration} -o yaml`,
      `kubectl delete validatingwebhookconfiguration ${configuration}`,
      '# or keep it, but stop it from rejecting requests until its backend is back:',
      `kubectl patch validatingwebhookconfiguration ${configuration} --type json -p '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]'`,
    ]);
  } finally {
    await deleteIfPresent(api, configurationPath);
    await waitGone(api, configurationPath);
    await removeFinalizers(api, widgetPath);
    await deleteNamespaceAndWait(api, ns);
    await deleteCrdAndWait(api, crd);
  }
});
