/**
 * `kube-sweep ... --cluster kind` (the bundled CLI, run as users run it: `node dist/cli/index.js`)
 * with the stand-in `kind` and `docker` on PATH: the cluster the run created is deleted when the
 * run ends and when SIGINT/SIGTERM stop it, unless `--kind-keep true`; a cluster that existed
 * before is never deleted. (The stand-in records every kind call; a real kind cluster is the
 * subject of the kind e2e tests.)
 */
import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { waitFor } from '../../src/util/wait.js';
import { clusterEnv, repoRoot } from '../integration/support/cluster.js';
import { execPluginKubeconfig } from '../integration/support/identities.js';

const cli = join(repoRoot, 'dist/cli/index.js');

/** A folder with the stand-in's log and state, and the environment that points kind at them. */
function standIn(kubeconfigPath = clusterEnv().kubeconfig) {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-cli-kind-'));
  const env = {
    PATH: [join(repoRoot, 'test/kind-stand-in'), process.env.PATH].join(delimiter),
    KIND_STANDIN_LOG: join(dir, 'kind.log'),
    KIND_STANDIN_STATE: join(dir, 'clusters'),
    KIND_STANDIN_KUBECONFIG: kubeconfigPath,
  };
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n') : []);
  return {
    dir,
    env,
    calls: () => read(env.KIND_STANDIN_LOG),
    clusters: () => read(env.KIND_STANDIN_STATE).filter((l) => l !== ''),
  };
}

function kubeSweep(args: string[], env: Record<string, string>): ResultPromise<{ reject: false }> {
  return execa(process.execPath, [cli, ...args], { env, extendEnv: true, reject: false });
}

test('the cluster the run created is deleted when the run ends', async () => {
  const k = standIn();
  const result = await kubeSweep(
    ['inventory', '--cluster', 'kind', '--kind-cluster-name', 'cli-ends'],
    k.env,
  );
  expect(result.stderr).toContain("deleted kind cluster 'cli-ends'");
  expect(result.exitCode).toBe(0);
  expect(k.calls().at(-1)).toBe('delete cluster --name cli-ends');
  expect(k.clusters()).toEqual([]);
});

test('--kind-keep true keeps the created cluster', async () => {
  const k = standIn();
  const result = await kubeSweep(
    ['inventory', '--cluster', 'kind', '--kind-cluster-name', 'cli-kept', '--kind-keep', 'true'],
    k.env,
  );
  expect(result.exitCode).toBe(0);
  expect(result.stderr).toContain("kind cluster 'cli-kept' is kept (--kind-keep)");
  expect(k.calls()).not.toContain('delete cluster --name cli-kept');
  expect(k.clusters()).toEqual(['cli-kept']);
});

test('a cluster that existed before the run is reused and not deleted', async () => {
  const k = standIn();
  writeFileSync(k.env.KIND_STANDIN_STATE, 'cli-shared\n');
  const result = await kubeSweep(
    ['inventory', '--cluster', 'kind', '--kind-cluster-name', 'cli-shared'],
    k.env,
  );
  expect(result.exitCode).toBe(0);
  expect(k.calls()).toEqual(['get clusters', 'get kubeconfig --name cli-shared']);
  expect(k.clusters()).toEqual(['cli-shared']);
});

test('a run that ends in error still deletes the cluster it created', async () => {
  // kind hands back a kubeconfig whose context does not exist: the run cannot connect (exit 2).
  const bad = join(mkdtempSync(join(tmpdir(), 'kube-sweep-cli-kind-')), 'kubeconfig');
  writeFileSync(
    bad,
    readFileSync(clusterEnv().kubeconfig, 'utf8').replace(/current-context: .*/, 'current-context: gone'),
  );
  const k = standIn(bad);
  const result = await kubeSweep(
    ['inventory', '--cluster', 'kind', '--kind-cluster-name', 'cli-error'],
    k.env,
  );
  expect(result.exitCode).toBe(2);
  expect(k.calls().at(-1)).toBe('delete cluster --name cli-error');
  expect(k.clusters()).toEqual([]);
});

describe.each([
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const)('%s in the middle of a run', (signal, code) => {
  /**
   * The run is held where it reads credentials: kind's kubeconfig names an exec plugin that
   * writes a marker file and waits for its caller to go away. The marker proves the cluster
   * exists and the run is using it when the signal is sent (no sleep, no timing).
   */
  function heldRun(name: string, extra: string[] = []) {
    const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-cli-kind-'));
    const marker = join(dir, 'credentials-asked');
    const plugin = join(dir, 'hold-credentials.sh');
    writeFileSync(
      plugin,
      `#!/bin/sh\ntouch '${marker}'\nwhile kill -0 $PPID 2>/dev/null; do sleep 0.1; done\n`,
      {
        mode: 0o755,
      },
    );
    writeFileSync(join(dir, 'kubeconfig'), execPluginKubeconfig(plugin));
    const k = standIn(join(dir, 'kubeconfig'));
    const child = kubeSweep(['inventory', '--cluster', 'kind', '--kind-cluster-name', name, ...extra], k.env);
    const held = waitFor(async () => ({ done: existsSync(marker), value: true }), {
      timeoutMs: 60_000,
      description: 'the run to ask the exec plugin for credentials',
    });
    return { k, child, held };
  }

  test(`deletes the cluster the run created, then exits ${code}`, async () => {
    const { k, child, held } = heldRun(`cli-${signal.toLowerCase()}`);
    await held;
    expect(k.clusters()).toEqual([`cli-${signal.toLowerCase()}`]);
    child.kill(signal);
    const result = await child;
    expect(result.exitCode).toBe(code);
    expect(k.calls().at(-1)).toBe(`delete cluster --name cli-${signal.toLowerCase()}`);
    expect(k.clusters()).toEqual([]);
  });

  test('keeps it with --kind-keep true', async () => {
    const { k, child, held } = heldRun('cli-keep-on-signal', ['--kind-keep', 'true']);
    await held;
    child.kill(signal);
    const result = await child;
    expect(result.exitCode).toBe(code);
    expect(k.calls()).not.toContain('delete cluster --name cli-keep-on-signal');
    expect(k.clusters()).toEqual(['cli-keep-on-signal']);
  });
});
