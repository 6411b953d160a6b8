/**
 * Helpers for the tests that use the real Docker engine and kind (issue 17; docs/kind.md).
 * They read what test/kind/docker.sh and test/kind/build.sh set up; nothing here sends traffic.
 */
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../integration/support/cluster.js';

/**
 * Why the real-kind tests are skipped, or '' when they run: they need KUBE_SWEEP_KIND=1 or
 * KUBE_SWEEP_KIND_NODE_IMAGE (.ci/run sets the latter) and a Docker engine that answers `docker info`.
 */
export function kindSkipReason(): string {
  if (process.env['KUBE_SWEEP_KIND'] !== '1' && !process.env['KUBE_SWEEP_KIND_NODE_IMAGE'])
    return 'set KUBE_SWEEP_KIND=1 (or run .ci/run) to run the real-kind tests';
  const info = spawnSync('docker', ['info'], { timeout: 15_000, stdio: 'ignore' });
  if (info.error || info.status !== 0)
    return 'the Docker engine does not answer `docker info` (start it: bash test/kind/docker.sh up)';
  return '';
}

/** The Docker network kind's nodes join (test/kind/docker.sh creates it before kind does). */
export const kindNetwork = process.env['KIND_EXPERIMENTAL_DOCKER_NETWORK'] ?? 'kind';
/** Its IPv4 subnet (test/kind/docker.sh, KUBE_SWEEP_KIND_SUBNET). */
export const kindSubnet = process.env['KUBE_SWEEP_KIND_SUBNET'] ?? '172.31.0.0/16';
/** The kind cluster config for kube-sweep's node image (the action's `kind-config` input). */
export const kindConfigPath = join(repoRoot, 'test/kind/cluster.yaml');

/**
 * Folder holding the `kind` binary: $KUBE_SWEEP_KIND_BIN (set by .ci/run), else what
 * `test/kind/build.sh bins` prints (seconds when cached; builds when not).
 */
export async function kindBinDir(): Promise<string> {
  const fromEnv = process.env['KUBE_SWEEP_KIND_BIN'];
  if (fromEnv) return fromEnv;
  const { stdout } = await execa('bash', [join(repoRoot, 'test/kind/build.sh'), 'bins']);
  return stdout.trim();
}

/**
 * Name of kube-sweep's kind node image (the action's `kind-node-image` input):
 * $KUBE_SWEEP_KIND_NODE_IMAGE (set by .ci/run), else what `test/kind/build.sh` prints (seconds when
 * the image exists; a cold build takes minutes). Needs the engine up: `bash test/kind/docker.sh up`.
 */
export async function kindNodeImage(): Promise<string> {
  const fromEnv = process.env['KUBE_SWEEP_KIND_NODE_IMAGE'];
  if (fromEnv) return fromEnv;
  const { stdout } = await execa('bash', [join(repoRoot, 'test/kind/build.sh')]);
  return stdout.trim();
}

/** One rule of `iptables -S <chain>` split into its words (`-A DOCKER-USER -s ... -j DROP`). */
export type IptablesRule = readonly string[];

/** `iptables -S <chain>` as rules (the `-N`/`-P` lines left out). */
export async function iptablesRules(chain: string): Promise<IptablesRule[]> {
  const { stdout } = await execa('iptables', ['-S', chain]);
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('-A '))
    .map((l) => l.match(/"[^"]*"|\S+/g) ?? []);
}

/** The value after `flag` in a rule (`-s`, `-d`, `-j`), with its negation (`! -d x`). */
export function ruleArg(rule: IptablesRule, flag: string): { value: string; negated: boolean } | undefined {
  const i = rule.indexOf(flag);
  if (i < 0 || i + 1 >= rule.length) return undefined;
  return { value: rule[i + 1]!, negated: rule[i - 1] === '!' };
}
