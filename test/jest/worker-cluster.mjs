import { existsSync, readFileSync } from 'node:fs';

/**
 * Jest setup file (the projects that use the local control plane): points this worker's tests at
 * control plane k = JEST_WORKER_ID when test/cluster/workers.sh started more than one
 * (KUBE_SWEEP_TEST_CLUSTERS > 1). Worker 1 keeps the ordinary one; worker k >= 2 reads
 * "<KUBE_SWEEP_CLUSTER_DIR or <repo>/.cluster>-w<k>/env" and takes its folder and ports into
 * process.env, which the tests' support (clusterEnvPath, the second control plane) and every
 * script they start read. Throws when that folder has no env file: tests must never share a
 * control plane by accident.
 */
const clusters = Number(process.env.KUBE_SWEEP_TEST_CLUSTERS ?? '1');
const worker = Number(process.env.JEST_WORKER_ID ?? '1');
if (clusters > 1 && worker > 1) {
  const base =
    process.env.KUBE_SWEEP_CLUSTER_DIR_BASE ??
    process.env.KUBE_SWEEP_CLUSTER_DIR ??
    `${process.cwd()}/.cluster`;
  process.env.KUBE_SWEEP_CLUSTER_DIR_BASE = base;
  const dir = `${base}-w${worker}`;
  const envFile = `${dir}/env`;
  if (!existsSync(envFile)) {
    throw new Error(
      `jest worker ${worker} needs its control plane: ${envFile} is missing; run 'bash test/cluster/workers.sh up ${clusters}'`,
    );
  }
  for (const line of readFileSync(envFile, 'utf8').split('\n')) {
    const m = /^export (KUBE_SWEEP_\w+)='([^']*)'$/.exec(line);
    if (m) process.env[m[1]] = m[2];
  }
  process.env.KUBE_SWEEP_CLUSTER_B_DIR = `${dir}-b`;
}
