/**
 * A `count/pods` quota full of terminal Pods. Built for real: namespace `<id>-ci-env` with
 * ResourceQuota `pods` (hard `count/pods: 2`, and `pods: 2`, which counts only Pods that are not
 * terminal) and two Pods that no scheduler places (schedulerName of none), whose status is then
 * set through the status subresource to Succeeded and Failed, as a kubelet would; the quota
 * controller counts both toward `count/pods` and neither toward `pods`, and the next Pod is refused
 * with the API server's `exceeded quota`. The rules must report QuotaExhaustedByTerminalPods naming
 * the quota, both Pods and the refusal. Negative: the same quota full of Running Pods is not this
 * finding (nothing in it is finished).
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { runRules } from '../../../src/rules/index.js';
import { podQuotaRefusal, quotaTerminalPodsRule } from '../../../src/rules/quota-terminal-pods.js';
import { waitFor } from '../../../src/util/wait.js';
import { createNamespace, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  scenarioContext,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

/** ResourceQuota `pods` on `count/pods` and `pods`, waited for until the quota controller has counted. */
async function createPodQuota(api: ApiClient, ns: string, hard: number): Promise<void> {
  await createObject(api, `/api/v1/namespaces/${ns}/resourcequotas`, {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'pods' },
    spec: { hard: { 'count/pods': String(hard), pods: String(hard) } },
  });
  await waitUsed(api, ns, { 'count/pods': '0', pods: '0' });
}

/** Waits until quota `pods` in `ns` counts `used` (each named resource). */
async function waitUsed(api: ApiClient, ns: string, used: Record<string, string>): Promise<void> {
  await waitFor(
    async () => {
      const q = await api.request<{ status?: { used?: Record<string, string> } }>({
        path: `/api/v1/namespaces/${ns}/resourcequotas/pods`,
      });
      const now = q.status?.used ?? {};
      return { done: Object.entries(used).every(([k, v]) => now[k] === v), value: now };
    },
    { timeoutMs: 60_000, description: `quota ${ns}/pods to count ${JSON.stringify(used)}` },
  );
}

/** A Pod no scheduler places (no scheduler of that name runs): only its status says what it did. */
const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    schedulerName: 'kube-sweep-test-no-scheduler',
    restartPolicy: 'Never',
    containers: [{ name: 'main', image: `registry.invalid/${name}:1` }],
  },
});

/** Sets a Pod's status.phase (and reason) through the status subresource, as a kubelet would. */
async function setPhase(api: ApiClient, ns: string, name: string, phase: string, reason?: string) {
  await api.request({
    method: 'PATCH',
    path: `${podsPath(ns)}/${name}/status`,
    contentType: 'application/merge-patch+json',
    body: { status: { phase, ...(reason ? { reason } : {}) } },
  });
}

test('a count/pods quota full of Succeeded and Failed Pods: QuotaExhaustedByTerminalPods, and the next Pod is refused', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-quota-pods');
  const ns = `${id}-ci-env`;
  try {
    await createNamespace(api, ns);
    await createPodQuota(api, ns, 2);
    await createObject(api, podsPath(ns), pod('report-1'));
    await createObject(api, podsPath(ns), pod('report-2'));
    await setPhase(api, ns, 'report-1', 'Succeeded');
    await setPhase(api, ns, 'report-2', 'Failed', 'DeadlineExceeded');
    // count/pods counts every stored Pod; pods counts none of the terminal ones.
    await waitUsed(api, ns, { 'count/pods': '2', pods: '0' });
    let refused: KubernetesApiError | undefined;
    try {
      await api.request({ method: 'POST', path: podsPath(ns), body: pod('next') });
    } catch (error) {
      if (!(error instanceof KubernetesApiError)) throw error;
      refused = error;
    }
    expect(refused?.status).toBe(403);
    expect(refused?.apiMessage).toBe(`pods "next" is forbidden: ${podQuotaRefusal('pods', 2, 2)}`);

    const inventory = await snapshot(api);
    recordFixture('quota-terminal-pods', inventory, {
      scenario: 'terminal Pods fill a count/pods quota',
      // Pod names are listed sorted in one command: only the namespace is replaced by hostile names.
      names: { namespace: ns },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.severity, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['QuotaExhaustedByTerminalPods', 'error', 'ResourceQuota', ns, 'pods'],
    ]);
    const [f] = mine;
    expect(f!.message).toBe(
      `ResourceQuota ${ns}/pods is at its hard limit for count/pods (2 of 2), and 2 terminal Pods (Succeeded or ` +
        `Failed) count toward it: count/pods counts every stored Pod, finished or not, so every new Pod in ` +
        `namespace ${ns} (replicas, Job and CronJob runs, Helm hooks) is refused with exceeded quota`,
    );
    expect(f!.evidence).toEqual([
      'count/pods: used 2, hard 2',
      `pods ${ns}/report-1: Succeeded, no owner`,
      `pods ${ns}/report-2: Failed (DeadlineExceeded), no owner`,
      `the next Pod create is refused with: pods "<name>" is forbidden: ${podQuotaRefusal('pods', 2, 2)}`,
      'a `pods` quota would not count them: it counts only Pods that are not Succeeded or Failed',
    ]);
    expect(f!.remediation.commands).toContain(`kubectl delete pods -n ${ns} report-1 report-2`);

    // The remedy works: deleting the terminal Pods frees the quota, and the finding goes.
    for (const name of ['report-1', 'report-2'])
      await api.request({
        method: 'DELETE',
        path: `${podsPath(ns)}/${name}`,
        query: { gracePeriodSeconds: '0' },
      });
    await waitUsed(api, ns, { 'count/pods': '0' });
    await createObject(api, podsPath(ns), pod('next'));
    expect(findingsAbout(findingsOf(await snapshot(api), [ns]), [id])).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
}, 180_000);

test('negative: a count/pods quota full of Running Pods is not QuotaExhaustedByTerminalPods', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-quota-pods-running');
  const ns = `${id}-app`;
  try {
    await createNamespace(api, ns);
    await createPodQuota(api, ns, 2);
    for (const name of ['web-1', 'web-2']) {
      await createObject(api, podsPath(ns), pod(name));
      await setPhase(api, ns, name, 'Running');
    }
    await waitUsed(api, ns, { 'count/pods': '2', pods: '2' });
    const inventory = await snapshot(api);
    // The Pods were read whole (the quota is full), and they are running: nothing to report.
    expect(
      (inventory.full.pods as { metadata?: { namespace?: string }; status?: { phase?: string } }[])
        .filter((p) => p.metadata?.namespace === ns)
        .map((p) => p.status?.phase),
    ).toEqual(['Running', 'Running']);
    const findings = runRules(inventory, scenarioContext([ns]), [quotaTerminalPodsRule]);
    expect(findingsAbout(findings, [id])).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
}, 180_000);
