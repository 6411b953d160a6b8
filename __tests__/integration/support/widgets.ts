import { execa } from 'execa';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { clusterEnv, deleteIfPresent, getOrUndefined, helm, repoRoot } from './cluster.js';
import { clearWidgetFinalizers } from './operator.js';

/** The test charts under test/charts. */
export const chart = (name: string): string => join(repoRoot, 'test/charts', name);

/** Runs the pinned Helm 4 against the local control plane. */
export const helm4 = (args: string[], env: Readonly<Record<string, string>> = {}) =>
  helm(clusterEnv().helm4, args, env);

/** Waits until a CRD reports Established=True. */
export async function waitCrdEstablished(api: ApiClient, name: string): Promise<void> {
  await waitFor(
    async () => {
      const crd = await getOrUndefined<{ status?: { conditions?: { type: string; status: string }[] } }>(
        api,
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
      );
      const ok =
        crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
      return { done: ok, value: ok };
    },
    { timeoutMs: 30_000, description: `CRD ${name} to be established` },
  );
}

/**
 * Creates the CRD `widgets.<group>` (namespaced, kind Widget, version v1 accepting any fields)
 * without waiting for it: wait with waitCrdEstablished inside the caller's try, so that its
 * cleanup runs when the wait fails.
 */
export async function createWidgetCrd(api: ApiClient, group: string): Promise<void> {
  await api.request({
    method: 'POST',
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    },
  });
}

/**
 * Retries `attempt` until it succeeds: a CRD that was just established can take a moment to
 * be routable (create answers 404 until then). Throws the last failure after 30 s.
 */
export async function whenServed<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  let lastError: unknown;
  const result = await waitFor(
    async () => {
      try {
        return { done: true, value: await attempt() };
      } catch (error) {
        lastError = error;
        return { done: false, value: undefined };
      }
    },
    { timeoutMs: 30_000, description: what },
  ).catch(() => {
    throw lastError;
  });
  return result as T;
}

/** Applies only the Widget CRD of the operator chart (no release), for `group`, and waits for it. */
export async function applyWidgetCrd(api: ApiClient, group: string): Promise<void> {
  const tpl = await helm4([
    'template',
    'x',
    chart('operator'),
    '--set',
    `group=${group}`,
    '--show-only',
    'templates/crd.yaml',
  ]);
  const env = clusterEnv();
  await execa(env.kubectl, ['--kubeconfig', env.kubeconfig, 'apply', '-f', '-'], {
    input: String(tpl.stdout),
  });
  await waitCrdEstablished(api, `widgets.${group}`);
}

/**
 * Installs the operator chart (CRD, webhook, Deployment) as release `operator` in `operatorNs`
 * for Widget API group `group`, and waits until its CRD is Established. With `webhookUrl`, the
 * chart's real-mode webhook (failurePolicy Fail, a generated serving certificate) calls that URL.
 * @throws Error with Helm's stderr when the install fails
 */
export async function installOperator(
  api: ApiClient,
  env: { group: string; operatorNs: string },
  webhookUrl?: string,
): Promise<void> {
  const op = await helm4([
    'install',
    'operator',
    chart('operator'),
    '-n',
    env.operatorNs,
    '--create-namespace',
    '--set',
    `group=${env.group}`,
    ...(webhookUrl ? ['--set', `webhookUrl=${webhookUrl}`] : []),
  ]);
  if (op.exitCode !== 0) throw new Error(`installing operator: ${op.stderr}`);
  await waitCrdEstablished(api, `widgets.${env.group}`);
}

/**
 * Installs the operator chart (`installOperator`), then the app chart (Widgets w1, w2 with a finalizer unless `finalizer: false`,
 * and a ConfigMap) as release `app` in `appNs`, for a Widget API group of its own.
 * @throws Error with Helm's stderr when an install fails
 */
export async function installOperatorAndApp(
  api: ApiClient,
  env: { group: string; operatorNs: string; appNs: string; finalizer?: boolean },
): Promise<void> {
  await installOperator(api, env);
  await whenServed('the app release to install', async () => {
    const r = await helm4([
      'install',
      'app',
      chart('app'),
      '-n',
      env.appNs,
      '--create-namespace',
      '--set',
      `group=${env.group}`,
      '--set',
      `finalizer=${env.finalizer ?? true}`,
    ]);
    if (r.exitCode !== 0) throw new Error(`installing app: ${r.stderr}`);
  });
}

/**
 * Removes what installOperatorAndApp made, whatever state a test left it in: clears the
 * Widgets' finalizers, uninstalls both releases (failures ignored: a teardown may have done it),
 * deletes the CRD, the webhook configuration and both namespaces.
 */
export async function removeOperatorAndApp(
  api: ApiClient,
  env: { group: string; operatorNs: string; appNs: string },
): Promise<void> {
  await clearWidgetFinalizers(api, env.group).catch(() => {});
  await helm4(['uninstall', 'app', '-n', env.appNs]);
  await helm4(['uninstall', 'operator', '-n', env.operatorNs]);
  await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${env.group}`);
  await deleteIfPresent(
    api,
    `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/operator-${env.group}`,
  );
  await deleteIfPresent(api, `/api/v1/namespaces/${env.appNs}`);
  await deleteIfPresent(api, `/api/v1/namespaces/${env.operatorNs}`);
}
