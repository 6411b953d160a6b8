/**
 * Who owns a finalizer, decided from structure (issue #32): an operator whose Deployment is named
 * unlike the finalizer's words (`widgets` for `pr-7.<id>.io/cleanup`, in namespace `pr7-…`) is
 * found through its CRD's owner (the Helm release marks on the CRD, and that release's
 * workloads), never called gone while it runs, and its remedy is to read it (logs, Events, RBAC),
 * never "scale it up". A workload with no available replica (a pod on a NotReady node) runs
 * while one of its pods renews a Lease. Gone, the finding says how: scaled to zero, uninstalled.
 *
 * Then remedies checked before they are printed: a live validating webhook (the Widget
 * operator's, test/operator/operator.mjs, on loopback) refuses every update of a Widget whose
 * spec.size is negative, so the operator cannot remove its own finalizer, and the finalizer patch
 * kube-sweep prints is refused too: the dry run during the scan says so, quoting the webhook.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { deletionForecast } from '../../../src/rules/deletion-forecast.js';
import { waitFor } from '../../../src/util/wait.js';
import { clusterEnv, createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { freePort, startOperatorProcess, type OperatorProcess } from '../support/operator-process.js';
import { installOperator, removeOperatorAndApp } from '../support/widgets.js';
import {
  adminApiForSuite,
  createCrd,
  createDeadNode,
  createObject,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  forceDeletePod,
  microTime,
  recordFixture,
  removeFinalizers,
  snapshot,
  waitAvailable,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

/** A Deployment of Helm release `ops`/operator (its annotations), optionally pinned to a node. */
function operatorDeployment(ops: string, replicas: number, nodeName?: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'widgets',
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'operator', 'meta.helm.sh/release-namespace': ops },
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'widgets' } },
      template: {
        metadata: { labels: { app: 'widgets' } },
        spec: {
          ...(nodeName
            ? {
                nodeName,
                tolerations: ['node.kubernetes.io/unreachable', 'node.kubernetes.io/not-ready'].map(
                  (key) => ({ key, operator: 'Exists', effect: 'NoExecute' }),
                ),
              }
            : {}),
          containers: [{ name: 'main', image: 'registry.invalid/widgets:1' }],
        },
      },
    },
  };
}

async function waitDeploymentObserved(api: ApiClient, ns: string, replicas: number): Promise<string[]> {
  return waitFor(
    async () => {
      const pods = await api.request<{ items: { metadata: { name: string; deletionTimestamp?: string } }[] }>(
        {
          path: `/api/v1/namespaces/${ns}/pods`,
          query: { labelSelector: 'app=widgets' },
        },
      );
      const d = await api.request<{ status?: { replicas?: number } }>({
        path: `/apis/apps/v1/namespaces/${ns}/deployments/widgets`,
      });
      // A pod on a node no kubelet serves stays Terminating: only the others count.
      const names = pods.items.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
      return { done: names.length === replicas && (d.status?.replicas ?? 0) === replicas, value: names };
    },
    { timeoutMs: 60_000, description: `deployment ${ns}/widgets to have ${replicas} pods` },
  );
}

/** Per test: kwok runs the pods, and a namespace with a pod on a dead node takes a while to go. */
const timeout = 300_000;

