/**
 * No false alarms: an ordinary namespace (a Deployment with its ReplicaSet and running pod, a
 * Service, ConfigMaps, one of them with a finalizer but not being deleted) and the control
 * plane's own objects yield no finding at default settings. Other tests share the cluster, so
 * the assertion covers this test's namespace, the system namespaces and cluster-scoped objects.
 */
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { waitFor } from '../../../src/util/wait.js';
import { createNamespace, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createDeployment,
  createObject,
  deleteNamespaceAndWait,
  removeFinalizers,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const systemNamespaces = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

test('a cluster without faults yields zero findings at default settings', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-clean');
  const keptPath = `/api/v1/namespaces/${ns}/configmaps/guarded`;
  await createNamespace(api, ns);
  try {
    await createDeployment(api, ns, 'web', 1);
    await createObject(api, `/api/v1/namespaces/${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'guarded', finalizers: [cleanupFinalizer] },
    });
    await waitFor(
      async () => {
        const pods = await api.request<{ items: unknown[] }>({ path: `/api/v1/namespaces/${ns}/pods` });
        return { done: pods.items.length === 1, value: pods.items.length };
      },
      { timeoutMs: 60_000, description: 'the Deployment to create its pod' },
    );

    const findings = runRules(await snapshot(api), {
      now: Date.now(),
      stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds,
      environmentNamespaces: new Set([ns]),
    });
    const inScope = findings.filter(
      (f) =>
        f.object.namespace === undefined ||
        f.object.namespace === ns ||
        systemNamespaces.includes(f.object.namespace),
    );
    expect(
      inScope.map((f) => `${f.code} ${f.object.kind} ${f.object.namespace ?? ''}/${f.object.name}`),
    ).toEqual([]);
  } finally {
    await removeFinalizers(api, keptPath);
    await deleteNamespaceAndWait(api, ns);
  }
});
