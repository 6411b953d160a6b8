/**
 * The bundled action (`node dist/index.js`, then `node dist/post/index.js`, as a runner runs them)
 * with `cluster: kind` against the REAL kind (issue 17): kind v0.33.0 and the node image built
 * here (test/kind/build.sh) on the Docker engine of test/kind/docker.sh, with the demo
 * environment (scripts/demo-env.sh) running the real Widget operator (test/operator/operator.mjs,
 * image test/operator/image.sh, loaded into the cluster, never pulled).
 *
 * Two `kind create cluster` calls in all: one cluster is created by the action and shared by
 * everything that is about the environment (scan, clean and broken teardowns, reuse) and deleted
 * by the post step at the end; a second one proves `kind-keep: true`.
 *
 * Runs when KUBE_SWEEP_KIND=1 or KUBE_SWEEP_KIND_NODE_IMAGE is set (.ci/run sets the latter after
 * starting the engine and building the image) and `docker info` answers; otherwise the suite is
 * skipped and its name says why.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createApiClient, type ApiClient } from '../../src/cluster/api-client.js';
import { KubernetesApiError } from '../../src/cluster/errors.js';
import { loadKubeconfig } from '../../src/cluster/kubeconfig.js';
import type { Finding } from '../../src/rules/findings.js';
import { clusterEnv, repoRoot } from '../integration/support/cluster.js';
import { fileCommands, runStep, runnerJob, type RunnerJob } from '../e2e/support/runner.js';
import { kindBinDir, kindConfigPath, kindNodeImage, kindSkipReason } from './support.js';

const reason = kindSkipReason();
const suite = reason ? describe.skip : describe;

const id = Math.random().toString(36).slice(2, 7);
/** The cluster the action creates and the post step deletes; shared by the environment tests. */
const shared = `ks-e2e-${id}`;
/** The cluster created with kind-keep: true. */
const kept = `ks-keep-${id}`;
const minutes = 60_000;

let kindBin = '';
let nodeImage = '';
let pathWithKind = '';
/** The run that created the shared cluster: its post step deletes it at the end. */
let sharedRun: MainStep | undefined;

interface Report {
  verdict: string;
  findings: Finding[];
}

const kind = (args: string[]) => execa(join(kindBin, 'kind'), args, { reject: false });
const kindClusters = async () => String((await kind(['get', 'clusters'])).stdout).split('\n');

/** The inputs every run gives: the real kind on PATH, the node image and config built here. */
function kindInputs(name: string): Record<string, string> {
  return {
    PATH: pathWithKind,
    INPUT_CLUSTER: 'kind',
    'INPUT_KIND-CLUSTER-NAME': name,
    'INPUT_KIND-CONFIG': kindConfigPath,
    'INPUT_KIND-NODE-IMAGE': nodeImage,
    'INPUT_KIND-WAIT': '4m',
    INPUT_HELM: clusterEnv().helm4,
  };
}

/** Runs the main step as the only step of a new job; returns its result, outputs, state and report. */
async function mainStep(inputs: Record<string, string>) {
  const job = runnerJob();
  const files = job.step();
  const step = await runStep('dist/index.js', { ...files, ...inputs });
  const outputs = fileCommands(files.GITHUB_OUTPUT);
  const state = fileCommands(files.GITHUB_STATE);
  const reportPath = outputs['report-path'];
  const report = reportPath ? (JSON.parse(readFileSync(reportPath, 'utf8')) as Report) : undefined;
  const log = `${String(step.stdout)}\n${String(step.stderr)}`;
  return { step, outputs, state, report, log, job, action: files.GITHUB_ACTION };
}
type MainStep = Awaited<ReturnType<typeof mainStep>>;

/**
 * Runs the post step of a main step in the same job (its RUNNER_TEMP and GITHUB_ACTION), with the
 * state it saved (STATE_<name>, as the runner passes it).
 */
async function postStep(main: { state: Record<string, string>; job: RunnerJob; action: string }) {
  const stateEnv = Object.fromEntries(Object.entries(main.state).map(([k, v]) => [`STATE_${k}`, v]));
  return runStep('dist/post/index.js', { ...main.job.step(main.action), PATH: pathWithKind, ...stateEnv });
}

