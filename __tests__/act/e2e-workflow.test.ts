/**
 * The repository's own .github/workflows/e2e.yml, unchanged, run by an independent runner
 * (nektos/act, on this host) on REAL kind (issue 22): `uses: ./` with `cluster: kind` creates the
 * cluster, scripts/demo-env.sh builds a clean and a broken environment, the action tears them down
 * (`clean`, then `leftovers` with their root causes), scans the cluster, and the post step of the
 * first use deletes the cluster. The workflow takes what differs on this machine from repository
 * variables (the node image built here, its kind config, a longer wait, a cluster name of this
 * run); `actions/checkout` is act's local copy of the working tree.
 *
 * Runs when KUBE_SWEEP_ACT_TESTS=1 (support.ts, actSkipReason), KUBE_SWEEP_KIND=1 or
 * KUBE_SWEEP_KIND_NODE_IMAGE is set (.ci/run sets the latter) and `docker info` answers; otherwise
 * the suite is skipped and its title says why.
 */
import { execa } from 'execa';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { clusterEnv, repoRoot } from '../integration/support/cluster.js';
import { kindBinDir, kindConfigPath, kindNodeImage, kindSkipReason } from '../kind/support.js';
import { actSkipReason, runAct, type ActRun } from './support.js';

const reason = actSkipReason() || kindSkipReason();
const suite = reason ? describe.skip : describe;
const minutes = 60_000;

/** A folder with `helm` and `kubectl` (the pinned builds), as a GitHub runner has them on PATH. */
function helmAndKubectl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-act-tools-'));
  symlinkSync(clusterEnv().helm4, join(dir, 'helm'));
  symlinkSync(clusterEnv().kubectl, join(dir, 'kubectl'));
  return dir;
}

suite(`e2e.yml under act on real kind${reason ? ` (skipped: ${reason})` : ''}`, () => {
  const cluster = `ks-act-${Math.random().toString(36).slice(2, 7)}`;
  let kindBin = '';
  let run: ActRun;

  beforeAll(async () => {
    kindBin = await kindBinDir();
    run = await runAct({
      workflow: '.github/workflows/e2e.yml',
      event: 'workflow_dispatch',
      job: 'kind', // the kind-tests job runs the jest project kind, which .ci/run runs itself
      vars: {
        KIND_NODE_IMAGE: await kindNodeImage(),
        KIND_CONFIG: relative(repoRoot, kindConfigPath),
        KIND_WAIT: '4m',
        KIND_CLUSTER_NAME: cluster,
      },
      path: [kindBin, helmAndKubectl()],
      // kind and docker find the engine and the network of test/kind/docker.sh as the kind tests do.
      processEnv: Object.fromEntries(
        ['DOCKER_HOST', 'KIND_EXPERIMENTAL_DOCKER_NETWORK'].flatMap((k) =>
          process.env[k] ? [[k, process.env[k]!]] : [],
        ),
      ),
      timeoutMs: 25 * minutes,
    });
  }, 30 * minutes);

  afterAll(async () => {
    const kind = join(kindBin, 'kind');
    const clusters = String((await execa(kind, ['get', 'clusters'], { reject: false })).stdout).split('\n');
    if (clusters.includes(cluster))
      await execa(kind, ['delete', 'cluster', '--name', cluster], { reject: false });
  }, 5 * minutes);

  test('the job succeeds, every step as the workflow expects', () => {
    if (run.jobResult !== 'success' || run.exitCode !== 0)
      throw new Error(`act exited ${run.exitCode} (job ${run.jobResult}); its log:\n${run.text}`);
    // actions/checkout of this repository is act's copy of the working tree; nothing was fetched.
    expect(run.text).not.toContain('LocalRepositoryCache not matched');
    // Steps by id, or by index (0: checkout, 2: clean environment, ...).
    expect(
      ['0', 'cluster', '2', 'clean', '4', '5', 'broken', '7', 'scan', '9'].map((s) => [s, run.result(s)]),
    ).toEqual([
      ['0', 'success'],
      ['cluster', 'success'],
      ['2', 'success'],
      ['clean', 'success'],
      ['4', 'success'],
      ['5', 'success'],
      ['broken', 'failure'], // continue-on-error: its outcome is failure, the job goes on
      ['7', 'success'],
      ['scan', 'success'],
      ['9', 'success'],
    ]);
  });

  test('the outputs the later steps read: clean, then leftovers with the expected root causes', () => {
    expect(run.outputs('cluster')).toMatchObject({ verdict: 'complete' });
    expect(run.outputs('cluster')['kubeconfig-path']).toBeTruthy();
    expect(run.outputs('clean')).toMatchObject({ verdict: 'clean', findings: '0' });
    expect(run.outputs('broken')).toMatchObject({ verdict: 'leftovers' });
    expect(Number(run.outputs('broken').errors)).toBeGreaterThan(0);
    expect(['clean', 'partial']).toContain(run.outputs('scan').verdict); // fail-on: never
    expect(run.summary('broken')).toContain('OperatorGoneFinalizer');
  });

  test('the post step of the step that created the cluster deleted it', async () => {
    expect(run.result('cluster', 'Post')).toBe('success');
    expect(run.log('cluster', 'Post')).toContain(`deleted kind cluster '${cluster}'`);
    const clusters = String((await execa(join(kindBin, 'kind'), ['get', 'clusters'])).stdout).split('\n');
    expect(clusters).not.toContain(cluster);
  });
});
