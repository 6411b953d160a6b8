/**
 * Faults on the real control plane, while kube-sweep runs: the API server restarted in the
 * middle of a teardown's wait and of an inventory, etcd paused for longer than a request
 * timeout, one release's `helm uninstall` failing, and a connection dropped in the middle of a
 * list response. kube-sweep retries what is worth retrying, finishes what it can, reports what
 * it could not do, and is never `clean` or `complete` when it did not look.
 *
 * Watches: every wait lists once and then watches from that list (teardown/wait-gone.ts,
 * teardown/namespaces.ts); a watch that breaks falls back to lists. The API server restart
 * below breaks the watch of a teardown wait (the log says so); a connection dropped in the
 * middle of a list is tested below with an HTTPS relay that cuts the connection in the middle
 * of the answer to the list it means (by path).
 *
 * These tests restart the API server of the cluster the tests use (test/cluster/
 * restart-apiserver.sh, same flags as up.sh) and SIGSTOP its etcd; each waits until the
 * control plane is ready again before it ends.
 */
import { execa } from 'execa';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import {
  Agent as HttpsAgent,
  createServer as createHttpsServer,
  request as httpsRequest,
  type Server as HttpsServer,
} from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodeOf } from '../../src/cli/index.js';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { waitFor } from '../../src/util/wait.js';
import { runAction } from './support/action.js';
import { auditMark, kubeSweepRequestsSince } from './support/audit.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  kubectl,
  repoRoot,
  uniqueName,
} from './support/cluster.js';
import { userKubeconfig, withRole } from './support/identities.js';
import { chart, helm4 } from './support/widgets.js';

/** Per test: a restart or a pause takes tens of seconds on a busy machine. */
const timeout = 300_000;

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
}, timeout);
afterAll(async () => {
  await api.close();
}, timeout);

/** Restarts the API server with the flags up.sh gave it, down for `downSeconds`; resolves when ready. */
async function restartApiServer(downSeconds = 0): Promise<void> {
  await execa('bash', [join(repoRoot, 'test/cluster/restart-apiserver.sh'), String(downSeconds)], {
    env: { KUBE_SWEEP_CLUSTER_DIR: clusterEnv().clusterDir },
  });
}

/** Freezes etcd (SIGSTOP) for `ms`, then lets it go on (SIGCONT), even when the caller fails. */
async function pauseEtcd(ms: number): Promise<void> {
  const pid = Number(readFileSync(join(clusterEnv().clusterDir, 'pids', 'etcd.pid'), 'utf8').trim());
  expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('etcd');
  process.kill(pid, 'SIGSTOP');
  try {
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

const hold = 'kube-sweep.test/hold';

/** Installs the sample chart as `web` in a new namespace, with a finalizer on its ConfigMap. */
async function heldRelease(): Promise<string> {
  const ns = uniqueName('fault');
  const r = await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace']);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  await api.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${ns}/configmaps/web-config`,
    contentType: 'application/merge-patch+json',
    body: { metadata: { finalizers: [hold] } },
  });
  return ns;
}

