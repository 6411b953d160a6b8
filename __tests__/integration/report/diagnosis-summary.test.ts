/**
 * What the plan and the summary say, built for real on the local control plane:
 * - a plan (and a dry run) of an environment while an APIService whose backend Service is
 *   missing is unavailable says, before anything is deleted, that the namespace deletion will
 *   hang on it (group-version, Service, remedy); a plan of a healthy environment says nothing so;
 * - a plan with a StatefulSet whose claims its retention policy keeps says the claims will stay
 *   (S22), and one whose StatefulSet owns its claims (`whenDeleted: Delete`) says nothing;
 * - the broken demo's fault (the operator uninstalled before the Widgets that carry its
 *   finalizer): the teardown that uninstalls the app release does not report the app's record
 *   as lost, and its Widgets stay explained by the finalizer whose controller is gone;
 * - the objects stranded in one namespace force-finalized through /finalize make one root cause.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { findingKey } from '../../../src/rules/findings.js';
import { recordLostSubject } from '../../../src/rules/helm-release-record-lost.js';
import { runAction } from '../support/action.js';
import {
  createApiServiceWithoutBackend,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import { helm4, installOperatorAndApp, removeOperatorAndApp } from '../support/widgets.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createKeptAndOwnedStatefulSets,
  createObject,
  deleteNamespaceAndWait,
  forceFinalizeNamespace,
  removeFinalizers,
  waitForCondition,
} from '../rules/support/scenario.js';

const suiteApi = adminApiForSuite();

async function createConfigMap(api: ApiClient, ns: string, name: string, finalizers: string[] = []) {
  await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(finalizers.length ? { finalizers } : {}) },
  });
}

/** The plan section of a summary (from `### Plan` to the next `###`). */
const planSection = (summary: string) => {
  const start = summary.indexOf('### Plan');
  const end = summary.indexOf('\n### ', start + 1);
  return start < 0 ? '' : summary.slice(start, end < 0 ? undefined : end);
};

test('plan and dry run: the namespace deletion will hang on the stale APIService, said before anything is deleted', async () => {
  expect.hasAssertions();
  const api = suiteApi();
  const id = uniqueName('diag-hang');
  const ns = `${id}-env`;
  const group = `${id}.kube-sweep.test`;
  let apiService = '';
  try {
    await createNamespace(api, ns);
    await createConfigMap(api, ns, 'settings');
    // Its backend Service's namespace was never created: ServiceNotFound.
    apiService = await createApiServiceWithoutBackend(api, {
      group,
      serviceName: 'metrics',
      serviceNamespace: `${id}-gone`,
    });
    await waitForCondition(
      api,
      `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`,
      'Available',
      'False',
    );
    const stale = findingKey('StaleAPIService', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      name: apiService,
    });
    const runs: Record<string, string>[] = [{ mode: 'plan' }, { mode: 'teardown', 'dry-run': 'true' }];
    for (const inputs of runs) {
      const { report, summary } = await runAction({ ...inputs, namespaces: ns });
      expect(report.verdict).toBe('planned');
      const hang = report.findings!.find((f) => f.code === 'NamespaceDeletionWillHang');
      expect(hang).toMatchObject({
        object: { kind: 'Namespace', name: ns },
        scope: 'environment',
        causedBy: [stale],
      });
      expect(hang!.message).toContain(
        `cannot discover ${group}/v1 (APIService ${apiService}, ServiceNotFound: service ${id}-gone/metrics, namespace ${id}-gone does not exist)`,
      );
      // The APIService itself is reported in full, though it lies outside the environment.
      expect(report.findings!.find((f) => f.key === stale)).toMatchObject({ scope: 'cluster' });
      const plan = planSection(summary);
      expect(plan).toContain(
        `**Namespace deletion will hang:** Deleting namespace ${ns} will hang in Terminating`,
      );
      expect(plan).toContain(
        `Restore the backend of APIService ${apiService} \\(service ${id}-gone/metrics\\)`,
      );
      // The first screen names the APIService as the root cause of it.
      const row = summary.split('\n').find((l) => l.includes('`StaleAPIService`'));
      expect(row).toContain(`\`APIService ${apiService}\``);
      expect(row).toContain('root cause of 1: `NamespaceDeletionWillHang`');
      // Nothing was deleted.
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/settings`)).toBeDefined();
    }
  } finally {
    if (apiService) await deleteIfPresent(api, `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`);
    await deleteNamespaceAndWait(api, ns);
  }
}, 180_000);

test('clean: a plan of a healthy environment forecasts no hang and no kept claims', async () => {
  const api = suiteApi();
  const ns = uniqueName('diag-calm');
  try {
    await createNamespace(api, ns);
    await createConfigMap(api, ns, 'settings');
    const { report, summary } = await runAction({ mode: 'plan', namespaces: ns });
    expect(report.verdict).toBe('planned');
    expect(report.findings).toEqual([]);
    expect(planSection(summary)).not.toMatch(/will hang|will stay/);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
});

test('S22 in a plan: the claims a StatefulSet keeps are named before the teardown; owned claims are not', async () => {
  const api = suiteApi();
  const ns = uniqueName('diag-sts');
  try {
    await createKeptAndOwnedStatefulSets(api, ns, { kept: 'pg', owned: 'cache', release: 'db' });
    const { report, summary } = await runAction({ mode: 'plan', namespaces: ns });
    expect(report.findings!.map((f) => [f.code, f.severity, f.object.kind, f.object.name])).toEqual([
      ['StatefulSetClaimsRetained', 'info', 'StatefulSet', 'pg'],
    ]);
    expect(planSection(summary)).toContain(
      `- Claims that will stay after the uninstall: StatefulSet ${ns}/pg keeps its claim data-pg-0 when it is deleted`,
    );
    expect(planSection(summary)).toContain(
      `this teardown deletes namespace \`${ns}\` afterwards, which removes them.`,
    );
    expect(summary).not.toContain('StatefulSet ' + ns + '/cache keeps');
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
}, 120_000);

