/**
 * Every object a teardown leaves behind gets a diagnosis (report `leftovers`), and the finding
 * that explains it is reported in full even when its object lies outside the environment: a
 * cluster-scoped object of the release, a CRD whose conversion webhook is gone, an APIService
 * without backend, an admission webhook whose backend lived in another namespace. Each fault is
 * built for real on the local control plane; plus a namespace held by its own metadata
 * finalizer, and a healthy environment that must end clean with no finding.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { findingKey, type Finding } from '../../../src/rules/findings.js';
import type { Report } from '../../../src/report/report.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { runAction } from '../support/action.js';
import {
  adminApiForSuite,
  createApiServiceWithoutBackend,
  createNamespace,
  deleteIfPresent,
  uniqueName,
} from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import {
  createCrd,
  createObject,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  removeFinalizers,
  waitForCondition,
} from '../rules/support/scenario.js';

const suiteApi = adminApiForSuite();

/** The diagnosis of the leftover `kind`/`name`, and the report's findings by key. */
function diagnosisOf(report: Report, kind: string, name: string) {
  const d = report.leftovers?.find((l) => l.object.kind === kind && l.object.name === name);
  const byKey = new Map((report.findings ?? []).map((f) => [f.key, f]));
  return { d, rootCauses: (d?.rootCauses ?? []).map((k) => byKey.get(k)) as (Finding | undefined)[] };
}

async function deleteNamespaceEventually(api: ApiClient, ns: string) {
  await deleteNamespaceAndWait(api, ns, 120_000).catch(() =>
    deleteIfPresent(api, `/api/v1/namespaces/${ns}`),
  );
}

test('a cluster-scoped object of the release left with a finalizer: the still-there row links to its full finding', async () => {
  const api = suiteApi();
  const ns = uniqueName('diag-cs');
  const clusterRole = `${ns}-held-reader`;
  const r = await helm4(['install', 'held', chart('held'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '5s' });
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.stages[0]!.remaining.map((b) => [b.kind, b.name, b.finalizers])).toEqual([
      ['ClusterRole', clusterRole, ['example.com/hold']],
    ]);
    const key = report.findings!.find((f) =>
      [
        findingKey('OperatorGoneFinalizer', finalizerGroupSubject(undefined, 'example.com/hold')),
        findingKey('StuckFinalizer', finalizerGroupSubject(undefined, 'example.com/hold')),
      ].includes(f.key),
    )?.key;
    expect(key).toBeDefined();
    const { d, rootCauses } = diagnosisOf(report, 'ClusterRole', clusterRole);
    // Other findings about it (e.g. HelmReleaseRecordLost) may explain it too; the root is the finalizer's.
    expect(d).toMatchObject({ source: 'stage', rootCauses: [key] });
    expect(d!.findings).toContain(key);
    expect(d!.reason).toMatch(/^deleting since .*, held by finalizer example\.com\/hold$/);
    // A full finding, though its object is cluster-scoped (outside the environment).
    expect(rootCauses[0]).toMatchObject({
      scope: 'cluster',
      object: { kind: 'ClusterRole', name: clusterRole },
    });
    expect(rootCauses[0]!.remediation.commands.length).toBeGreaterThan(0);
    expect(report.failing).toContain(key);
    const row = summary.split('\n').find((l) => l.startsWith(`| \`ClusterRole ${clusterRole}\``));
    expect(row).toContain(`| \`${rootCauses[0]!.code}\` on \`ClusterRole ${clusterRole}\` |`);
    expect(summary).toContain('| object | finalizers | state | after the run | root cause (see Findings) |');
  } finally {
    await removeFinalizers(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await helm4(['uninstall', 'held', '-n', ns]);
    await deleteNamespaceEventually(api, ns);
  }
});

test('a namespace blocked by an APIService whose backend lives in another namespace: linked to StaleAPIService, reported in full', async () => {
  const api = suiteApi();
  const id = uniqueName('diag-as');
  const ns = `${id}-env`;
  const backendNs = `${id}-backend`;
  await createNamespace(api, ns);
  await createNamespace(api, backendNs);
  const name = await createApiServiceWithoutBackend(api, {
    group: `${id}.kube-sweep.test`,
    serviceName: 'gone',
    serviceNamespace: backendNs,
  });
  const path = `/apis/apiregistration.k8s.io/v1/apiservices/${name}`;
  try {
    await waitForCondition(api, path, 'Available', 'False');
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '15s' });
    expect(report.verdict).not.toBe('clean');
    expect(report.teardown!.namespaces[0]).toMatchObject({ name: ns, status: 'stuck' });
    const stale = findingKey('StaleAPIService', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      name,
    });
    const { d, rootCauses } = diagnosisOf(report, 'Namespace', ns);
    expect(d).toMatchObject({
      source: 'namespace',
      findings: [`NamespaceBlockedByDiscovery:v1/Namespace//${ns}`],
      rootCauses: [stale],
    });
    expect(rootCauses[0]).toMatchObject({ code: 'StaleAPIService', scope: 'cluster' });
    expect(summary).toContain(`- root cause (see Findings): \`StaleAPIService\` on \`APIService ${name}\``);
  } finally {
    await deleteIfPresent(api, path);
    await deleteNamespaceEventually(api, ns);
    await deleteNamespaceEventually(api, backendNs);
  }
});

