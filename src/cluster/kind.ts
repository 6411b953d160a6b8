import type { CommandRunner } from '../util/command.js';
import { ClusterAccessError } from './errors.js';
import { byFace, Inputs, inputSet } from '../words/input-words.js';

/** What to ask kind for; durations in ms. */
export interface KindRequest {
  readonly clusterName: string;
  /** Path to a kind Cluster config file, or ''. */
  readonly configPath: string;
  /** Node image (kindest/node:vX.Y.Z), or '' for kind's default. */
  readonly nodeImage: string;
  /** `--wait` for the control plane, in ms. */
  readonly waitMs: number;
}

/** A kind cluster ready to use. `created` is false when one of that name existed already. */
export interface KindCluster {
  readonly name: string;
  readonly created: boolean;
  /** The kubeconfig YAML kind hands back (`kind get kubeconfig`). */
  readonly kubeconfig: string;
}

/** Tools `cluster: kind` needs on PATH (kind drives docker). */
export const kindPrerequisites = ['kind', 'docker'] as const;

function tail(text: string): string {
  const lines = text.trim().split('\n');
  return lines.slice(-5).join('\n');
}

/**
 * Creates the kind cluster `clusterName`, or reuses it when `kind get clusters` lists it, and
 * returns its kubeconfig. Uses the kind CLI (sigs.k8s.io/kind: `create cluster --name --config
 * --image --wait`, `get clusters`, `get kubeconfig --name`).
 * @throws ClusterAccessError `kind` when kind or docker is missing from PATH, or a kind command fails.
 */
export async function ensureKindCluster(request: KindRequest, runner: CommandRunner): Promise<KindCluster> {
  for (const tool of kindPrerequisites) {
    if (!(await runner.find(tool))) {
      throw new ClusterAccessError(
        'kind',
        `${inputSet(Inputs.cluster, 'kind')} needs '${tool}' on PATH and it is not there; install it ${byFace('in an earlier step', 'first')} ` +
          `(e.g. helm/kind-action or 'go install sigs.k8s.io/kind'), or use ${inputSet(Inputs.cluster, 'existing')} with a kubeconfig`,
      );
    }
  }
  const listed = await runner.run('kind', ['get', 'clusters']);
  if (listed.exitCode !== 0) {
    throw new ClusterAccessError(
      'kind',
      `'kind get clusters' failed (exit ${listed.exitCode}): ${tail(listed.stderr)}`,
    );
  }
  const exists = listed.stdout
    .split('\n')
    .map((l) => l.trim())
    .includes(request.clusterName);
  if (!exists) {
    const args = [
      'create',
      'cluster',
      '--name',
      request.clusterName,
      '--wait',
      `${Math.ceil(request.waitMs / 1000)}s`,
    ];
    if (request.configPath) args.push('--config', request.configPath);
    if (request.nodeImage) args.push('--image', request.nodeImage);
    const created = await runner.run('kind', args);
    if (created.exitCode !== 0) {
      throw new ClusterAccessError(
        'kind',
        `'kind ${args.join(' ')}' failed (exit ${created.exitCode}): ${tail(created.stderr)}`,
      );
    }
  }
  const kubeconfig = await runner.run('kind', ['get', 'kubeconfig', '--name', request.clusterName]);
  if (kubeconfig.exitCode !== 0 || kubeconfig.stdout.trim() === '') {
    throw new ClusterAccessError(
      'kind',
      `'kind get kubeconfig --name ${request.clusterName}' failed (exit ${kubeconfig.exitCode}): ${tail(kubeconfig.stderr)}`,
    );
  }
  return { name: request.clusterName, created: !exists, kubeconfig: kubeconfig.stdout };
}

/**
 * Deletes a kind cluster (the post step, for a cluster this action created).
 * @throws ClusterAccessError `kind` when `kind delete cluster` fails.
 */
export async function deleteKindCluster(name: string, runner: CommandRunner): Promise<void> {
  const result = await runner.run('kind', ['delete', 'cluster', '--name', name]);
  if (result.exitCode !== 0) {
    throw new ClusterAccessError(
      'kind',
      `'kind delete cluster --name ${name}' failed: ${tail(result.stderr)}`,
    );
  }
}
