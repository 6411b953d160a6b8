import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApiClient, type ApiClient } from '../../../src/cluster/api-client.js';
import { loadKubeconfig } from '../../../src/cluster/kubeconfig.js';
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { waitFor } from '../../../src/util/wait.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export function clusterEnvPath(): string {
  return join(process.env.KUBE_SWEEP_CLUSTER_DIR ?? join(repoRoot, '.cluster'), 'env');
}

/** What test/cluster/up.sh wrote to .cluster/env. */
export interface ClusterEnv {
  readonly kubeconfig: string;
  readonly clusterDir: string;
  readonly etcdEndpoint: string;
  readonly kubectl: string;
  readonly helm3: string;
  readonly helm4: string;
  readonly kwok: boolean;
  /** Where the API server sends TokenReviews for tokens no other authenticator knows (up.sh). */
  readonly authnWebhookPort: number;
}

export function clusterEnv(): ClusterEnv {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(clusterEnvPath(), 'utf8').split('\n')) {
    const m = /^export (\w+)='([^']*)'/.exec(line) ?? /^export (\w+)=(\S+)/.exec(line);
    if (m) vars[m[1]!] = m[2]!;
  }
  return {
    kubeconfig: vars.KUBECONFIG!,
    clusterDir: vars.KUBE_SWEEP_CLUSTER_DIR!,
    etcdEndpoint: vars.KUBE_SWEEP_ETCD_ENDPOINT!,
    kubectl: vars.KUBECTL!,
    helm3: vars.HELM3!,
    helm4: vars.HELM4!,
    kwok: vars.KUBE_SWEEP_KWOK === '1',
    authnWebhookPort: Number(vars.KUBE_SWEEP_AUTHN_WEBHOOK_PORT),
  };
}

/**
 * A kubeconfig (YAML) with one cluster, user and context: `clusterLine` gives the CA (a
 * `certificate-authority...` line), `userLines` the user entry's lines, indented by four spaces.
 */
export function kubeconfigYaml(server: string, clusterLine: string, userLines: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: ${server}
    ${clusterLine}
users:
- name: u
  user:
${userLines}
contexts:
- name: local
  context: {cluster: local, user: u}
current-context: local
`;
}

/** A kubeconfig (YAML) for the local API server; `cluster` is the CA line (default: the CA file). */
export function localKubeconfig(
  user: string,
  cluster = `certificate-authority: ${join(clusterEnv().clusterDir, 'pki', 'ca.crt')}`,
): string {
  const server = /server: (\S+)/.exec(readFileSync(clusterEnv().kubeconfig, 'utf8'))![1]!;
  return kubeconfigYaml(server, cluster, user);
}

/** An ApiClient with the admin identity of the local control plane. */
export async function adminApi(): Promise<ApiClient> {
  const loaded = loadKubeconfig(clusterEnv().kubeconfig, '', {});
  return createApiClient(loaded, { timeoutMs: 30_000 });
}

/** An ApiClient with the admin identity for the tests of one file: opened before all, closed after all. */
export function adminApiForSuite(): () => ApiClient {
  let api: ApiClient | undefined;
  beforeAll(async () => {
    api = await adminApi();
  });
  afterAll(async () => {
    await api?.close();
  });
  return () => api!;
}

/** A name no other test uses: `<prefix>-<random>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Runs kubectl against the local control plane; throws with stderr on failure. */
export async function kubectl(args: string[], input?: string): Promise<string> {
  const env = clusterEnv();
  const result = await execa(env.kubectl, ['--kubeconfig', env.kubeconfig, ...args], {
    reject: false,
    ...(input !== undefined ? { input } : {}),
  });
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return String(result.stdout);
}

/**
 * Runs a Helm binary against the local control plane; `extraEnv` adds variables (e.g. HELM_DRIVER)
 * to the test's own environment.
 */
export async function helm(binary: string, args: string[], extraEnv: Readonly<Record<string, string>> = {}) {
  const env = clusterEnv();
  // The kubeconfig flag goes before a `--` (after it, helm reads every word as a name).
  const dash = args.indexOf('--');
  const withKubeconfig =
    dash < 0
      ? [...args, '--kubeconfig', env.kubeconfig]
      : [...args.slice(0, dash), '--kubeconfig', env.kubeconfig, ...args.slice(dash)];
  return execa(binary, withKubeconfig, { reject: false, env: extraEnv });
}

/** GET that returns undefined on 404. */
export async function getOrUndefined<T>(api: ApiClient, path: string): Promise<T | undefined> {
  try {
    return await api.request<T>({ path });
  } catch (error) {
    if (error instanceof KubernetesApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Waits until GET `path` is 404. */
export async function waitGone(api: ApiClient, path: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => ({ done: (await getOrUndefined(api, path)) === undefined, value: path }), {
    timeoutMs,
    description: `${path} to be gone`,
  });
}

export async function createNamespace(api: ApiClient, name: string, labels: Record<string, string> = {}) {
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
  });
}

/** Deletes (404 is fine) without waiting. */
export async function deleteIfPresent(api: ApiClient, path: string, query: Record<string, string> = {}) {
  try {
    await api.request({ method: 'DELETE', path, query });
  } catch (error) {
    if (!(error instanceof KubernetesApiError && error.status === 404)) throw error;
  }
}

/**
 * Registers the APIService `<version>.<group>` backed by Service `kube-system/<serviceName>`,
 * which tests never create: the aggregator reports it Available=False (ServiceNotFound).
 * @returns the APIService's name
 */
export async function createApiServiceWithoutBackend(
  api: ApiClient,
  options: { group: string; version?: string; serviceName: string; serviceNamespace?: string },
): Promise<string> {
  const version = options.version ?? 'v1';
  const name = `${version}.${options.group}`;
  await api.request({
    method: 'POST',
    path: '/apis/apiregistration.k8s.io/v1/apiservices',
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name },
      spec: {
        group: options.group,
        version,
        groupPriorityMinimum: 100,
        versionPriority: 100,
        insecureSkipTLSVerify: true,
        service: {
          namespace: options.serviceNamespace ?? 'kube-system',
          name: options.serviceName,
          port: 443,
        },
      },
    },
  });
  return name;
}
