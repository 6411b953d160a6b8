import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { clusterEnv, repoRoot } from './cluster.js';

/**
 * A second local control plane beside the first (fleet tests: merge, several contexts), in
 * `<repo>/.cluster-b` on the first one's ports + 10 (API) and + 20 (etcd; its peer port is + 10
 * more), so that both run at once; KUBE_SWEEP_CLUSTER_B_APISERVER_PORT and
 * KUBE_SWEEP_CLUSTER_B_ETCD_PORT choose others (several people's control planes on one machine).
 * Started by test/cluster/up.sh (a no-op when it already runs).
 * @returns its kubeconfig path, and `stop`, which stops it only if this call started it.
 */
export async function startSecondControlPlane(): Promise<{ kubeconfig: string; stop: () => Promise<void> }> {
  const api = Number(
    process.env.KUBE_SWEEP_CLUSTER_B_APISERVER_PORT ??
      Number(process.env.KUBE_SWEEP_APISERVER_PORT ?? 16443) + 10,
  );
  const etcd = Number(
    process.env.KUBE_SWEEP_CLUSTER_B_ETCD_PORT ?? Number(process.env.KUBE_SWEEP_ETCD_PORT ?? 23791) + 20,
  );
  const dir = process.env.KUBE_SWEEP_CLUSTER_B_DIR ?? join(repoRoot, '.cluster-b');
  const env = {
    ...process.env,
    KUBE_SWEEP_CLUSTER_DIR: dir,
    KUBE_SWEEP_APISERVER_PORT: String(api),
    KUBE_SWEEP_ETCD_PORT: String(etcd),
    KUBE_SWEEP_AUTHN_WEBHOOK_PORT: String(api + 10000),
  };
  const wasRunning = existsSync(join(dir, 'pids', 'kube-apiserver.pid'));
  await execa('bash', [join(repoRoot, 'test/cluster/up.sh')], { env, stdio: 'inherit' });
  if (clusterEnv().clusterDir === dir) throw new Error('the second control plane must not be the first one');
  return {
    kubeconfig: join(dir, 'kubeconfig'),
    stop: async () => {
      if (!wasRunning)
        await execa('bash', [join(repoRoot, 'test/cluster/down.sh')], { env, stdio: 'inherit' });
    },
  };
}
