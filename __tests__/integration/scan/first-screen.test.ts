/**
 * The first screen of a scan's summary (issue 15): two unrelated root causes, built for real
 * on the local control plane — an APIService whose backend Service (in the environment) does
 * not exist (S01), and a namespace force-finalized through /finalize while a ConfigMap with a
 * finalizer waited in it (S10) — are both named within the summary's first 15 lines, each with
 * its code, its object, what it explains and its first safe action; the counts in the heading
 * agree with the findings of the report (the backend namespace, in the environment, is named as
 * one whose deletion will hang on the APIService).
 */
import { runAction } from '../support/action.js';
import {
  createApiServiceWithoutBackend,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createObject,
  deleteNamespaceAndWait,
  forceFinalizeNamespace,
  removeFinalizers,
} from '../rules/support/scenario.js';

const suiteApi = adminApiForSuite();

test('a scan with two unrelated root causes names both, with their first safe action, in the first 15 lines', async () => {
  const api = suiteApi();
  const id = uniqueName('screen');
  const backendNs = `${id}-metrics`;
  const scratch = `${id}-scratch`;
  const group = `${id}.kube-sweep.test`;
  const configMapPath = `/api/v1/namespaces/${scratch}/configmaps/settings`;
  let apiService = '';
  try {
    await createNamespace(api, scratch);
    await createObject(api, `/api/v1/namespaces/${scratch}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', finalizers: [cleanupFinalizer] },
    });
    await forceFinalizeNamespace(api, scratch);
    await createNamespace(api, backendNs);
    apiService = await createApiServiceWithoutBackend(api, {
      group,
      serviceName: 'metrics-gone',
      serviceNamespace: backendNs,
    });
    await new Promise((r) => setTimeout(r, 1100)); // the ConfigMap's deletion older than stuck-after

    const { report, summary } = await runAction({
      mode: 'scan',
      'scan-scope': 'environment',
      namespaces: `${id}-*`,
      'stuck-after': '1s',
    });
    expect(report.verdict).toBe('leftovers');
    const codes = report.findings!.map((f) => f.code).sort();
    // The finalizer whose controller is gone is about the same ConfigMap: linked to its orphan.
    // The backend's namespace (in the environment) cannot be deleted while the APIService is stale:
    // NamespaceDeletionWillHang, linked to it.
    expect(codes).toEqual([
      'NamespaceDeletionWillHang',
      'OperatorGoneFinalizer',
      'OrphanInMissingNamespace',
      'StaleAPIService',
    ]);
    const orphan = report.findings!.find((f) => f.code === 'OrphanInMissingNamespace')!;
    expect(report.findings!.find((f) => f.code === 'OperatorGoneFinalizer')!.causedBy).toEqual([orphan.key]);

    const first = summary.split('\n').slice(0, 15);
    const screen = first.join('\n');
    expect(first[0]).toBe('## ❌ kube-sweep: leftovers found');
    expect(screen).toContain('### 2 root causes, 2 linked findings (4 findings, 3 over the fail-on policy)');
    const row = (code: string) => first.find((l) => l.includes(`\`${code}\``)) ?? '';
    expect(row('StaleAPIService')).toContain(`\`APIService ${apiService}\``);
    expect(row('StaleAPIService')).toMatch(
      /^\| 🔴 \|.*\| root cause of 1: `NamespaceDeletionWillHang` \| \S.*\|$/,
    );
    expect(row('OrphanInMissingNamespace')).toContain(`\`ConfigMap ${scratch}/settings\``);
    expect(row('OrphanInMissingNamespace')).toContain('root cause of 1: `OperatorGoneFinalizer`');
    expect(row('OrphanInMissingNamespace')).toContain(`Recreate namespace ${scratch} and delete it normally`);
    // Each object once: the ConfigMap has one row, not one per finding.
    expect(first.filter((l) => l.includes(`${scratch}/settings`))).toHaveLength(1);
    // The remedy never clears every finalizer with a merge patch.
    expect(summary).not.toContain('"finalizers":null');
  } finally {
    if (apiService) await deleteIfPresent(api, `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`);
    if (!(await getOrUndefined(api, `/api/v1/namespaces/${scratch}`))) await createNamespace(api, scratch);
    await removeFinalizers(api, configMapPath);
    await deleteNamespaceAndWait(api, scratch);
    await deleteNamespaceAndWait(api, backendNs);
  }
}, 180_000);
