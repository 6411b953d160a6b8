/**
 * Smoke tests of the local control plane (test/cluster/up.sh): the controllers kube-sweep
 * relies on really run, and both Helm majors work against it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { waitFor } from '../../src/util/wait.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  helm,
  repoRoot,
  uniqueName,
  waitGone,
  createApiServiceWithoutBackend,
} from './support/cluster.js';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface NamespaceObject {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { phase?: string; conditions?: Condition[] };
}

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('the API server reports the pinned version', async () => {
  const version = await api.request<{ gitVersion: string }>({ path: '/version' });
  expect(version.gitVersion).toBe('v1.37.2');
});

test('a namespace deletion completes (namespace controller)', async () => {
  const ns = uniqueName('smoke-ns');
  await createNamespace(api, ns);
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: 'b' } },
  });
  await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
  await waitGone(api, `/api/v1/namespaces/${ns}`, 60_000);
  expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/c1`)).toBeUndefined();
});

test('foreground deletion of a Deployment takes its ReplicaSet and Pods (garbage collector)', async () => {
  const ns = uniqueName('smoke-gc');
  await createNamespace(api, ns);
  try {
    const labels = { app: 'web' };
    await api.request({
      method: 'POST',
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'web', image: 'registry.invalid/web:1' }] },
          },
        },
      },
    });
    const pods = await waitFor(
      async () => {
        const list = await api.request<{ items: unknown[] }>({
          path: `/api/v1/namespaces/${ns}/pods`,
          query: { labelSelector: 'app=web' },
        });
        return { done: list.items.length === 2, value: list.items.length };
      },
      { timeoutMs: 60_000, description: 'the Deployment to create 2 pods' },
    );
    expect(pods).toBe(2);
    const rs = await api.request<{ items: unknown[] }>({
      path: `/apis/apps/v1/namespaces/${ns}/replicasets`,
    });
    expect(rs.items).toHaveLength(1);

    await api.request({
      method: 'DELETE',
      path: `/apis/apps/v1/namespaces/${ns}/deployments/web`,
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
    });
    await waitGone(api, `/apis/apps/v1/namespaces/${ns}/deployments/web`, 60_000);
    const left = await api.request<{ items: unknown[] }>({
      path: `/apis/apps/v1/namespaces/${ns}/replicasets`,
    });
    const leftPods = await api.request<{ items: unknown[] }>({ path: `/api/v1/namespaces/${ns}/pods` });
    expect(left.items).toHaveLength(0);
    expect(leftPods.items).toHaveLength(0);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

describe.each([
  ['Helm 4', () => clusterEnv().helm4, /^v4\./],
  ['Helm 3', () => clusterEnv().helm3, /^v3\./],
])('%s', (_name, binary, versionPattern) => {
  test('installs and uninstalls a local chart', async () => {
    const ns = uniqueName('smoke-helm');
    const version = await helm(binary(), ['version', '--template', '{{.Version}}']);
    expect(String(version.stdout)).toMatch(versionPattern);
    const install = await helm(binary(), [
      'install',
      'sample',
      join(repoRoot, 'test/charts/sample'),
      '-n',
      ns,
      '--create-namespace',
    ]);
    if (install.exitCode !== 0) throw new Error(`helm install failed: ${install.stderr}`);
    try {
      const secret = await getOrUndefined<{ metadata: { labels: Record<string, string> } }>(
        api,
        `/api/v1/namespaces/${ns}/secrets/sh.helm.release.v1.sample.v1`,
      );
      expect(secret?.metadata.labels).toMatchObject({ owner: 'helm', name: 'sample', status: 'deployed' });
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/sample-config`)).toBeDefined();

      const uninstall = await helm(binary(), ['uninstall', 'sample', '-n', ns]);
      if (uninstall.exitCode !== 0) throw new Error(`helm uninstall failed: ${uninstall.stderr}`);
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/sample-config`)).toBeUndefined();
      expect(await getOrUndefined(api, `/apis/apps/v1/namespaces/${ns}/deployments/sample`)).toBeUndefined();
      expect(
        await getOrUndefined(api, `/api/v1/namespaces/${ns}/secrets/sh.helm.release.v1.sample.v1`),
      ).toBeUndefined();
    } finally {
      await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    }
  });
});

const conditionsFixture = join(repoRoot, '__tests__/fixtures/namespace-conditions-discovery-failure.json');

test('an APIService without its Service makes a deleted namespace report NamespaceDeletionDiscoveryFailure', async () => {
  const group = `${uniqueName('smoke')}.kube-sweep.test`;
  const apiService = `v1.${group}`;
  const ns = uniqueName('smoke-disc');
  await createNamespace(api, ns);
  await createApiServiceWithoutBackend(api, { group, serviceName: `missing-${group.split('.')[0]}` });
  try {
    const available = await waitFor(
      async () => {
        const s = await api.request<{ status?: { conditions?: Condition[] } }>({
          path: `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`,
        });
        const c = s.status?.conditions?.find((x) => x.type === 'Available');
        return { done: c?.status === 'False', value: c };
      },
      { timeoutMs: 30_000, description: `APIService ${apiService} to report Available=False` },
    );
    expect(available).toMatchObject({ status: 'False', reason: 'ServiceNotFound' });

    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    const conditions = await waitFor(
      async () => {
        const n = await api.request<NamespaceObject>({ path: `/api/v1/namespaces/${ns}` });
        const c = n.status?.conditions ?? [];
        return {
          done: c.some((x) => x.type === 'NamespaceDeletionDiscoveryFailure' && x.status === 'True'),
          value: c,
        };
      },
      { timeoutMs: 60_000, description: `namespace ${ns} to report a discovery failure` },
    );
    const failure = conditions.find((c) => c.type === 'NamespaceDeletionDiscoveryFailure')!;
    expect(failure.reason).toBe('DiscoveryFailed');
    expect(failure.message).toContain(`${group}/v1`);
    expect(conditions.map((c) => c.type).sort()).toEqual([
      'NamespaceContentRemaining',
      'NamespaceDeletionContentFailure',
      'NamespaceDeletionDiscoveryFailure',
      'NamespaceDeletionGroupVersionParsingFailure',
      'NamespaceFinalizersRemaining',
    ]);

    // The fixture later rules match on: the exact strings of this pinned version, with the
    // generated names replaced by placeholders.
    const normalized = {
      kubernetesVersion: 'v1.37.2',
      apiServiceAvailable: {
        type: available!.type,
        status: available!.status,
        reason: available!.reason,
        message: available!.message.replaceAll(group.split('.')[0]!, '<name>'),
      },
      namespaceConditions: conditions
        .map(({ type, status, reason, message }) => ({
          type,
          status,
          reason,
          message: message.replaceAll(group, '<group>'),
        }))
        .sort((a, b) => a.type.localeCompare(b.type)),
    };
    if (process.env.RECORD_FIXTURES === '1') {
      mkdirSync(join(repoRoot, '__tests__/fixtures'), { recursive: true });
      writeFileSync(conditionsFixture, JSON.stringify(normalized, null, 2) + '\n');
    }
    expect(normalized).toEqual(JSON.parse(readFileSync(conditionsFixture, 'utf8')));
  } finally {
    await deleteIfPresent(api, `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`);
  }
  // With the broken APIService gone, the namespace controller finishes the job.
  await waitGone(api, `/api/v1/namespaces/${ns}`, 90_000);
});