test('a namespace whose custom resources cannot be converted (CRD conversion webhook gone): linked to the CRD', async () => {
  const api = suiteApi();
  const id = uniqueName('diag-cv');
  const group = `${id}.kube-sweep.test`;
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
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '15s' });
    expect(report.verdict).not.toBe('clean');
    const conversion = findingKey('ConversionWebhookBackendMissing', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: crd,
    });
    const { d, rootCauses } = diagnosisOf(report, 'Namespace', ns);
    expect(d?.source).toBe('namespace');
    expect(d?.findings).toContain(`NamespaceContentDeletionFailed:v1/Namespace//${ns}`);
    expect(d?.rootCauses).toEqual([conversion]);
    expect(rootCauses[0]).toMatchObject({ scope: 'cluster', object: { name: crd } });
    expect(summary).toContain(
      `- root cause (see Findings): \`ConversionWebhookBackendMissing\` on \`CustomResourceDefinition ${crd}\``,
    );
  } finally {
    await api
      .request({
        method: 'PATCH',
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { conversion: { strategy: 'None', webhook: null } } },
      })
      .catch(() => undefined);
    await deleteNamespaceEventually(api, ns);
    await deleteCrdAndWait(api, crd);
  }
});

test('a namespace whose deletes an admission webhook rejects, its backend in another namespace: linked to the webhook', async () => {
  const api = suiteApi();
  const id = uniqueName('diag-wh');
  const ns = `${id}-env`;
  const backendNs = `${id}-backend`;
  const configuration = `${id}-guard`;
  const configurationPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${configuration}`;
  await createNamespace(api, ns);
  await createNamespace(api, backendNs);
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' } },
  });
  await api.request({
    method: 'POST',
    path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: configuration },
      webhooks: [
        {
          name: `guard.${id}.kube-sweep.test`,
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['DELETE'] },
          ],
          // Only this test's environment: the rest of the cluster is not touched.
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { namespace: backendNs, name: 'guard', path: '/validate', port: 443 } },
        },
      ],
    },
  });
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '15s' });
    expect(report.verdict).toBe('leftovers');
    const webhook = findingKey('WebhookBackendMissing', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      name: configuration,
    });
    const { d, rootCauses } = diagnosisOf(report, 'Namespace', ns);
    // kube-sweep's own emptying of the namespace was refused by the same webhook (HTTP 500):
    // that finding is explained by the webhook too, so the one root cause stays the webhook.
    expect(d).toMatchObject({
      source: 'namespace',
      findings: [
        `DeletionRefused:refused empty-namespace /Namespace//${ns}`,
        `NamespaceContentDeletionFailed:v1/Namespace//${ns}`,
      ],
      rootCauses: [webhook],
    });
    expect(rootCauses[0]).toMatchObject({ scope: 'cluster', severity: 'error' });
    expect(rootCauses[0]!.evidence[0]).toContain(`service ${backendNs}/guard`);
    expect(summary).toContain(
      `- root cause (see Findings): \`WebhookBackendMissing\` on \`ValidatingWebhookConfiguration ${configuration}\``,
    );
  } finally {
    await deleteIfPresent(api, configurationPath);
    await deleteNamespaceEventually(api, ns);
    await deleteNamespaceEventually(api, backendNs);
  }
});

