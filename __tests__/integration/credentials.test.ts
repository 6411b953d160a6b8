/**
 * Every credential form a kubeconfig can carry reaches the real API server as the right
 * identity: relative certificate paths, a bearer token, a tokenFile, and an exec plugin (run by
 * src/cluster/exec-plugin.ts; tokens that expire: token-refresh.test.ts). Identity is read back from the server with a
 * SelfSubjectReview, so a credential that was silently dropped would show as the wrong user.
 */
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { createApiClient } from '../../src/cluster/api-client.js';
import { loadKubeconfig, writeKubeconfigFile } from '../../src/cluster/kubeconfig.js';
import { adminApi, clusterEnv, kubectl, localKubeconfig, uniqueName } from './support/cluster.js';

interface SelfSubjectReview {
  status: { userInfo: { username: string } };
}

async function whoAmI(kubeconfig: string): Promise<string> {
  const api = await createApiClient(loadKubeconfig(kubeconfig, '', {}), { timeoutMs: 10_000 });
  try {
    const review = await api.request<SelfSubjectReview>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    return review.status.userInfo.username;
  } finally {
    await api.close();
  }
}

const pki = () => join(clusterEnv().clusterDir, 'pki');

let namespace: string;
let token: string;

beforeAll(async () => {
  namespace = uniqueName('creds');
  const api = await adminApi();
  await api.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } });
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
    body: { metadata: { name: 'reader' } },
  });
  const request = await api.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/reader/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  token = request.status.token;
  await api.close();
});

afterAll(async () => {
  await kubectl(['delete', 'namespace', namespace, '--wait=false']);
});

const serviceAccount = () => `system:serviceaccount:${namespace}:reader`;

test('client certificate and CA given as paths relative to the kubeconfig file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-rel-'));
  for (const f of ['ca.crt', 'admin.crt', 'admin.key']) copyFileSync(join(pki(), f), join(dir, f));
  const path = join(dir, 'config');
  writeFileSync(
    path,
    localKubeconfig(
      '    client-certificate: admin.crt\n    client-key: admin.key',
      'certificate-authority: ca.crt',
    ),
  );
  expect(await whoAmI(path)).toBe('kube-sweep-admin');
  // The copy kube-sweep writes for helm lives elsewhere: its paths must still resolve.
  const loaded = loadKubeconfig(path, '', {});
  const written = writeKubeconfigFile(loaded, mkdtempSync(join(tmpdir(), 'kube-sweep-out-')));
  const result = await execa(clusterEnv().kubectl, [
    '--kubeconfig',
    written,
    'auth',
    'whoami',
    '-o',
    'jsonpath={.status.userInfo.username}',
  ]);
  expect(result.stdout).toBe('kube-sweep-admin');
  // The client key is masked, read from the file.
  const keyLine = readFileSync(join(dir, 'admin.key'), 'utf8').split('\n')[1]!.trim();
  expect(loaded.secrets).toContain(keyLine);
});

test('a bearer token, inline and as tokenFile', async () => {
  expect(await whoAmI(localKubeconfig(`    token: ${token}`))).toBe(serviceAccount());
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-tok-'));
  writeFileSync(join(dir, 'token'), `${token}\n`);
  const path = join(dir, 'config');
  writeFileSync(path, localKubeconfig('    tokenFile: token'));
  expect(await whoAmI(path)).toBe(serviceAccount());
  expect(loadKubeconfig(localKubeconfig(`    token: ${token}`), '', {}).secrets).toContain(token);
});

test('an exec credential plugin (client.authentication.k8s.io/v1)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-exec-'));
  const plugin = join(dir, 'credential-plugin');
  writeFileSync(
    plugin,
    `#!/bin/sh\ncat <<'EOF'\n${JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token },
    })}\nEOF\n`,
  );
  chmodSync(plugin, 0o755);
  const user = `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      interactiveMode: Never`;
  expect(await whoAmI(localKubeconfig(user))).toBe(serviceAccount());
});
