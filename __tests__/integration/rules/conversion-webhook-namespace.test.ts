/**
 * A namespace whose custom resources cannot be read in the preferred version because the CRD's
 * conversion webhook Service is gone (in another namespace): the namespace controller reports
 * NamespaceDeletionContentFailure quoting `conversion webhook for <group>/<version>,
 * Kind=<Kind> failed`. Built for real; the stuck namespace is linked to the CRD's
 * ConversionWebhookBackendMissing finding, which is outside the environment.
 */
import { findingKey } from '../../../src/rules/findings.js';
import { createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createCrd,
  createObject,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsOf,
  recordFixture,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('NamespaceContentDeletionFailed is caused by the ConversionWebhookBackendMissing of the CRD its message quotes', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-cv');
  const group = `${id}.example.com`;
  const ns = `${id}-env`;
  await createNamespace(api, ns);
  // v1 stores, v2 is preferred: the namespace controller lists at v2, which needs the webhook.
  const crd = await createCrd(api, {
    group,
    versions: ['v2', 'v1'],
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: {
          service: { namespace: `${id}-other`, name: 'converter', path: '/convert', port: 443 },
        },
      },
    },
  });
  try {
    await createObject(api, `/apis/${group}/v1/namespaces/${ns}/widgets`, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1' },
    });
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    const conditions = await waitForCondition(
      api,
      `/api/v1/namespaces/${ns}`,
      'NamespaceDeletionContentFailure',
      'True',
      90_000,
    );
    expect(conditions.find((c) => c.type === 'NamespaceDeletionContentFailure')?.message).toContain(
      `conversion webhook for ${group}/v1, Kind=Widget failed`,
    );
    const inventory = await snapshot(api);
    recordFixture('conversion-webhook-namespace', inventory, {
      scenario:
        'Namespace whose custom resources cannot be converted: the CRD conversion webhook Service is gone',
      names: { namespace: ns, group, crd },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [crd] },
    });
    const findings = findingsOf(inventory, [ns]);
    const conversion = findingKey('ConversionWebhookBackendMissing', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: crd,
    });
    expect(findings.find((f) => f.key === conversion)?.scope).toBe('cluster');
    expect(
      findings.find((f) => f.key === `NamespaceContentDeletionFailed:v1/Namespace//${ns}`)?.causedBy,
    ).toEqual([conversion]);
  } finally {
    await api
      .request({
        method: 'PATCH',
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { conversion: { strategy: 'None', webhook: null } } },
      })
      .catch(() => undefined);
    await deleteNamespaceAndWait(api, ns);
    await deleteCrdAndWait(api, crd);
  }
});
