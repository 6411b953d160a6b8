/**
 * `remediate: safe` on the real control plane, through the action: S10 remediated (the missing
 * namespace re-created and deleted properly, the named finalizer removed, the objects actually
 * gone), a finalizer that was not named left in place, an orphan outside the scope untouched,
 * S01 and S04 registrations whose backend is gone deleted only inside the scope, and the default
 * (`remediate: none`) sending no mutating request. What kube-sweep sent is read from the API
 * server's audit log.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince, mutatingVerbs, isDryRun } from '../support/audit.js';
import { userKubeconfig, withRole } from '../support/identities.js';
import {
  adminApi,
  createApiServiceWithoutBackend,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import {
  cleanupFinalizer,
  createObject,
  createWidget,
  createWidgetCrd,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  forceFinalizeNamespace,
  removeFinalizers,
} from '../rules/support/scenario.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

const keepFinalizer = 'example.com/keep';

async function configMap(namespace: string, name: string, finalizers: string[]) {
  await createObject(api, `/api/v1/namespaces/${namespace}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, finalizers },
  });
}

/** What kube-sweep sent that changes something, as `verb uri`. */
const mutations = (mark: number) =>
  kubeSweepRequestsSince(mark)
    .filter((e) => mutatingVerbs.has(e.verb) && !isDryRun(e))
    .map((e) => `${e.verb} ${e.requestURI}`);

test('S10 remediated inside the scope: only the named finalizer goes, the orphan outside the scope stays', async () => {
  const id = uniqueName('remediate-s10');
  const group = `${id}.example.com`;
  const ns = `${id}-orphan`;
  const outside = `${id}-outside`;
  const crd = await createWidgetCrd(api, group);
  const cm = (namespace: string, name: string) => `/api/v1/namespaces/${namespace}/configmaps/${name}`;
  const widget = `/apis/${group}/v1/namespaces/${ns}/widgets/w1`;
  try {
    await createNamespace(api, ns);
    await createNamespace(api, outside);
    await configMap(ns, 'cm1', [cleanupFinalizer]);
    await configMap(ns, 'cm2', [keepFinalizer]);
    await createWidget(api, group, ns, 'w1', [cleanupFinalizer]);
    await configMap(outside, 'cm3', [cleanupFinalizer]);
    await Promise.all([forceFinalizeNamespace(api, ns), forceFinalizeNamespace(api, outside)]);
    await new Promise((r) => setTimeout(r, 1100)); // older than stuck-after
    const inputs = { mode: 'scan', namespaces: ns, 'stuck-after': '1s', 'stage-timeout': '15s' };

    // Default: report only, not one mutating request.
    let mark = auditMark();
    const dry = await runAction(inputs);
    expect(mutations(mark)).toEqual([]);
    expect(dry.report.remediation).toBeUndefined();
    expect(dry.outputs.get('remediated')).toBe('0');
    expect(
      dry.report.findings!.filter((f) => f.code === 'OrphanInMissingNamespace').map((f) => f.object.name),
    ).toEqual(['cm1', 'cm2', 'w1']); // a scan with namespaces reports that scope only: cm3 is neither reported nor touched

    mark = auditMark();
    const { report, outputs, summary, log } = await runAction({
      ...inputs,
      remediate: 'safe',
      'force-remove-finalizers': cleanupFinalizer,
    });
    const sent = mutations(mark);
    expect(report.remediation!.results.map((r) => [r.action.type, r.status])).toEqual([
      ['recreate-namespace', 'done'],
      ['remove-finalizer', 'done'],
      ['remove-finalizer', 'done'],
      ['delete-namespace', 'done'],
    ]);
    expect(sent).toEqual([
      'create /api/v1/namespaces',
      `patch ${cm(ns, 'cm1')}`,
      `patch ${widget}`,
      `delete /api/v1/namespaces/${ns}`,
    ]);
    expect(sent.some((s) => s.includes('/finalize') || s.includes(outside))).toBe(false);
    expect(outputs.get('remediated')).toBe('4');
    expect(log).toContain("## Remediating ('remediate: safe'): 4 action(s)");
    expect(summary).toContain('### Remediation (remediate: safe)');

    // The named finalizer's objects are gone; the unnamed one and the out-of-scope orphan stay.
    expect(await getOrUndefined(api, cm(ns, 'cm1'))).toBeUndefined();
    expect(await getOrUndefined(api, widget)).toBeUndefined();
    const kept = await getOrUndefined<{ metadata: { finalizers: string[] } }>(api, cm(ns, 'cm2'));
    expect(kept?.metadata.finalizers).toEqual([keepFinalizer]);
    expect(await getOrUndefined(api, cm(outside, 'cm3'))).toBeDefined();
    // The re-scan reports what is left: the unnamed finalizer, and the step is not clean.
    expect(report.verdict).toBe('leftovers');
    expect(report.remediation!.findingsBefore).toBe(dry.report.findings!.length);
    expect(schemaErrors(report)).toEqual([]);
    expect(report.findings!.some((f) => f.object.name === 'cm2' && /Finalizer$/.test(f.code))).toBe(true);
    expect(report.findings!.some((f) => f.object.name === 'cm1' || f.object.name === 'w1')).toBe(false);
  } finally {
    for (const n of [ns, outside])
      if (!(await getOrUndefined(api, `/api/v1/namespaces/${n}`)))
        await createNamespace(api, n).catch(() => {});
    await removeFinalizers(api, cm(ns, 'cm1'));
    await removeFinalizers(api, cm(ns, 'cm2'));
    await removeFinalizers(api, widget);
    await removeFinalizers(api, cm(outside, 'cm3'));
    await deleteNamespaceAndWait(api, ns);
    await deleteNamespaceAndWait(api, outside);
    await deleteCrdAndWait(api, crd);
  }
}, 240_000);