test(
  'an operator named unlike its finalizer is found through its CRD owner, and gone says how',
  async () => {
    const api = suiteApi();
    if (!clusterEnv().kwok) throw new Error('this test needs kwok (test/cluster/up.sh starts it when built)');
    const id = uniqueName('rules-owner');
    const suffix = id.split('-').at(-1)!;
    const group = `${id}.io`;
    const finalizer = `pr-7.${id}.io/cleanup`;
    const ns = `${id}-app`;
    // Shares no word with the finalizer: only structure can tie it to the Widgets.
    const ops = `pr7-${suffix}`;
    const node = `${id}-dead-node`;
    const crdName = `widgets.${group}`;
    const widgetPath = `/apis/${group}/v1/namespaces/${ns}/widgets/w1`;
    const deploymentPath = `/apis/apps/v1/namespaces/${ops}/deployments/widgets`;
    let pod: string | undefined;
    try {
      await createCrd(api, { group });
      await api.request({
        method: 'PATCH',
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
        contentType: 'application/merge-patch+json',
        body: {
          metadata: {
            labels: { 'app.kubernetes.io/managed-by': 'Helm' },
            annotations: { 'meta.helm.sh/release-name': 'operator', 'meta.helm.sh/release-namespace': ops },
          },
        },
      });
      await createNamespace(api, ns);
      await createNamespace(api, ops);
      await createObject(api, `/apis/apps/v1/namespaces/${ops}/deployments`, operatorDeployment(ops, 1));
      await waitAvailable(api, ops, 'widgets');
      await createObject(api, `/apis/${group}/v1/namespaces/${ns}/widgets`, {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1', finalizers: [finalizer] },
      });
      await api.request({ method: 'DELETE', path: widgetPath });

      // Running (1/1 available): StuckFinalizer, taken through structure; read it, do not scale it.
      const inventory = await snapshot(api);
      recordFixture('finalizer-owner-structure', inventory, {
        scenario:
          'issue 32: an operator Deployment named unlike its finalizer, tied to it by the CRD’s Helm marks',
        names: { namespace: ns, operatorNamespace: ops, finalizer, group },
        environmentNamespaces: [ns],
        selection: { namespaces: [ns, ops], clusterObjects: [crdName] },
      });
      const running = findingsAbout(findingsOf(inventory, [ns]), [id]).filter((f) =>
        ['StuckFinalizer', 'OperatorGoneFinalizer'].includes(f.code),
      );
      expect(running.map((f) => f.code)).toEqual(['StuckFinalizer']);
      const stuck = running[0]!;
      expect(stuck.message).toContain('its controller runs but has not removed it');
      expect(stuck.evidence).toContain(
        `taken as its controller (live, and structure ties it to the objects' CRD): deployments.apps ${ops}/widgets ` +
          `(a workload of Helm release ${ops}/operator, which shipped CRD ${crdName} (its meta.helm.sh annotations); 1 of 1 replicas available)`,
      );
      expect(stuck.remediation.summary).toMatch(
        /^Read why its controller has not finished, and do not reinstall or scale it: it runs \(deployments\.apps .*\)\./,
      );
      expect(stuck.remediation.summary).not.toMatch(/scale it up|Reinstall or scale up|Bring back/);
      expect(stuck.remediation.commands).toEqual(
        expect.arrayContaining([
          `kubectl logs -n ${ops} deployment/widgets --all-containers --tail=200`,
          `kubectl auth can-i patch widgets.${group} -n ${ns} --as system:serviceaccount:${ops}:default`,
        ]),
      );
      // The dry run foretells nothing against it (it used to skip the release of a "gone" operator).
      const forecast = deletionForecast(inventory, { now: Date.now(), stuckAfterSeconds: 3600 });
      expect(forecast(inventory.objects.find((o) => o.name === 'w1' && o.namespace === ns)!)).toBeUndefined();

      // A pod on a node that does not answer: 0 available. Not running until its pod renews a Lease.
      await deleteIfPresent(api, deploymentPath);
      await createDeadNode(api, node);
      await createObject(
        api,
        `/apis/apps/v1/namespaces/${ops}/deployments`,
        operatorDeployment(ops, 1, node),
      );
      [pod] = await waitDeploymentObserved(api, ops, 1);
      // Installed and wanting a replica, none available, no Lease renewed: down, not gone (it may
      // come back when its node does), so StuckFinalizer, never "gone".
      const unavailable = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]).filter((f) =>
        ['StuckFinalizer', 'OperatorGoneFinalizer'].includes(f.code),
      );
      expect(unavailable.map((f) => f.code)).toEqual(['StuckFinalizer']);
      expect(unavailable[0]!.message).toContain(
        `its controller is installed but does not run now (deployments.apps ${ops}/widgets (a workload of Helm release ${ops}/operator`,
      );
      await createObject(api, `/apis/coordination.k8s.io/v1/namespaces/${ops}/leases`, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'widgets-leader' },
        spec: { holderIdentity: `${pod}_5f1e`, leaseDurationSeconds: 15, renewTime: microTime(0) },
      });
      const renewing = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]).filter((f) =>
        ['StuckFinalizer', 'OperatorGoneFinalizer'].includes(f.code),
      );
      expect(renewing.map((f) => f.code)).toEqual(['StuckFinalizer']);
      expect(renewing[0]!.evidence.join('\n')).toContain(
        `0 of 1 replicas available, but its pod ${pod} holds Lease ${ops}/widgets-leader, renewed`,
      );

      // Scaled to zero, then uninstalled: gone, and the finding says how.
      await api.request({
        method: 'PATCH',
        path: deploymentPath,
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas: 0 } },
      });
      await deleteIfPresent(api, `/apis/coordination.k8s.io/v1/namespaces/${ops}/leases/widgets-leader`);
      await waitDeploymentObserved(api, ops, 0);
      const scaled = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]).find(
        (f) => f.code === 'OperatorGoneFinalizer',
      );
      expect(scaled?.message).toContain(
        `(scaled to zero: deployments.apps ${ops}/widgets has spec.replicas 0)`,
      );
      expect(scaled?.remediation.summary).toMatch(/^Scale Deployment .*widgets of Helm release .* back up/);
      await deleteIfPresent(api, deploymentPath);
      const uninstalled = findingsAbout(findingsOf(await snapshot(api), [ns]), [id]).find(
        (f) => f.code === 'OperatorGoneFinalizer',
      );
      expect(uninstalled?.message).toContain(
        `(uninstalled: Helm release ${ops}/operator, which shipped CRD ${crdName} (its meta.helm.sh annotations), has no Deployment, StatefulSet or DaemonSet left)`,
      );
    } finally {
      await removeFinalizers(api, widgetPath);
      if (pod) await forceDeletePod(api, ops, pod);
      await deleteIfPresent(api, `/api/v1/nodes/${node}`);
      await deleteNamespaceAndWait(api, ns);
      await deleteNamespaceAndWait(api, ops);
      await deleteCrdAndWait(api, crdName);
    }
  },
  timeout,
);