test("a namespace held by its own metadata.finalizers: the finding says so, and it is the leftover's root cause", async () => {
  const api = suiteApi();
  const ns = uniqueName('diag-own');
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, finalizers: ['example.com/hold'] } },
  });
  try {
    const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '5s' });
    expect(report.verdict).toBe('leftovers');
    const key = `NamespaceBlockedByFinalizer:v1/Namespace//${ns}`;
    const finding = report.findings!.find((f) => f.key === key);
    expect(finding?.message).toMatch(
      new RegExp(
        `^Namespace ${ns} has been Terminating for \\S+: it is held by its own metadata\\.finalizers example\\.com/hold, ` +
          'which only the controller that set them removes \\(the namespace controller removes only spec\\.finalizers\\)$',
      ),
    );
    expect(finding?.message).not.toContain('still carry');
    expect(finding?.evidence[0]).toBe("the Namespace's own metadata.finalizers: example.com/hold");
    expect(diagnosisOf(report, 'Namespace', ns).d).toMatchObject({ findings: [key], rootCauses: [key] });
  } finally {
    await removeFinalizers(api, `/api/v1/namespaces/${ns}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a healthy environment still ends clean, with no finding and no leftover', async () => {
  const api = suiteApi();
  const ns = uniqueName('diag-ok');
  const r = await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '60s' });
    expect(report.verdict).toBe('clean');
    expect(report.findings).toEqual([]);
    expect(report.leftovers).toBeUndefined();
    expect(summary).not.toContain("#### Left after their stage's wait");
  } finally {
    await deleteNamespaceEventually(api, ns);
  }
});

test("the demo's hook ClusterRole: the leftover is explained by HelmLeftover (hook), which names its release", async () => {
  const api = suiteApi();
  const id = uniqueName('diag-hk');
  const ns = `${id}-extras`;
  const role = `${ns}-hook-role`;
  // The demo's hooks release (scripts/demo-env.sh broken): post-install hook objects, a
  // ClusterRole and a ConfigMap, which Helm never deletes.
  const r = await helm4(['install', 'hooks', chart('hookcr'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: `${id}-*` });
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.hookLeftovers).toContainEqual(
      expect.objectContaining({ kind: 'ClusterRole', name: role, release: `${ns}/hooks` }),
    );
    const { d, rootCauses } = diagnosisOf(report, 'ClusterRole', role);
    expect(d).toMatchObject({ source: 'hook', reason: 'still there and not being deleted' });
    expect(rootCauses).toHaveLength(1);
    expect(rootCauses[0]).toMatchObject({
      code: 'HelmLeftover',
      severity: 'info',
      object: { kind: 'ClusterRole', name: role },
    });
    expect(rootCauses[0]!.message).toBe(
      `Helm leftover (hook): clusterroles.rbac.authorization.k8s.io ${role} was made by a post-install hook of ` +
        `Helm release ${ns}/hooks, which no longer exists: hook objects are not deleted with the release unless ` +
        'their hook-delete-policy says so',
    );
    expect(summary).not.toContain('no finding explains it');
    expect(summary).toContain(
      `\`ClusterRole ${role}\` (a hook of \`${ns}/hooks\`; \`HelmLeftover\` on \`ClusterRole ${role}\`)`,
    );
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
    await deleteNamespaceEventually(api, ns);
  }
});

test("a post-delete hook's object in a namespace the teardown keeps: HelmLeftover names the release it removed", async () => {
  const api = suiteApi();
  const ns = uniqueName('diag-post');
  const r = await helm4([
    'install',
    'r',
    chart('modes'),
    '-n',
    ns,
    '--create-namespace',
    '--set',
    'postDeleteHook=true',
  ]);
  expect(r.exitCode).toBe(0);
  try {
    const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'delete-namespaces': 'false' });
    expect(report.teardown!.stages.flatMap((s) => s.releases).map((x) => [x.release, x.status])).toEqual([
      [`${ns}/r`, 'uninstalled'],
    ]);
    // Helm ran the hook after deleting the release's objects: its ConfigMap stays in the namespace.
    expect(report.teardown!.hookLeftovers).toEqual([
      expect.objectContaining({
        kind: 'ConfigMap',
        namespace: ns,
        name: 'r-post-delete-ran',
        release: `${ns}/r`,
      }),
    ]);
    const finding = report.findings!.find(
      (f) =>
        f.code === 'HelmLeftover' && f.object.kind === 'ConfigMap' && f.object.name === 'r-post-delete-ran',
    );
    expect(finding?.message).toBe(
      `Helm leftover (hook): configmaps ${ns}/r-post-delete-ran was made by a post-delete hook of Helm release ` +
        `${ns}/r, which no longer exists: hook objects are not deleted with the release unless their ` +
        'hook-delete-policy says so',
    );
    expect(finding!.evidence).toContain('helm.sh/hook: post-delete');
    expect(diagnosisOf(report, 'ConfigMap', 'r-post-delete-ran').d).toMatchObject({
      source: 'hook',
      rootCauses: [finding!.key],
    });
  } finally {
    await deleteNamespaceEventually(api, ns);
  }
});
