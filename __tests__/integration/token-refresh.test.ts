/**
 * Credentials that expire during a run, against the real API server. up.sh configures webhook
 * token authentication at 127.0.0.1:KUBE_SWEEP_AUTHN_WEBHOOK_PORT; this file serves it: it
 * issues tokens with a life of its choosing and answers the API server's TokenReviews, accepting
 * a token only while it lives. (kube-apiserver also caches a successful token authentication for
 * 10 s, so a token is refused at most 10 s after its life ends.) The exec credential plugin is a
 * small script that asks this server for a token, as a cloud's login helper asks its cloud.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCluster, type OpenCluster } from '../../src/cluster/open.js';
import { parseSettings } from '../../src/config/settings.js';
import { collectInventory } from '../../src/inventory/collect.js';
import { execaRunner } from '../../src/util/command.js';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { adminApi, clusterEnv, localKubeconfig, uniqueName } from './support/cluster.js';

const username = uniqueName('kube-sweep-token-user');
const role = uniqueName('kube-sweep-token-reader');

/** The test's token issuer and authenticator: tokens, their end (ms), and what it refused. */
const issued = new Map<string, number>();
const refused: string[] = [];
let server: Server;

function issue(lifeMs: number): { token: string; expiresAt: number } {
  const token = `kube-sweep-test-${issued.size}-${Math.random().toString(36).slice(2)}`;
  const expiresAt = Date.now() + lifeMs;
  issued.set(token, expiresAt);
  return { token, expiresAt };
}

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

let admin: ApiClient;
const api = () => admin;

beforeAll(async () => {
  admin = await adminApi();
  server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/issue') {
        // The exec plugin's request: an ExecCredential, with its expiry unless `expiry=no`.
        const { token, expiresAt } = issue(Number(url.searchParams.get('lifeMs')));
        const status = {
          token,
          ...(url.searchParams.get('expiry') === 'no'
            ? {}
            : { expirationTimestamp: new Date(expiresAt).toISOString().replace(/\.\d+Z$/, 'Z') }),
        };
        res.end(
          JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status }),
        );
        return;
      }
      // The API server's TokenReview (authentication.k8s.io/v1).
      const review = JSON.parse(await body(req)) as { spec: { token: string } };
      const token = review.spec.token;
      const end = issued.get(token);
      const authenticated = end !== undefined && Date.now() < end;
      if (end !== undefined && !authenticated) refused.push(token);
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          status: authenticated
            ? { authenticated: true, user: { username, groups: ['system:authenticated'] } }
            : { authenticated: false },
        }),
      );
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(clusterEnv().authnWebhookPort, '127.0.0.1', resolve);
  });
  // The test identity may read everything (as rbac/kube-sweep-scan.yaml), nothing more.
  await api().request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: {
      metadata: { name: role },
      rules: [
        { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
        { nonResourceURLs: ['*'], verbs: ['get'] },
      ],
    },
  });
  await api().request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: {
      metadata: { name: role },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: username }],
    },
  });
});