async function release(ns: string): Promise<void> {
  await api.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${ns}/configmaps/web-config`,
    contentType: 'application/merge-patch+json',
    body: { metadata: { finalizers: null } },
    retryConflict: true,
  });
}

/** Resolves once helm has uninstalled: the held ConfigMap is being deleted, so kube-sweep waits. */
async function inTheWait(ns: string): Promise<void> {
  await waitFor(
    async () => {
      const cm = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
        api,
        `/api/v1/namespaces/${ns}/configmaps/web-config`,
      );
      return { done: cm?.metadata.deletionTimestamp !== undefined, value: cm };
    },
    { timeoutMs: 60_000, description: `the ConfigMap in ${ns} to be deleting` },
  );
}

/** Creates namespace `ns` with `count` ConfigMaps cm-0, cm-1, … carrying `annotations`. */
async function namespaceWithConfigMaps(ns: string, count: number, annotations: Record<string, string> = {}) {
  await createNamespace(api, ns);
  const items = Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: ns, annotations },
  }));
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
}

/**
 * Waits until no namespace is Terminating: namespaces of earlier tests still going take their
 * ConfigMaps (kube-root-ca.crt) with them, which would change a count between two reads.
 */
async function settled(): Promise<void> {
  await waitFor(
    async () => {
      const list = await api.request<{ items: { status?: { phase?: string } }[] }>({
        path: '/api/v1/namespaces',
      });
      const terminating = list.items.filter((n) => n.status?.phase === 'Terminating').length;
      return { done: terminating === 0, value: terminating };
    },
    { timeoutMs: 120_000, description: 'no namespace to be Terminating' },
  );
}

/**
 * The held release's finalizer is removed by the test (`release`), a controller no snapshot
 * shows, so the prediction says it hangs: the teardown must still wait for it here.
 */
const byHand = { 'await-predicted-hangs': 'true' } as const;

async function removeNamespace(ns: string): Promise<void> {
  await release(ns).catch(() => undefined);
  await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
}

test(
  'the API server restarted in the middle of a teardown wait: the wait goes on and ends clean',
  async () => {
    const ns = await heldRelease();
    try {
      const run = runAction({
        mode: 'teardown',
        namespaces: ns,
        'stage-timeout': '3m',
        timeout: '5m',
        ...byHand,
      });
      await inTheWait(ns);
      await restartApiServer(2);
      await release(ns);
      const { report, log, failures } = await run;
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
      expect(report.teardown!.stages[0]!.releases.map((r) => r.status)).toEqual(['uninstalled']);
      expect(report.teardown!.stages[0]!.remaining).toEqual([]);
      expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[ns, 'deleted']]);
      // It did see the outage (so the test did test something), and waited it out: its watch
      // broke, and the lists that followed were refused until the server was back (retried, or,
      // when the server took longer than the retries, waited out with the outage budget).
      expect(log.some((l) => /^watch of .* failed \(.*\); listing instead$/.test(l))).toBe(true);
      expect(
        log.some((l) =>
          /the API server has not answered GET .* for \d+ s; still trying|retrying GET .*: ECONNREFUSED/.test(
            l,
          ),
        ),
      ).toBe(true);
    } finally {
      await removeNamespace(ns);
    }
  },
  timeout,
);

test(
  'the API server restarted in the middle of a teardown wait, as an RBAC-bound identity: no startup 403 counts, it ends clean',
  async () => {
    // A kube-apiserver that just started answers 403 to RBAC-bound users (not system:masters)
    // until its RBAC cache syncs: a 403 right after the server came back is retried.
    const ns = await heldRelease();
    const user = uniqueName('fault-rbac');
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kube-sweep-fault-rbac-')), 'config');
    writeFileSync(kubeconfig, await userKubeconfig(user));
    try {
      const { report, failures } = await withRole(api, 'kube-sweep-teardown.yaml', user, async () => {
        const run = runAction({
          mode: 'teardown',
          namespaces: ns,
          kubeconfig,
          'stage-timeout': '3m',
          timeout: '5m',
          ...byHand,
        });
        await inTheWait(ns);
        await restartApiServer(2);
        await release(ns);
        return run;
      });
      // Seen twice under load (verdict leftovers, not reproduced alone): say why if it comes back.
      if (report.verdict !== 'clean')
        console.log(
          `unexpected verdict ${report.verdict}: ${JSON.stringify({ findings: report.findings?.map((f) => [f.code, f.message]), teardown: report.teardown, failing: report.failing })}`,
        );
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
      expect(report.teardown!.refusals ?? []).toEqual([]);
      expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[ns, 'deleted']]);
    } finally {
      await removeNamespace(ns);
    }
  },
  timeout,
);

test(
  'the API server gone for longer than the outage budget (60 s): the run ends in error, never clean',
  async () => {
    const ns = await heldRelease();
    try {
      const run = runAction({
        mode: 'teardown',
        namespaces: ns,
        'stage-timeout': '4m',
        timeout: '5m',
        ...byHand,
      });
      await inTheWait(ns);
      const restart = restartApiServer(75);
      const { report, failures } = await run;
      await restart;
      expect(report.verdict).toBe('error');
      expect(exitCodeOf(report)).toBe(2);
      expect(failures[0]).toMatch(
        /^the teardown stopped: the API server https:\/\/127\.0\.0\.1:\d+ did not answer GET \S+ \(.*\); it had answered before, and was tried again for 6\d s: is the control plane \(API server, etcd\) down\? Done before that: 1 release\(s\) removed \(\S+\/web\); deletion of 1 namespace\(s\) accepted \(\S+ not confirmed\); the cluster was not looked at again/,
      );
      // A fault never erases what was done: the plan and the steps taken are in the report.
      expect(report.plan?.namespacesToDelete).toEqual([ns]);
      expect(report.teardown!.stages[0]!.releases.map((r) => [r.release, r.status])).toEqual([
        [`${ns}/web`, 'uninstalled'],
      ]);
    } finally {
      await removeNamespace(ns);
    }
  },
  timeout,
);

test(
  'the API server restarted in the middle of an inventory: paged lists resume and the count is exact',
  async () => {
    const ns = uniqueName('fault-inv');
    const count = 400;
    await namespaceWithConfigMaps(ns, count);
    await settled();
    try {
      // One object per page, one list at a time: the ConfigMaps take 400 pages. The server goes
      // as soon as the audit log shows their list under way (a page asked with a continue token).
      const configMapCount = async () =>
        (await kubectl(['get', 'configmaps', '-A', '-o', 'name'])).trim().split('\n').length;
      const before = await configMapCount();
      const mark = auditMark();
      const run = runAction({ mode: 'inventory', 'page-size': '1', 'list-concurrency': '1' });
      await waitFor(
        async () => {
          const paging = kubeSweepRequestsSince(mark).some((e) =>
            /^\/api\/v1\/configmaps\?.*continue=/.test(e.requestURI),
          );
          return { done: paging, value: paging };
        },
        {
          timeoutMs: 60_000,
          intervalMs: 50,
          maxIntervalMs: 50,
          description: 'the ConfigMaps list to be paging',
        },
      );
      await restartApiServer(1);
      const { report, log, failures } = await run;
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('complete');
      expect(report.inventory!.coverage).toEqual([]);
      // The outage hit a list (the ConfigMaps' pages may all be read before the server stops answering).
      expect(log.some((l) => /the API server has not answered GET \/apis?\/\S+ for \d+ s/.test(l))).toBe(
        true,
      );
      // Every ConfigMap counted once: pages read before the restart are not counted again (more
      // than there are), and none is lost (fewer than there were). The control plane may add a
      // ConfigMap meanwhile (kube-root-ca.crt in a namespace an earlier test made, seen once
      // right after the cluster started), so the count lies between the two kubectl counts; a
      // page read twice or skipped falls outside them.
      const after = await configMapCount();
      expect(report.inventory!.counts.configmaps).toBeGreaterThanOrEqual(before);
      expect(report.inventory!.counts.configmaps).toBeLessThanOrEqual(after);
    } finally {
      await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    }
  },
  timeout,
);

test(
  'etcd paused for longer than a request timeout in the middle of a teardown wait: it rides it out',
  async () => {
    const ns = await heldRelease();
    try {
      const run = runAction({
        mode: 'teardown',
        namespaces: ns,
        'stage-timeout': '3m',
        timeout: '5m',
        'request-timeout': '2s',
        ...byHand,
      });
      await inTheWait(ns);
      const paused = Date.now();
      await pauseEtcd(15_000);
      const resumed = Date.now();
      await release(ns);
      const { report, failures } = await run;
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
      expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[ns, 'deleted']]);
      // The stage's wait spanned the pause (its watch is served from the API server's watch
      // cache, so it sends no request that etcd must answer) and ended after it.
      const stage = report.teardown!.stages[0]!;
      expect(Date.parse(stage.startedAt)).toBeLessThan(paused);
      expect(Date.parse(stage.endedAt)).toBeGreaterThan(resumed);
    } finally {
      await removeNamespace(ns);
    }
  },
  timeout,
);

test(
  "one release's helm uninstall fails: the others go, the failure is reported, the verdict is leftovers",
  async () => {
    const id = uniqueName('fault-helm');
    const [a, b] = [`${id}-a`, `${id}-b`];
    for (const [ns, name] of [
      [a, 'broken'],
      [a, 'fine'],
      [b, 'other'],
    ] as const) {
      const r = await helm4(['install', name, chart('sample'), '-n', ns, '--create-namespace']);
      if (r.exitCode !== 0) throw new Error(r.stderr);
    }
    // A stand-in helm: fails `helm uninstall broken`, runs the real Helm 4 for everything else.
    const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-helm-'));
    const wrapper = join(dir, 'helm');
    writeFileSync(
      wrapper,
      `#!/usr/bin/env bash
if [[ "$1" == uninstall && "\${@: -1}" == broken ]]; then
  echo 'Error: failed to delete release: broken (simulated by the test)' >&2
  exit 1
fi
exec '${clusterEnv().helm4}' "$@"
`,
    );
    chmodSync(wrapper, 0o755);
    try {
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: `${id}-*`,
        helm: wrapper,
        'stage-timeout': '60s',
        // Under the default `auto` these hook-free releases go with their namespaces and
        // helm uninstall never runs: make Helm remove them, to see one uninstall fail.
        'uninstall-mode': 'helm',
      });
      expect(report.verdict).toBe('leftovers');
      expect(exitCodeOf(report)).toBe(1);
      const outcomes = report.teardown!.stages.flatMap((s) => s.releases);
      expect(outcomes.map((r) => [r.release, r.status, r.message])).toEqual([
        [`${a}/broken`, 'failed', 'Error: failed to delete release: broken (simulated by the test)'],
        [`${a}/fine`, 'uninstalled', undefined],
        [`${b}/other`, 'uninstalled', undefined],
      ]);
      expect(failures[0]).toMatch(/^leftovers: 1 release\(s\) failed to uninstall/);
      // What it could do, it did: b is gone; a is kept with broken's record for a rerun.
      expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[b, 'deleted']]);
      expect(await getOrUndefined(api, `/api/v1/namespaces/${a}/configmaps/fine-config`)).toBeUndefined();
      expect(await getOrUndefined(api, `/api/v1/namespaces/${a}/configmaps/broken-config`)).toBeDefined();
      expect(report.teardown!.stages[0]!.remaining.map((o) => `${o.kind} ${o.name}`)).toEqual([
        'ConfigMap broken-config',
        'Deployment broken',
        'Service broken',
      ]);
    } finally {
      await helm4(['uninstall', 'broken', '-n', a]);
      await deleteIfPresent(api, `/api/v1/namespaces/${a}`);
      await deleteIfPresent(api, `/api/v1/namespaces/${b}`);
    }
  },
  timeout,
);

/**
 * An HTTPS relay to the API server that cuts the first answer to a request for `cutPath` (by
 * path, whatever else the same keep-alive connection carried before) once `cutAfterBytes` of
 * its body went through: the connection is destroyed in the middle of the answer. The relay
 * serves TLS with the API server's own certificate (so the client verifies it against the
 * cluster's CA as it would the server) and forwards every request to the server as the admin.
 */
async function cuttingRelay(
  cutPath: string,
  cutAfterBytes: number,
): Promise<{ server: HttpsServer; port: number; cuts: () => number; seen: () => number }> {
  const target = new URL(/server: (\S+)/.exec(readFileSync(clusterEnv().kubeconfig, 'utf8'))![1]!);
  const pki = join(clusterEnv().clusterDir, 'pki');
  const read = (name: string) => readFileSync(join(pki, name));
  const upstreamAgent = new HttpsAgent({
    ca: read('ca.crt'),
    cert: read('admin.crt'),
    key: read('admin.key'),
    keepAlive: true,
  });
  let cuts = 0;
  let seen = 0;
  const server = createHttpsServer(
    { cert: read('apiserver.crt'), key: read('apiserver.key') },
    (req, res) => {
      const path = new URL(req.url ?? '/', target).pathname;
      const cutThis = path === cutPath && cuts === 0;
      if (path === cutPath) seen++;
      const upstream = httpsRequest(
        {
          host: target.hostname,
          port: Number(target.port),
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
          agent: upstreamAgent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          let bytes = 0;
          answer.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (cutThis && cuts === 0 && bytes > cutAfterBytes) {
              cuts++;
              req.socket.destroy();
              answer.destroy();
              return;
            }
            res.write(chunk);
          });
          answer.on('end', () => res.end());
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    },
  );
  server.on('close', () => upstreamAgent.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, cuts: () => cuts, seen: () => seen };
}

test(
  'a connection dropped in the middle of a list answer is retried, and nothing is counted twice',
  async () => {
    const ns = uniqueName('fault-cut');
    // 200 ConfigMaps with a 4 KB annotation: their list answer is about 1 MB, far larger than any other.
    await namespaceWithConfigMaps(ns, 200, { 'kube-sweep.test/pad': 'x'.repeat(4096) });
    await settled();
    // Cut the ConfigMaps list about 100 KB into its answer (the answer is about 1 MB).
    const relay = await cuttingRelay('/api/v1/configmaps', 100_000);
    try {
      const admin = readFileSync(clusterEnv().kubeconfig, 'utf8');
      const kubeconfig = admin.replace(/server: \S+/, `server: https://127.0.0.1:${relay.port}`);
      const baseline = await runAction({ mode: 'inventory' });
      const { report, log, failures } = await runAction({ mode: 'inventory', kubeconfig });
      expect(relay.cuts()).toBe(1);
      // The cut list was asked for again (paging may add more requests after it).
      expect(relay.seen()).toBeGreaterThanOrEqual(2);
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('complete');
      expect(log.some((l) => /^retrying GET \/api\/v1\/configmaps .*UND_ERR_SOCKET/.test(l))).toBe(true);
      expect(report.inventory!.counts.configmaps).toBe(baseline.report.inventory!.counts.configmaps);
    } finally {
      relay.server.closeAllConnections();
      relay.server.close();
      await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    }
  },
  timeout,
);
