/**
 * A real kind cluster from kube-sweep's own node image (test/kind/build.sh) and config
 * (test/kind/cluster.yaml): `kind create cluster` gives a Ready node, a pod of a preloaded image
 * runs on the static bridge CNI and reaches the API server through its Service (kube-proxy, a
 * privileged pod, runs), and `kind delete cluster` removes the node container.
 * Needs the Docker engine: `bash test/kind/docker.sh up` (.ci/run does it).
 */
import { execa } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { repoRoot } from '../integration/support/cluster.js';
import { kindBinDir, kindConfigPath, kindNodeImage } from './support.js';

const name = `ks-infra-${process.pid}`;
const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kind-cluster-test-')), 'kubeconfig');
let env: Record<string, string> = {};

async function kubectl(...args: string[]) {
  return execa('kubectl', ['--kubeconfig', kubeconfig, ...args], { env });
}

beforeAll(async () => {
  const [kindDir, image] = await Promise.all([kindBinDir(), kindNodeImage()]);
  const kubectlDir = process.env['KUBE_SWEEP_KUBECTL_BIN'] ?? (await kubectlBinDir());
  env = { PATH: [kindDir, kubectlDir, process.env['PATH']].join(delimiter), KUBECONFIG: kubeconfig };
  await execa(
    'kind',
    ['create', 'cluster', '--name', name, '--image', image, '--config', kindConfigPath, '--wait', '180s'],
    { env },
  );
}, 1_800_000);

async function kubectlBinDir(): Promise<string> {
  const { stdout } = await execa('bash', ['test/cluster/build.sh'], { cwd: repoRoot });
  return stdout.split('\n').find((l) => /\/kubernetes-v[^/]+$/.test(l))!;
}

afterAll(async () => {
  if (env['PATH']) await execa('kind', ['delete', 'cluster', '--name', name], { env, reject: false });
}, 120_000);

test('the node is Ready and runs the kubelet and containerd built here', async () => {
  const { stdout } = await kubectl('get', 'nodes', '-o', 'json');
  const nodes = JSON.parse(stdout).items as {
    status: {
      conditions: { type: string; status: string }[];
      nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string };
    };
  }[];
  expect(nodes).toHaveLength(1);
  expect(nodes[0]!.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  expect(nodes[0]!.status.nodeInfo.kubeletVersion).toBe('v1.37.2');
  expect(nodes[0]!.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\/2\.4\./);
});

test('kube-proxy (privileged) runs, and a pod of a preloaded image reaches the API server through its Service', async () => {
  await kubectl('-n', 'kube-system', 'rollout', 'status', 'daemonset/kube-proxy', '--timeout=120s');
  // The kube-proxy image has a shell and no HTTP client; bash's /dev/tcp opens a TCP connection.
  await kubectl(
    'run',
    'svc-probe',
    '-n',
    'default',
    '--restart=Never',
    '--image-pull-policy=Never',
    `--image=registry.k8s.io/kube-proxy:v1.37.2`,
    '--command',
    '--',
    'bash',
    '-c',
    'exec 3<>/dev/tcp/$KUBERNETES_SERVICE_HOST/$KUBERNETES_SERVICE_PORT && echo connected',
  );
  await kubectl(
    '-n',
    'default',
    'wait',
    'pod/svc-probe',
    '--for=jsonpath={.status.phase}=Succeeded',
    '--timeout=120s',
  );
  const { stdout } = await kubectl('-n', 'default', 'logs', 'svc-probe');
  expect(stdout.trim()).toBe('connected');
  const pod = JSON.parse((await kubectl('-n', 'default', 'get', 'pod', 'svc-probe', '-o', 'json')).stdout);
  expect(pod.status.podIP).toMatch(/^10\.244\.0\./);
}, 300_000);

test('kind delete cluster removes the node container', async () => {
  await execa('kind', ['delete', 'cluster', '--name', name], { env });
  const { stdout } = await execa('docker', [
    'ps',
    '-a',
    '--filter',
    `label=io.x-k8s.kind.cluster=${name}`,
    '-q',
  ]);
  expect(stdout.trim()).toBe('');
  const clusters = await execa('kind', ['get', 'clusters'], { env });
  expect(clusters.stdout.split('\n')).not.toContain(name);
}, 120_000);