test("the demo's fault: the app release this teardown uninstalled is not record-lost; its held Widgets are explained by the operator's finalizer", async () => {
  const api = suiteApi();
  const id = uniqueName('diag-own');
  const env = { group: `${id}.kube-sweep.test`, operatorNs: `${id}-operator`, appNs: `${id}-app` };
  try {
    await installOperatorAndApp(api, env);
    // The mistake of the demo: the operator goes first, its Widgets keep its finalizer.
    expect((await helm4(['uninstall', 'operator', '-n', env.operatorNs, '--wait=false'])).exitCode).toBe(0);
    const { report } = await runAction({ mode: 'teardown', namespaces: env.appNs, 'stage-timeout': '5s' });
    expect(report.teardown!.stages[0]!.releases).toEqual([
      expect.objectContaining({ release: `${env.appNs}/app`, status: 'uninstalled' }),
    ]);
    const keys = report.findings!.map((f) => f.key);
    expect(keys).not.toContain(findingKey('HelmReleaseRecordLost', recordLostSubject(env.appNs, 'app')));
    // Its Widgets are leftovers of the stage, each explained by the finalizer whose operator is gone.
    const widgets = report.leftovers!.filter((l) => l.object.kind === 'Widget');
    expect(widgets.map((w) => w.object.name).sort()).toEqual(['w1', 'w2']);
    for (const w of widgets) {
      const roots = w.rootCauses.map((k) => report.findings!.find((f) => f.key === k)!.code);
      expect(roots).toEqual(['OperatorGoneFinalizer']);
    }
  } finally {
    await removeOperatorAndApp(api, env);
  }
}, 180_000);

test('the objects stranded in one force-finalized namespace make one root cause, with their count and names', async () => {
  const api = suiteApi();
  const id = uniqueName('diag-strand');
  const ns = `${id}-scratch`;
  const names = ['a', 'b', 'c', 'd', 'e'];
  try {
    await createNamespace(api, ns);
    for (const n of names) await createConfigMap(api, ns, n, [cleanupFinalizer]);
    await forceFinalizeNamespace(api, ns);
    const { report, summary } = await runAction({ mode: 'scan', namespaces: `${id}-*`, 'stuck-after': '1h' });
    const orphans = report.findings!.filter((f) => f.code === 'OrphanInMissingNamespace');
    expect(orphans.map((f) => f.object.name).sort()).toEqual(names);
    const rows = summary.split('\n').filter((l) => l.startsWith('| 🔴 '));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(
      `5 objects in missing namespace ${ns} \\(ConfigMap ${ns}/a, ConfigMap ${ns}/b, ConfigMap ${ns}/c and 2 more\\)`,
    );
    expect(rows[0]).toContain(`Recreate namespace ${ns} and delete it normally`);
    expect(summary).toMatch(/^### 1 root cause, 0 linked findings \(5 findings/m);
  } finally {
    if (!(await getOrUndefined(api, `/api/v1/namespaces/${ns}`))) await createNamespace(api, ns);
    for (const n of names) await removeFinalizers(api, `/api/v1/namespaces/${ns}/configmaps/${n}`);
    await deleteNamespaceAndWait(api, ns);
  }
}, 120_000);
