/**
 * Every way of failing to reach the cluster gives a ClusterAccessError with the right problem
 * and a message that names the fix, against the real API server.
 */
import { ClusterAccessError } from '../../src/cluster/errors.js';
import { openCluster } from '../../src/cluster/open.js';
import { parseSettings } from '../../src/config/settings.js';
import type { InputName } from '../../src/words/input-words.js';
import { execaRunner } from '../../src/util/command.js';
import { adminApi, clusterEnv, uniqueName } from './support/cluster.js';
import {
  bogusTokenKubeconfig,
  nothingListeningKubeconfig,
  userKubeconfig,
  withClusterRole,
  wrongCaKubeconfig,
} from './support/identities.js';

function settings(values: Partial<Record<InputName, string>>) {
  return parseSettings((name) => (({ mode: 'inventory', ...values }) as Record<string, string>)[name] ?? '');
}

async function problemOf(values: Partial<Record<InputName, string>>) {
  const secrets: string[] = [];
  try {
    const open = await openCluster(settings({ 'request-timeout': '5s', ...values }), {
      env: {},
      commands: execaRunner,
      setSecret: (s) => secrets.push(s),
      log: () => {},
    });
    await open.api.close();
    return { problem: 'none', message: '', secrets };
  } catch (error) {
    if (!(error instanceof ClusterAccessError)) throw error;
    return { problem: error.problem, message: error.message, secrets };
  }
}

test('the admin kubeconfig connects', async () => {
  const result = await problemOf({ kubeconfig: clusterEnv().kubeconfig });
  expect(result.problem).toBe('none');
  expect(result.secrets.length).toBeGreaterThan(0);
});

test.each<[string, () => Promise<Partial<Record<InputName, string>>>, string, RegExp]>([
  [
    'a wrong path',
    async () => ({ kubeconfig: '/no/such/dir/kubeconfig' }),
    'no-such-file',
    /no such file '\/no\/such\/dir\/kubeconfig'/,
  ],
  ['bad YAML', async () => ({ kubeconfig: 'clusters: [\n  - {{' }), 'not-a-kubeconfig', /not valid YAML/],
  [
    'an unknown context',
    async () => ({ kubeconfig: clusterEnv().kubeconfig, context: 'staging' }),
    'no-such-context',
    /'staging'.*contexts there: kube-sweep-local/,
  ],
  [
    'nothing listening on the port',
    async () => ({ kubeconfig: nothingListeningKubeconfig() }),
    'unreachable',
    /127\.0\.0\.1:1 did not answer.*is the cluster running/,
  ],
  [
    'a wrong CA',
    async () => ({ kubeconfig: await wrongCaKubeconfig() }),
    'tls',
    /TLS verification of https:\/\/127\.0\.0\.1:\d+ failed.*certificate-authority-data/,
  ],
  [
    'a token no authenticator accepts (401)',
    async () => ({ kubeconfig: bogusTokenKubeconfig() }),
    'unauthorized',
    /401 Unauthorized.*refresh the kubeconfig/,
  ],
  [
    'an identity with no grants (403)',
    async () => ({ kubeconfig: await userKubeconfig(uniqueName('nobody')) }),
    'forbidden',
    /may not list namespaces.*403/,
  ],
])('%s', async (_what, inputs, problem, message) => {
  const result = await problemOf(await inputs());
  expect(result.problem).toBe(problem);
  expect(result.message).toMatch(message);
  expect(result.message).not.toContain('not-a-valid-token');
});

test('an identity that may list only some resources connects; the inventory reports the rest as coverage', async () => {
  expect.hasAssertions();
  const api = await adminApi();
  const user = uniqueName('partial-reader');
  const rules = [{ apiGroups: [''], resources: ['namespaces', 'configmaps'], verbs: ['get', 'list'] }];
  try {
    await withClusterRole(api, { name: `kube-sweep-test-${user}`, user, rules }, async () => {
      const { collectInventory } = await import('../../src/inventory/collect.js');
      const open = await openCluster(settings({ kubeconfig: await userKubeconfig(user) }), {
        env: {},
        commands: execaRunner,
        setSecret: () => {},
        log: () => {},
      });
      try {
        const inventory = await collectInventory(open.api, { pageSize: 500, concurrency: 4 });
        const forbidden = inventory.coverage.filter((g) => g.reason === 'forbidden').map((g) => g.resource);
        expect(forbidden).toContain('secrets/v1');
        expect(forbidden).not.toContain('configmaps/v1');
        expect(forbidden).not.toContain('namespaces/v1');
        const secrets = inventory.coverage.find((g) => g.resource === 'secrets/v1')!;
        expect(secrets.hint).toBe('apiGroups: [""], resources: ["secrets"], verbs: ["list"]');
        expect(secrets.message).toContain(`User "${user}" cannot list resource "secrets"`);
        expect(
          inventory.objects.some((o) => o.resource === 'configmaps' && o.name === 'kube-root-ca.crt'),
        ).toBe(true);
      } finally {
        await open.api.close();
      }
    });
  } finally {
    await api.close();
  }
});
