import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { clusterEnv, deleteIfPresent, kubeconfigYaml, repoRoot } from './cluster.js';

const work = () => mkdtempSync(join(tmpdir(), 'kube-sweep-id-'));

async function openssl(args: string[]) {
  await execa('openssl', args, { stderr: 'ignore' });
}

/** `user` is flat key: value pairs, or the user entry's YAML lines (indented by four spaces). */
function kubeconfig(server: string, caPem: string, user: Record<string, string> | string): string {
  const userLines =
    typeof user === 'string'
      ? user
      : Object.entries(user)
          .map(([k, v]) => `    ${k}: ${v}`)
          .join('\n');
  return kubeconfigYaml(
    server,
    `certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    userLines,
  );
}

function localServerAndCa(): { server: string; caPem: string } {
  const admin = readFileSync(clusterEnv().kubeconfig, 'utf8');
  const server = /server: (\S+)/.exec(admin)![1]!;
  const caPem = readFileSync(join(clusterEnv().clusterDir, 'pki', 'ca.crt'), 'utf8');
  return { server, caPem };
}

/**
 * A kubeconfig (YAML text) for user `name` in `groups`, with a client certificate signed by
 * the local control plane's CA. The user has no RBAC grants until a test binds it.
 */
export async function userKubeconfig(name: string, groups: string[] = []): Promise<string> {
  const dir = work();
  const pki = join(clusterEnv().clusterDir, 'pki');
  const subject = [...groups.map((g) => `/O=${g}`), `/CN=${name}`].join('');
  await openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    subject,
    '-keyout',
    join(dir, 'u.key'),
    '-out',
    join(dir, 'u.csr'),
  ]);
  writeFileSync(join(dir, 'ext'), 'extendedKeyUsage=clientAuth\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    join(dir, 'u.csr'),
    '-CA',
    join(pki, 'ca.crt'),
    '-CAkey',
    join(pki, 'ca.key'),
    '-CAcreateserial',
    '-CAserial',
    join(dir, 'ca.srl'),
    '-days',
    '1',
    '-extfile',
    join(dir, 'ext'),
    '-out',
    join(dir, 'u.crt'),
  ]);
  const { server, caPem } = localServerAndCa();
  return kubeconfig(server, caPem, {
    'client-certificate-data': readFileSync(join(dir, 'u.crt')).toString('base64'),
    'client-key-data': readFileSync(join(dir, 'u.key')).toString('base64'),
  });
}

/** A kubeconfig with a bearer token that no authenticator accepts. */
export function bogusTokenKubeconfig(): string {
  const { server, caPem } = localServerAndCa();
  return kubeconfig(server, caPem, { token: 'not-a-valid-token-kube-sweep-test' });
}

/**
 * A kubeconfig for the local server whose user gets its credentials from the exec plugin
 * `command` (client.authentication.k8s.io/v1): a test's plugin that never answers holds a run
 * at the point where it reads credentials.
 */
export function execPluginKubeconfig(command: string): string {
  const { server, caPem } = localServerAndCa();
  return kubeconfig(
    server,
    caPem,
    `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${command}\n      interactiveMode: Never`,
  );
}

/** A kubeconfig for the local server, but trusting a CA that did not sign its certificate. */
export async function wrongCaKubeconfig(): Promise<string> {
  const dir = work();
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=some-other-ca',
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    join(dir, 'ca.crt'),
  ]);
  const { server } = localServerAndCa();
  return kubeconfig(server, readFileSync(join(dir, 'ca.crt'), 'utf8'), { token: 'irrelevant' });
}

/** A kubeconfig whose server is a loopback port nothing listens on. */
export function nothingListeningKubeconfig(): string {
  const { caPem } = localServerAndCa();
  return kubeconfig('https://127.0.0.1:1', caPem, { token: 'irrelevant' });
}

/**
 * Creates the ClusterRole `name` with `rules`, binds user `user` to it with a ClusterRoleBinding
 * of the same name, runs `fn`, and deletes both afterwards (also when `fn` throws).
 */
export async function withClusterRole<T>(
  api: ApiClient,
  options: { name: string; user: string; rules: readonly unknown[] },
  fn: () => Promise<T>,
): Promise<T> {
  const { name, user, rules } = options;
  await api.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules },
  });
  try {
    await api.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.k8s.io' }],
      },
    });
    return await fn();
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`);
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
  }
}

/**
 * Creates the ClusterRole from rbac/<file> under a unique name, binds `user` to it, runs `fn`,
 * then removes both (with `api`, an admin client).
 */
export async function withRole<T>(
  api: ApiClient,
  file: string,
  user: string,
  fn: () => Promise<T>,
): Promise<T> {
  const role = parse(readFileSync(join(repoRoot, 'rbac', file), 'utf8')) as {
    metadata: { name: string };
    rules: unknown[];
  };
  return withClusterRole(api, { name: `${role.metadata.name}-${user}`, user, rules: role.rules }, fn);
}
