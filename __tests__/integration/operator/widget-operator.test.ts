/**
 * The Widget operator of the sample charts (test/operator/operator.mjs), run as a process against
 * the local control plane, with the chart's real-mode webhook pointing at it over loopback
 * (`webhookUrl`). The same script is the container of the kind e2e tests.
 */
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { waitFor } from '../../../src/util/wait.js';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { adminApi, deleteIfPresent, getOrUndefined, uniqueName, waitGone } from '../support/cluster.js';
import { freePort, startOperatorProcess, type OperatorProcess } from '../support/operator-process.js';
import { clearWidgetFinalizers } from '../support/operator.js';
import { installOperator, removeOperatorAndApp, whenServed } from '../support/widgets.js';

let client: ApiClient | undefined;
const api = () => client!;
const id = uniqueName('wop');
const env = { group: `${id}.kube-sweep.test`, operatorNs: `${id}-operator`, appNs: `${id}-app` };
const webhookPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/operator-${env.group}`;
const widgets = (ns: string) => `/apis/${env.group}/v1/namespaces/${ns}/widgets`;
let operator: OperatorProcess | undefined;

interface Widget {
  metadata: { name: string; finalizers?: string[]; deletionTimestamp?: string };
}

function widget(name: string, size: number) {
  return {
    apiVersion: `${env.group}/v1`,
    kind: 'Widget',
    metadata: { name, finalizers: [`${env.group}/cleanup`] },
    spec: { size },
  };
}

beforeAll(async () => {
  client = await adminApi();
  const port = await freePort();
  await installOperator(api(), env, `https://127.0.0.1:${port}/validate`);
  operator = await startOperatorProcess(api(), { ...env, port, identity: `${id}-local` });
  const app = await api().request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { metadata: { name: env.appNs } },
  });
  expect(app).toBeDefined();
});

afterAll(async () => {
  await operator?.stop();
  // The webhook fails closed: it goes first, or clearing the finalizers (an UPDATE) is refused.
  await deleteIfPresent(api(), webhookPath);
  await clearWidgetFinalizers(api(), env.group).catch(() => {});
  await removeOperatorAndApp(api(), env);
  await client?.close();
});

test('the webhook answers over TLS: it admits a Widget and denies one with a negative size, naming itself', async () => {
  await whenServed('a Widget to be created', () =>
    api().request({ method: 'POST', path: widgets(env.appNs), body: widget('good', 1) }),
  );
  const denied = await api()
    .request({ method: 'POST', path: widgets(env.appNs), body: widget('bad', -1) })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(denied).toBeInstanceOf(KubernetesApiError);
  expect((denied as KubernetesApiError).apiMessage).toContain(
    'widget-operator: spec.size must be >= 0, not -1',
  );
  expect(await getOrUndefined(api(), `${widgets(env.appNs)}/bad`)).toBeUndefined();
  await operator!.waitForOutput(`webhook: CREATE Widget ${env.appNs}/bad: denied`);
});

test('it holds its Lease under its identity', async () => {
  const lease = await api().request<{ spec: { holderIdentity: string; leaseDurationSeconds: number } }>({
    path: `/apis/coordination.k8s.io/v1/namespaces/${env.operatorNs}/leases/widget-operator`,
  });
  expect(lease.spec).toMatchObject({ holderIdentity: `${id}-local`, leaseDurationSeconds: 15 });
});

test('it removes its finalizer from a Widget being deleted, and the Widget goes', async () => {
  await whenServed('a Widget to be created', () =>
    api().request({ method: 'POST', path: widgets(env.appNs), body: widget('doomed', 2) }),
  );
  await api().request({ method: 'DELETE', path: `${widgets(env.appNs)}/doomed` });
  await waitGone(api(), `${widgets(env.appNs)}/doomed`, 30_000);
  // The operator logs after its PATCH returns: the Widget can be gone before the line arrives.
  await operator!.waitForOutput(`removed finalizer ${env.group}/cleanup from Widget ${env.appNs}/doomed`);
});

test('once it is stopped, a Widget being deleted keeps its finalizer and the webhook fails closed', async () => {
  const running = operator!;
  operator = undefined;
  await running.stop();
  await api().request({ method: 'DELETE', path: `${widgets(env.appNs)}/good` });
  const stuck = await waitFor(
    async () => {
      const w = await getOrUndefined<Widget>(api(), `${widgets(env.appNs)}/good`);
      return { done: Boolean(w?.metadata.deletionTimestamp), value: w };
    },
    { timeoutMs: 10_000, description: 'Widget good to be marked for deletion' },
  );
  expect(stuck?.metadata.finalizers).toEqual([`${env.group}/cleanup`]);
  const refused = await api()
    .request({ method: 'POST', path: widgets(env.appNs), body: widget('later', 1) })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect((refused as KubernetesApiError).apiMessage).toContain('failed calling webhook');
});
