import { execa } from 'execa';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import type { Report } from '../../../src/report/report.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  repoRoot,
  uniqueName,
} from '../../integration/support/cluster.js';
import { nothingListeningKubeconfig } from '../../integration/support/identities.js';

/** What one run of a built CLI (npm package, single executable, kubectl plugin) gave. */
export interface CliResult {
  readonly exitCode?: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI build under test with `args` (its kubeconfig comes from the args or $KUBECONFIG). */
export type RunCli = (args: string[]) => Promise<CliResult>;

const finalizer = 'kube-sweep.test/held-by-nobody';

/**
 * Two namespaces for the exit-code checks, made in beforeAll and removed in afterAll: `clean`
 * holds nothing; `held` holds a ConfigMap that was deleted but keeps a finalizer no controller
 * removes (a StuckFinalizer finding once it is older than --stuck-after).
 */
export function exitCodeNamespaces(): () => { clean: string; held: string; heldObject: string } {
  let client: ApiClient | undefined;
  const api = () => client!;
  const names = { clean: uniqueName('cli-clean'), held: uniqueName('cli-held'), heldObject: 'held' };
  const configMap = () => `/api/v1/namespaces/${names.held}/configmaps/${names.heldObject}`;
  beforeAll(async () => {
    client = await adminApi();
    await createNamespace(api(), names.clean);
    await createNamespace(api(), names.held);
    await api().request({
      method: 'POST',
      path: `/api/v1/namespaces/${names.held}/configmaps`,
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: names.heldObject, finalizers: [finalizer] },
      },
    });
    await api().request({ method: 'DELETE', path: configMap() });
  });
  afterAll(async () => {
    await releaseFinalizer(api(), configMap());
    await deleteIfPresent(api(), `/api/v1/namespaces/${names.clean}`);
    await deleteIfPresent(api(), `/api/v1/namespaces/${names.held}`);
    await client?.close();
  });
  return () => names;
}

async function releaseFinalizer(api: ApiClient, path: string): Promise<void> {
  if (!(await getOrUndefined(api, path))) return;
  await api.request({
    method: 'PATCH',
    path,
    contentType: 'application/merge-patch+json',
    body: { metadata: { finalizers: null } },
  });
}

function reportOf(result: CliResult): Report {
  try {
    return JSON.parse(result.stdout) as Report;
  } catch {
    throw new Error(`not a JSON report (exit ${result.exitCode}): ${result.stdout}\n${result.stderr}`);
  }
}

/**
 * The exit codes 0/1/2 of `scan` and `plan` with a CLI build, against the local control plane:
 * a clean scan and a plan (0), a finding over --fail-on (1), a cluster that does not answer (2).
 * `kubeconfigArgs` are how this build is told the kubeconfig (e.g. `--kubeconfig <path>`).
 */
export async function expectExitCodes(
  run: RunCli,
  names: { clean: string; held: string; heldObject: string },
  kubeconfigArgs: string[] = ['--kubeconfig', clusterEnv().kubeconfig],
): Promise<void> {
  const clean = await run([
    'scan',
    ...kubeconfigArgs,
    '--scan-scope',
    'environment',
    '--namespaces',
    names.clean,
    '--output',
    'json',
  ]);
  expect(reportOf(clean).verdict).toBe('clean');
  expect(clean.exitCode).toBe(0);

  const plan = await run(['plan', ...kubeconfigArgs, '--namespaces', names.clean, '--output', 'json']);
  expect(reportOf(plan).verdict).toBe('planned');
  expect(reportOf(plan).plan?.namespacesToDelete).toEqual([names.clean]);
  expect(plan.exitCode).toBe(0);

  // The held ConfigMap was deleted in beforeAll: wait until it is older than --stuck-after 1s.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const held = await run([
    'scan',
    ...kubeconfigArgs,
    '--scan-scope',
    'environment',
    '--namespaces',
    names.held,
    '--stuck-after',
    '1s',
    '--fail-on',
    'warning',
    '--output',
    'json',
  ]);
  const report = reportOf(held);
  expect(report.verdict).toBe('leftovers');
  expect(report.findings?.map((f) => `${f.object.kind}/${f.object.name}`)).toContain(
    `ConfigMap/${names.heldObject}`,
  );
  expect(held.exitCode).toBe(1);

  const unreachable = await run(['scan', '--kubeconfig', nothingListeningKubeconfig(), '--output', 'json']);
  expect(reportOf(unreachable).verdict).toBe('error');
  expect(unreachable.exitCode).toBe(2);
}

/** Paths of one single-executable build (scripts/sea.mjs). */
export interface SeaBuild {
  /** The executable (kube-sweep-<os>-<arch>). */
  readonly executable: string;
  /** kubectl-sweep-<os>-<arch>.tar.gz for krew. */
  readonly archive: string;
  /** plugins/sweep.yaml with the archive's sha256. */
  readonly manifest: string;
}

/**
 * Builds (or takes from the cache: scripts/sea.mjs keys it by version and content) the single
 * executable into a fresh folder. Cold, this takes about a minute; cached, a few seconds.
 */
export async function buildSingleExecutable(): Promise<SeaBuild> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-sea-'));
  const executable = join(dir, `kube-sweep-${process.platform}-${process.arch}`);
  await execa(process.execPath, [join(repoRoot, 'scripts/sea.mjs'), '--out', executable], {
    env: { PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) },
    extendEnv: true,
  });
  return {
    executable,
    archive: join(dir, `kubectl-sweep-${process.platform}-${process.arch}.tar.gz`),
    manifest: join(dir, 'sweep.yaml'),
  };
}

/** A folder for PATH that holds no `node` (and nothing else unless given): the executable must need none. */
export function pathWithoutNode(...entries: [name: string, target: string][]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-path-'));
  for (const [name, target] of entries) symlinkSync(target, join(dir, name));
  return dir;
}