test('S01/S04 remediated inside the scope: APIService and webhook configuration deleted, the out-of-scope APIService kept', async () => {
  const id = uniqueName('remediate-s01');
  const scoped = `${id}-metrics`;
  const outside = `${id}-other`;
  // The APIServices point at a missing Service in the scoped and in the other namespace.
  const inScope = await createApiServiceWithoutBackend(api, {
    group: `${id}.in.kube-sweep.test`,
    serviceName: 'gone',
    serviceNamespace: scoped,
  });
  const notInScope = await createApiServiceWithoutBackend(api, {
    group: `${id}.out.kube-sweep.test`,
    serviceName: 'gone',
    serviceNamespace: outside,
  });
  const webhook = `${id}-webhook`;
  const apiServicePath = (name: string) => `/apis/apiregistration.k8s.io/v1/apiservices/${name}`;
  const webhookPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${webhook}`;
  try {
    await createNamespace(api, scoped);
    await createNamespace(api, outside);
    await createObject(api, '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: webhook },
      webhooks: [
        {
          name: `check.${id}.kube-sweep.test`,
          clientConfig: { service: { namespace: scoped, name: 'gone-webhook', port: 443 } },
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] },
          ],
          objectSelector: { matchLabels: { [`${id}`]: 'never' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });

    const mark = auditMark();
    const { report } = await runAction({ mode: 'scan', namespaces: scoped, remediate: 'safe' });
    expect(mutations(mark)).toEqual([`delete ${apiServicePath(inScope)}`, `delete ${webhookPath}`]);
    expect(report.remediation!.results.map((r) => [r.description, r.status])).toEqual([
      [`delete APIService ${inScope} (its backend is gone)`, 'done'],
      [
        `delete ValidatingWebhookConfiguration ${webhook} (every webhook in it calls a backend that is gone)`,
        'done',
      ],
    ]);
    expect(await getOrUndefined(api, apiServicePath(inScope))).toBeUndefined();
    expect(await getOrUndefined(api, webhookPath)).toBeUndefined();
    expect(await getOrUndefined(api, apiServicePath(notInScope))).toBeDefined();
    expect(report.findings!.some((f) => f.object.name === inScope || f.object.name === webhook)).toBe(false);
  } finally {
    await deleteIfPresent(api, apiServicePath(inScope));
    await deleteIfPresent(api, apiServicePath(notInScope));
    await deleteIfPresent(api, webhookPath);
    await deleteNamespaceAndWait(api, scoped);
    await deleteNamespaceAndWait(api, outside);
  }
}, 180_000);

test('a remediation the identity may not do is refused: recorded with the RBAC message, leftovers, never clean', async () => {
  const id = uniqueName('remediate-denied');
  const scoped = `${id}-metrics`;
  const user = uniqueName('scan-only');
  const apiService = await createApiServiceWithoutBackend(api, {
    group: `${id}.kube-sweep.test`,
    serviceName: 'gone',
    serviceNamespace: scoped,
  });
  const path = `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`;
  try {
    await createNamespace(api, scoped);
    await withRole(api, 'kube-sweep-scan.yaml', user, async () => {
      const { report, failures, outputs } = await runAction({
        mode: 'scan',
        namespaces: scoped,
        remediate: 'safe',
        kubeconfig: await userKubeconfig(user),
      });
      expect(report.remediation!.results.map((r) => [r.action.type, r.status])).toEqual([
        ['delete-apiservice', 'refused'],
      ]);
      expect(report.remediation!.results[0]!.message).toMatch(/^refused \(HTTP 403 Forbidden\): .*forbidden/);
      expect(report.remediation!.counts).toMatchObject({ done: 0, failed: 0, refused: 1 });
      // A refusal is a result: the run did its job, and what is left fails the step.
      expect(report.verdict).toBe('leftovers');
      expect(report.error).toBeUndefined();
      expect(schemaErrors(report)).toEqual([]);
      const refused = report.findings!.find((f) => f.code === 'DeletionRefused');
      expect(refused).toMatchObject({
        severity: 'error',
        scope: 'environment',
        object: { kind: 'APIService', name: apiService },
      });
      expect(refused!.message).toMatch(/forbidden/);
      expect(failures[0]).toMatch(/^leftovers: /);
      expect(outputs.get('remediated')).toBe('0');
    });
    expect(await getOrUndefined(api, path)).toBeDefined();
  } finally {
    await deleteIfPresent(api, path);
    await deleteNamespaceAndWait(api, scoped);
  }
}, 120_000);
