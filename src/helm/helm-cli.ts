import type { CommandResult, CommandRunner } from '../util/command.js';
import { byFace, inputRef, Inputs, inputWord } from '../words/input-words.js';
import { helmDriver, type ReleaseStorageKind } from './release-storage.js';

/** The Helm operations teardown needs. */
export interface HelmPort {
  /**
   * `helm uninstall --namespace <namespace> --timeout <s> --kubeconfig <file> -- <name>` (the
   * name after `--`, so a name that starts with `-` is not read as a flag; no --wait: kube-sweep waits itself,
   * the same way for Helm 3 and Helm 4). `timeoutMs` bounds hooks and the command. It runs with
   * `HELM_DRIVER` set to the driver of the release's record (`secret` or `configmap`,
   * release-storage.ts `helmDriver`), whatever kube-sweep's own environment says.
   */
  uninstall(
    release: { namespace: string; name: string; storage: { kind: ReleaseStorageKind } },
    options: { timeoutMs: number },
  ): Promise<CommandResult>;
  /**
   * `helm version --template {{.Version}}`, e.g. v4.3.1.
   * @throws HelmCheckError when helm cannot be run or fails.
   */
  version(): Promise<string>;
}

/** Thrown when the `helm` input does not name a working Helm 3 or 4; the message names the input and the fix. */
export class HelmCheckError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HelmCheckError';
  }
}

/** How long `helm version` may take, in ms. */
const versionTimeoutMs = 30_000;

const fix = `install Helm 3 or 4 ${byFace('in an earlier step', 'first')} or set ${inputRef(Inputs.helm)} to its path (nothing was deleted)`;

/** A HelmPort over the helm CLI (Helm 3 or 4), pinned to one kubeconfig file and its context. */
export function helmCli(binary: string, kubeconfigPath: string, runner: CommandRunner): HelmPort {
  return {
    uninstall: (release, { timeoutMs }) =>
      runner.run(
        binary,
        [
          'uninstall',
          '--namespace',
          release.namespace,
          '--timeout',
          `${Math.max(1, Math.round(timeoutMs / 1000))}s`,
          '--kubeconfig',
          kubeconfigPath,
          // The name comes from a release Secret: after `--` a name such as `--dry-run` is a name.
          '--',
          release.name,
        ],
        { timeoutMs: timeoutMs + 30_000, env: { HELM_DRIVER: helmDriver(release.storage.kind) } },
      ),
    version: async () => {
      const r = await runner.run(binary, ['version', '--template', '{{.Version}}'], {
        timeoutMs: versionTimeoutMs,
      });
      if (r.exitCode !== 0) {
        const why = r.stderr.trim().split('\n').pop() || r.stdout.trim().split('\n').pop() || 'no output';
        throw new HelmCheckError(
          `${inputWord(Inputs.helm)} is '${binary}', but '${binary} version' failed (exit ${r.exitCode}: ${why}); ${fix}`,
        );
      }
      return r.stdout.trim();
    },
  };
}

/**
 * Checks before any change that `binary` is a Helm the teardown can use: it is on PATH (or a
 * path), `helm version` runs, and its major version is 3 or 4 (the versions whose `uninstall`
 * kube-sweep drives; Helm 2 needs Tiller and has no `uninstall`).
 * @returns the version, e.g. v4.3.1
 * @throws HelmCheckError naming the input, what is wrong and the fix.
 */
export async function checkHelm(binary: string, runner: CommandRunner): Promise<string> {
  if (!(await runner.find(binary))) {
    throw new HelmCheckError(
      `${inputWord(Inputs.helm)} is '${binary}', which is not an executable on PATH; ${fix}`,
    );
  }
  // The kubeconfig is not needed to print the version.
  const version = await helmCli(binary, '', runner).version();
  const major = /^v?(\d+)\./.exec(version)?.[1];
  if (major !== '3' && major !== '4') {
    const shown = version.split('\n')[0]!.slice(0, 80) || '(nothing)';
    throw new HelmCheckError(
      `${inputWord(Inputs.helm)} is '${binary}', whose 'version' prints ${shown}; kube-sweep needs Helm 3 or 4: ${fix}`,
    );
  }
  return version;
}
