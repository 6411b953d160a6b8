/**
 * The `cluster: kind` path with a stand-in `kind` (and `docker`) on PATH: the action asks kind
 * for the cluster, uses the kubeconfig it hands back (the local control plane's), and the post
 * step deletes only a cluster it created.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { State } from '../../src/config/inputs.js';
import { run, type ActionPorts } from '../../src/action/main.js';
import { runPost } from '../../src/action/post.js';
import { execaRunner } from '../../src/util/command.js';
import { clusterEnv, repoRoot } from './support/cluster.js';

const standIn = join(repoRoot, 'test/kind-stand-in');

function world(inputs: Record<string, string>, pathDirs: string[] = [standIn]) {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-kind-'));
  const env = {
    ...process.env,
    RUNNER_TEMP: dir,
    KIND_STANDIN_LOG: join(dir, 'kind.log'),
    KIND_STANDIN_STATE: join(dir, 'clusters'),
    KIND_STANDIN_KUBECONFIG: clusterEnv().kubeconfig,
  };
  const state = new Map<string, string>();
  const outputs = new Map<string, string>();
  const failures: string[] = [];
  const ports: ActionPorts = {
    readInput: (name) => (({ mode: 'inventory', ...inputs }) as Record<string, string>)[name] ?? '',
    info: () => {},
    warning: () => {},
    group: (_t, fn) => fn(),
    setSecret: () => {},
    setOutput: (k, v) => outputs.set(k, v),
    saveState: (k, v) => state.set(k, v),
    writeSummary: async () => {},
    setFailed: (m) => failures.push(m),
    env,
    commands: execaRunner,
  };
  const kindCalls = () => {
    try {
      return readFileSync(env.KIND_STANDIN_LOG, 'utf8').trim().split('\n');
    } catch {
      return [];
    }
  };
  return { dir, env, state, outputs, failures, ports, kindCalls, pathDirs };
}

/** Runs `fn` with PATH = stand-ins + the usual PATH (which() and execa read process.env). */
async function withPath<T>(
  dirs: string[],
  env: Record<string, string | undefined>,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, env, { PATH: [...dirs, saved.PATH].join(delimiter) });
  try {
    return await fn();
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

test('creates the kind cluster, reads it, and the post step deletes it', async () => {
  const w = world({
    cluster: 'kind',
    'kind-cluster-name': 'pr-42',
    'kind-wait': '2m',
    'kind-node-image': 'kindest/node:v1.37.2',
  });
  const report = await withPath(w.pathDirs, w.env, () => run(w.ports));
  expect(w.failures).toEqual([]);
  expect(report?.verdict).toBe('complete');
  expect(report.cluster.version).toBe('v1.37.2');
  expect(w.kindCalls()).toEqual([
    'get clusters',
    'create cluster --name pr-42 --wait 120s --image kindest/node:v1.37.2',
    'get kubeconfig --name pr-42',
  ]);
  expect(w.state.get(State.kindClusterCreated)).toBe('true');
  const kubeconfigPath = w.outputs.get('kubeconfig-path')!;
  expect(kubeconfigPath.startsWith(w.dir)).toBe(true);

  const result = await withPath(w.pathDirs, w.env, () =>
    runPost({
      getState: (k) => w.state.get(k) ?? '',
      info: () => {},
      warning: () => {},
      commands: execaRunner,
    }),
  );
  expect(result).toBe('deleted');
  expect(w.kindCalls().at(-1)).toBe('delete cluster --name pr-42');
  expect(readFileSync(w.env.KIND_STANDIN_STATE, 'utf8').trim()).toBe('');
});

test('reuses an existing cluster of that name and never deletes it', async () => {
  const w = world({ mode: 'inventory', cluster: 'kind', 'kind-cluster-name': 'shared' });
  writeFileSync(w.env.KIND_STANDIN_STATE, 'shared\n');
  const report = await withPath(w.pathDirs, w.env, () => run(w.ports));
  expect(report?.verdict).toBe('complete');
  expect(w.kindCalls()).toEqual(['get clusters', 'get kubeconfig --name shared']);
  const result = await withPath(w.pathDirs, w.env, () =>
    runPost({
      getState: (k) => w.state.get(k) ?? '',
      info: () => {},
      warning: () => {},
      commands: execaRunner,
    }),
  );
  expect(result).toBe('nothing');
  expect(w.kindCalls()).not.toContain('delete cluster --name shared');
});

test('kind-keep: true keeps the created cluster', async () => {
  const w = world({
    mode: 'inventory',
    cluster: 'kind',
    'kind-cluster-name': 'keep-me',
    'kind-keep': 'true',
  });
  await withPath(w.pathDirs, w.env, () => run(w.ports));
  const result = await withPath(w.pathDirs, w.env, () =>
    runPost({
      getState: (k) => w.state.get(k) ?? '',
      info: () => {},
      warning: () => {},
      commands: execaRunner,
    }),
  );
  expect(result).toBe('kept');
  expect(readFileSync(w.env.KIND_STANDIN_STATE, 'utf8').trim()).toBe('keep-me');
});

test("a failing kind create fails the step with kind's own error, and nothing is read", async () => {
  const w = world({ mode: 'inventory', cluster: 'kind', 'kind-cluster-name': 'broken' });
  const report = await withPath(w.pathDirs, { ...w.env, KIND_STANDIN_FAIL: 'create' }, () => run(w.ports));
  expect(report?.verdict).toBe('error');
  expect(w.failures[0]).toMatch(
    /'kind create cluster --name broken --wait 60s' failed \(exit 1\): ERROR: failed to create cluster/,
  );
  expect(w.state.has(State.kindClusterCreated)).toBe(false);
});

test('missing docker on PATH is a clear error', async () => {
  // A PATH with only the stand-in kind (no docker): copy kind into a folder of its own.
  const w = world({ mode: 'inventory', cluster: 'kind' });
  const onlyKind = mkdtempSync(join(tmpdir(), 'only-kind-'));
  writeFileSync(join(onlyKind, 'kind'), readFileSync(join(standIn, 'kind')), { mode: 0o755 });
  const saved = process.env.PATH;
  const report = await withPath([onlyKind], { ...w.env }, async () => {
    // Only the folder with kind: docker may live in any system folder (/usr/bin on GitHub's
    // runners and wherever Debian's docker.io put it), so no system folder is on PATH.
    process.env.PATH = onlyKind;
    try {
      return await run(w.ports);
    } finally {
      process.env.PATH = saved;
    }
  });
  expect(report?.verdict).toBe('error');
  expect(w.failures[0]).toMatch(/'cluster: kind' needs 'docker' on PATH/);
  expect(w.kindCalls()).toEqual([]);
});