describe('a live webhook refuses the finalizer removal', () => {
  const id = uniqueName('rules-refuse');
  const env = { group: `${id}.kube-sweep.test`, operatorNs: `${id}-operator`, appNs: `${id}-app` };
  const webhookPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/operator-${env.group}`;
  const widgetPath = `/apis/${env.group}/v1/namespaces/${env.appNs}/widgets/w1`;
  let operator: OperatorProcess | undefined;

  afterAll(async () => {
    await operator?.stop();
    await deleteIfPresent(suiteApi(), webhookPath);
    await removeFinalizers(suiteApi(), widgetPath);
    await removeOperatorAndApp(suiteApi(), env);
  });

  test('the printed patch is marked refused, quoting the webhook', async () => {
    const api = suiteApi();
    const port = await freePort();
    await installOperator(api, env, `https://127.0.0.1:${port}/validate`);
    operator = await startOperatorProcess(api, { ...env, port, identity: `${id}-local` });
    await createNamespace(api, env.appNs);
    // A Widget the webhook would deny, stored while the webhook looked at DELETE only (as one
    // stored before a stricter webhook version was installed).
    const setOperations = (operations: string[]) =>
      api.request({
        method: 'PATCH',
        path: webhookPath,
        contentType: 'application/json-patch+json',
        body: [{ op: 'replace', path: '/webhooks/0/rules/0/operations', value: operations }],
      });
    await setOperations(['DELETE']);
    await createObject(api, `/apis/${env.group}/v1/namespaces/${env.appNs}/widgets`, {
      apiVersion: `${env.group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1', finalizers: [`${env.group}/cleanup`] },
      spec: { size: -1 },
    });
    await setOperations(['CREATE', 'UPDATE']);
    await api.request({ method: 'DELETE', path: widgetPath });
    // The operator tries to remove its finalizer and is refused by its own webhook.
    await operator.waitForOutput(`removing ${env.group}/cleanup from ${env.appNs}/w1: HTTP`, 30_000);

    const inventory = await snapshot(api);
    recordFixture('finalizer-removal-refused', inventory, {
      scenario: 'issue 32: a live validating webhook refuses the finalizer removal kube-sweep prints',
      names: { namespace: env.appNs, operatorNamespace: env.operatorNs, group: env.group },
      environmentNamespaces: [env.appNs],
      selection: {
        namespaces: [env.appNs, env.operatorNs],
        clusterObjects: [`widgets.${env.group}`, `operator-${env.group}`],
      },
    });
    const findings = findingsAbout(findingsOf(inventory, [env.appNs]), [id]);
    const stuck = findings.find((f) => f.code === 'StuckFinalizer' && f.object.name === 'w1');
    expect(stuck).toBeDefined();
    const quoted = `widget-operator: spec.size must be >= 0, not -1`;
    expect(stuck!.remediation.summary).toMatch(
      new RegExp(`^Resolve first what refuses removing finalizer ${env.group.replace(/\./g, '\\.')}/cleanup`),
    );
    expect(stuck!.remediation.summary).toContain(quoted);
    const lines = stuck!.remediation.commands;
    const mark = lines.findIndex((l) => l.startsWith('# REFUSED now: the API server denied this removal'));
    const patch = lines.findIndex((l) => l.startsWith('kubectl patch'));
    expect(mark).toBeGreaterThanOrEqual(0);
    expect(lines[mark]).toContain(quoted);
    expect(mark).toBeLessThan(patch);
    expect(stuck!.evidence.join('\n')).toContain(
      `removing finalizer ${env.group}/cleanup from widgets.${env.group} ${env.appNs}/w1 is refused by the API server (tried with dryRun=All)`,
    );
    // Nothing was stored by the dry run: the finalizer is still there.
    const still = await api.request<{ metadata: { finalizers?: string[] } }>({ path: widgetPath });
    expect(still.metadata.finalizers).toEqual([`${env.group}/cleanup`]);
  });
});