afterAll(async () => {
  await api().request({
    method: 'DELETE',
    path: `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${role}`,
  });
  await api().request({ method: 'DELETE', path: `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}` });
  await admin.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A kubeconfig file in `dir` for the local API server whose user entry is `user` (YAML lines). */
function kubeconfigWith(dir: string, user: string): string {
  const path = join(dir, 'config');
  writeFileSync(path, localKubeconfig(user));
  return path;
}

/** An exec plugin (a script run with this Node) that asks the test's issuer for a token. */
function execPlugin(dir: string, query: string): string {
  const script = join(dir, 'plugin.mjs');
  writeFileSync(
    script,
    `const r = await fetch('http://127.0.0.1:${clusterEnv().authnWebhookPort}/issue?${query}');\n` +
      'process.stdout.write(await r.text());\n',
  );
  const plugin = join(dir, 'credential-plugin');
  writeFileSync(plugin, `#!/bin/sh\nexec '${process.execPath}' '${script}'\n`);
  chmodSync(plugin, 0o755);
  return `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${plugin}\n      interactiveMode: Never`;
}

async function open(kubeconfig: string, masked: string[], logs: string[]): Promise<OpenCluster> {
  const settings = parseSettings((name) => ({ mode: 'inventory', kubeconfig })[name as string] ?? '');
  return openCluster(settings, {
    env: {},
    commands: execaRunner,
    setSecret: (s) => masked.push(s),
    log: (line) => logs.push(line),
  });
}

/** GETs one page of namespaces until `done()`; every request must succeed (it throws otherwise). */
async function requestUntil(cluster: OpenCluster, done: () => boolean): Promise<number> {
  let requests = 0;
  while (!done()) {
    await cluster.api.request({ path: '/api/v1/namespaces', query: { limit: 1 } });
    requests++;
    await new Promise((r) => setTimeout(r, 100));
  }
  return requests;
}

const tokensIssuedSince = (before: number) => issued.size - before;

test('exec plugin tokens that expire during a run are obtained again, and every one is masked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-token-'));
  const masked: string[] = [];
  const logs: string[] = [];
  const before = issued.size;
  const cluster = await open(kubeconfigWith(dir, execPlugin(dir, 'lifeMs=3000')), masked, logs);
  try {
    // A run longer than three tokens' lives: whole inventories, one after the other, on one client.
    let inventories = 0;
    while (tokensIssuedSince(before) < 4) {
      const inventory = await collectInventory(cluster.api, { pageSize: 500, concurrency: 8 });
      expect(inventory.coverage).toEqual([]);
      inventories++;
    }
    expect(inventories).toBeGreaterThan(0);
  } finally {
    await cluster.api.close();
  }
  const tokens = [...issued.keys()].slice(before);
  expect(tokens.length).toBeGreaterThanOrEqual(4);
  for (const token of tokens) expect(masked).toContain(token);
});

test('an exec plugin token the server refuses (401) is obtained again and the request sent once more', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-token-'));
  const masked: string[] = [];
  const logs: string[] = [];
  const before = issued.size;
  const refusedBefore = refused.length;
  // The plugin does not say when its tokens expire: only the server's 401 tells.
  const cluster = await open(kubeconfigWith(dir, execPlugin(dir, 'lifeMs=2000&expiry=no')), masked, logs);
  try {
    const requests = await requestUntil(cluster, () => refused.length > refusedBefore);
    expect(requests).toBeGreaterThan(0);
    // Once more after the refusal, with the new token.
    await cluster.api.request({ path: '/api/v1/namespaces', query: { limit: 1 } });
  } finally {
    await cluster.api.close();
  }
  expect(tokensIssuedSince(before)).toBeGreaterThanOrEqual(2);
  expect(logs.some((l) => /refused the token \(401\).*sent it again/.test(l))).toBe(true);
  for (const token of [...issued.keys()].slice(before)) expect(masked).toContain(token);
});

test('a tokenFile whose token is replaced during a run is read again after the 401, and the new token masked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-token-'));
  const masked: string[] = [];
  const logs: string[] = [];
  const first = issue(60 * 60_000);
  writeFileSync(join(dir, 'token'), `${first.token}\n`);
  const refusedBefore = refused.length;
  const cluster = await open(kubeconfigWith(dir, '    tokenFile: token'), masked, logs);
  try {
    await cluster.api.request({ path: '/api/v1/namespaces', query: { limit: 1 } });
    // Rotate: a new token in the file, the old one revoked at the authenticator.
    const second = issue(60 * 60_000);
    writeFileSync(join(dir, 'token'), `${second.token}\n`);
    issued.set(first.token, 0);
    await requestUntil(cluster, () => refused.slice(refusedBefore).includes(first.token));
    await cluster.api.request({ path: '/api/v1/namespaces', query: { limit: 1 } });
    expect(masked).toEqual(expect.arrayContaining([first.token, second.token]));
  } finally {
    await cluster.api.close();
  }
  expect(logs.some((l) => /refused the token \(401\)/.test(l))).toBe(true);
});