async function kubeconfigOf(name: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ks-kind-'));
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, String((await kind(['get', 'kubeconfig', '--name', name])).stdout), { mode: 0o600 });
  return path;
}

/** scripts/demo-env.sh on the kind cluster, with the real operator and the node's pause image. */
async function demoEnv(
  variant: 'clean' | 'broken',
  prefix: string,
  kubeconfig: string,
  operatorImage: string,
) {
  const pause = /^PAUSE_VERSION=(\S+)/m.exec(
    readFileSync(join(repoRoot, 'test/kind/versions.env'), 'utf8'),
  )![1];
  const result = await execa('bash', ['scripts/demo-env.sh', variant, prefix], {
    cwd: repoRoot,
    env: {
      KUBECONFIG: kubeconfig,
      HELM: clusterEnv().helm4,
      KUBECTL: clusterEnv().kubectl,
      OPERATOR_IMAGE: operatorImage,
      WEB_IMAGE: `registry.k8s.io/pause:${pause}`,
    },
    reject: false,
  });
  if (result.exitCode !== 0) throw new Error(`demo-env.sh ${variant}: ${result.stderr}\n${result.stdout}`);
}

suite(`the action with cluster: kind on a real kind cluster${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let kubeconfig = '';
  let operatorImage = '';
  let api: ApiClient | undefined;

  beforeAll(async () => {
    kindBin = await kindBinDir();
    nodeImage = await kindNodeImage();
    pathWithKind = [kindBin, process.env['PATH']].join(delimiter);
  }, 30 * minutes);

  afterAll(async () => {
    await api?.close();
    // Whatever a failed test left: no cluster of this run survives it.
    for (const name of [shared, kept])
      if ((await kindClusters()).includes(name)) await kind(['delete', 'cluster', '--name', name]);
  }, 5 * minutes);

  test(
    'creates the cluster, and a cluster-wide scan of the fresh kind cluster finds nothing',
    async () => {
      const run = await mainStep({
        ...kindInputs(shared),
        INPUT_MODE: 'scan',
        'INPUT_SCAN-SCOPE': 'cluster',
      });
      expect(run.state).toMatchObject({ 'kind-cluster-name': shared, 'kind-cluster-created': 'true' });
      expect(await kindClusters()).toContain(shared);
      expect(run.report?.findings).toEqual([]);
      expect(run.outputs.findings).toBe('0');
      expect(run.step.exitCode).toBe(0);
      sharedRun = run;

      kubeconfig = await kubeconfigOf(shared);
      api = await createApiClient(loadKubeconfig(kubeconfig, '', {}), { timeoutMs: 30_000 });
      const loaded = await execa('bash', [join(repoRoot, 'test/operator/image.sh'), 'load', shared], {
        env: { KIND: join(kindBin, 'kind') },
      });
      operatorImage = String(loaded.stdout).trim();
      expect(operatorImage).toMatch(/^kube-sweep\/widget-operator:[0-9a-f]{12}$/);
    },
    10 * minutes,
  );

  test(
    'clean environment with the live operator in a pod: its webhook answers, the ordered teardown ends clean, and it removed its finalizer',
    async () => {
      const prefix = `kc${id}`;
      const group = `${prefix}.kube-sweep.test`;
      await demoEnv('clean', prefix, kubeconfig, operatorImage);

      // Real pods: the operator (Ready: its readiness probe hit its TLS server) and the web pod.
      const pods = await api!.request<{ items: { metadata: { name: string }; status: { phase: string } }[] }>(
        {
          path: `/api/v1/namespaces/${prefix}-operator/pods`,
        },
      );
      expect(pods.items.map((p) => p.status.phase)).toEqual(['Running']);
      // The webhook answers from the pod, through its Service.
      const denied = await api!
        .request({
          method: 'POST',
          path: `/apis/${group}/v1/namespaces/${prefix}-app/widgets`,
          body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: { size: -3 } },
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect((denied as KubernetesApiError).apiMessage).toContain(
        'widget-operator: spec.size must be >= 0, not -3',
      );
      // The Widgets carry the operator's finalizer: only the live operator can let them go.
      const widgets = await api!.request<{ items: { metadata: { finalizers?: string[] } }[] }>({
        path: `/apis/${group}/v1/namespaces/${prefix}-app/widgets`,
      });
      expect(widgets.items.map((w) => w.metadata.finalizers)).toEqual([
        [`${group}/cleanup`],
        [`${group}/cleanup`],
      ]);

      // Follow the operator's log through the teardown (the stream ends when its pod goes).
      const logs = execa(
        clusterEnv().kubectl,
        ['--kubeconfig', kubeconfig, '-n', `${prefix}-operator`, 'logs', '-f', 'deploy/widget-operator'],
        { reject: false, timeout: 10 * minutes },
      );
      const run = await mainStep({
        ...kindInputs(shared),
        INPUT_MODE: 'teardown',
        INPUT_NAMESPACES: `${prefix}-*`,
      });
      const operatorLog = String((await logs).stdout);
      expect(run.state['kind-cluster-created']).toBe('false');
      expect(run.report?.findings).toEqual([]);
      expect(run.outputs.verdict).toBe('clean');
      expect(run.step.exitCode).toBe(0);
      for (const w of ['w1', 'w2'])
        expect(operatorLog).toContain(`removed finalizer ${group}/cleanup from Widget ${prefix}-app/${w}`);
    },
    10 * minutes,
  );

  test(
    'after the clean teardown, a cluster-wide scan of the kind cluster finds nothing',
    async () => {
      const run = await mainStep({
        ...kindInputs(shared),
        INPUT_MODE: 'scan',
        'INPUT_SCAN-SCOPE': 'cluster',
      });
      expect(run.report?.findings).toEqual([]);
      expect(run.step.exitCode).toBe(0);
    },
    5 * minutes,
  );

  test(
    'broken environment (the operator pod gone first, a namespace force-finalized): leftovers naming the finalizer and the orphan',
    async () => {
      const prefix = `kb${id}`;
      const group = `${prefix}.kube-sweep.test`;
      await demoEnv('broken', prefix, kubeconfig, operatorImage);
      const run = await mainStep({
        ...kindInputs(shared),
        INPUT_MODE: 'teardown',
        INPUT_NAMESPACES: `${prefix}-*`,
        'INPUT_STAGE-TIMEOUT': '30s',
      });
      expect(run.outputs.verdict).toBe('leftovers');
      expect(run.step.exitCode).toBe(1);
      const about = (code: string, kindName: string, namespace: string, name: string) =>
        run.report!.findings.find(
          (f) =>
            f.code === code &&
            f.object.kind === kindName &&
            f.object.namespace === namespace &&
            f.object.name === name,
        );
      const operatorGone = about('OperatorGoneFinalizer', 'Widget', `${prefix}-app`, 'w1');
      expect(operatorGone?.evidence.join('\n')).toContain(`${group}/cleanup`);
      expect(about('OrphanInMissingNamespace', 'ConfigMap', `${prefix}-scratch`, 'settings')).toBeDefined();
    },
    10 * minutes,
  );

  test(
    'a cluster of that name is reused, and the post step of that run does not delete it',
    async () => {
      const run = await mainStep({ ...kindInputs(shared), INPUT_MODE: 'inventory' });
      expect(run.state).toMatchObject({ 'kind-cluster-name': shared, 'kind-cluster-created': 'false' });
      const post = await postStep(run);
      expect(post.exitCode).toBe(0);
      expect(await kindClusters()).toContain(shared);
    },
    5 * minutes,
  );

  test(
    'the post step of the run that created the cluster deletes it',
    async () => {
      expect(sharedRun?.state['kind-cluster-created']).toBe('true');
      const post = await postStep(sharedRun!);
      expect(String(post.stdout)).toContain(`deleted kind cluster '${shared}'`);
      expect(post.exitCode).toBe(0);
      expect(await kindClusters()).not.toContain(shared);
    },
    5 * minutes,
  );

  test(
    'kind-keep: true keeps the cluster the run created',
    async () => {
      const run = await mainStep({ ...kindInputs(kept), INPUT_MODE: 'inventory', 'INPUT_KIND-KEEP': 'true' });
      expect(run.state).toMatchObject({ 'kind-cluster-name': kept, 'kind-cluster-created': 'true' });
      const post = await postStep(run);
      expect(String(post.stdout)).toContain(`keeping kind cluster '${kept}'`);
      expect(await kindClusters()).toContain(kept);
    },
    10 * minutes,
  );
});
