/**
 * A teardown scope that holds a GitOps controller's release and its own applications deletes the
 * applications leaf first, their app of apps after, and the controller's release last (issue 23).
 * Built for real: chart `argocd` ships CRD applications.argoproj.io in crds/ (no controller runs:
 * nothing holds the applications, so the order shows in the requests alone), installed into
 * `<id>-gitops`; Applications `bootstrap` (the app of apps) and `shop` and `infra`, which carry
 * Argo CD's tracking id naming `bootstrap`. The teardown must DELETE shop and infra, wait for them,
 * and only then DELETE bootstrap (the audit log's order), before helm uninstalls argocd. Before
 * this, all three went in one deletecollection.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince } from '../support/audit.js';
import { adminApi, createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import { createObject } from '../rules/support/scenario.js';
import { helm4Ok, writeChart } from '../rules/support/helm.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

const crdName = 'applications.argoproj.io';

const argocdChart = () =>
  writeChart('argocd', {
    'crds/application.yaml': [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      `  name: ${crdName}`,
      'spec:',
      '  group: argoproj.io',
      '  scope: Namespaced',
      '  names: { kind: Application, plural: applications, singular: application, listKind: ApplicationList }',
      '  versions:',
      '    - name: v1alpha1',
      '      served: true',
      '      storage: true',
      '      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }',
      '',
    ].join('\n'),
    'templates/config.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata: {}\n',
  });

const application = (ns: string, name: string, parent?: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: {
    name,
    ...(parent
      ? {
          annotations: {
            'argocd.argoproj.io/tracking-id': `${parent}:argoproj.io/Application:${ns}/${name}`,
          },
        }
      : {}),
  },
  spec: { project: 'default' },
});

test('teardown: leaf applications are deleted and gone before their app of apps, then the controller release goes', async () => {
  const id = uniqueName('gitops-order');
  const ns = `${id}-gitops`;
  const chart = argocdChart();
  try {
    await createNamespace(api, ns);
    await helm4Ok(['install', 'argocd', chart.path, '-n', ns]);
    const apps = `/apis/argoproj.io/v1alpha1/namespaces/${ns}/applications`;
    await createObject(api, apps, application(ns, 'bootstrap'));
    await createObject(api, apps, application(ns, 'shop', 'bootstrap'));
    await createObject(api, apps, application(ns, 'infra', 'bootstrap'));

    const mark = auditMark();
    const { report, log } = await runAction({ mode: 'teardown', namespaces: ns });
    expect(report.teardown!.stages.map((st) => st.releases.map((r) => [r.release, r.status]))).toEqual([
      [[`${ns}/argocd`, 'uninstalled']],
    ]);
    expect(report.teardown!.stages.flatMap((st) => st.remaining)).toEqual([]);
    expect(log).toEqual(
      expect.arrayContaining([
        `  GitOps applications, wave 1 of 2 (leaf applications first): Application ${ns}/infra, Application ${ns}/shop`,
        `  GitOps applications, wave 2 of 2 (leaf applications first): Application ${ns}/bootstrap`,
      ]),
    );
    const deletes = kubeSweepRequestsSince(mark)
      .filter(
        (e) =>
          (e.verb === 'delete' || e.verb === 'deletecollection') && e.requestURI.includes('/applications'),
      )
      .map(
        (e) => `${e.verb} ${e.requestURI.replace(/\?.*$/, '').split('/applications')[1] || '(collection)'}`,
      );
    // Wave by wave, one by one; the namespace's emptying (a deletecollection) comes only after.
    expect(deletes.slice(0, 3)).toEqual(['delete /infra', 'delete /shop', 'delete /bootstrap']);
    expect(deletes.slice(3).every((d) => d.startsWith('deletecollection'))).toBe(true);
  } finally {
    chart.remove();
    await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    await waitGone(api, `/api/v1/namespaces/${ns}`);
  }
}, 240_000);
