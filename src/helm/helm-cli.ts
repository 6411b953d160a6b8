import type { CommandResult, CommandRunner } from '../util/command.js';

/** The Helm operations teardown needs. */
export interface HelmPort {
  /**
   * `helm uninstall <name> -n <namespace> --timeout <s>` (no --wait: kube-sweep waits itself,
   * the same way for Helm 3 and Helm 4). `timeoutMs` bounds hooks and the command.
   */
  uninstall(
    release: { namespace: string; name: string },
    options: { timeoutMs: number },
  ): Promise<CommandResult>;
  /** `helm version --template {{.Version}}`, e.g. v4.3.1. */
  version(): Promise<string>;
}

/** A HelmPort over the helm CLI (Helm 3 or 4), pinned to one kubeconfig file and its context. */
export function helmCli(binary: string, kubeconfigPath: string, runner: CommandRunner): HelmPort {
  return {
    uninstall: (release, { timeoutMs }) =>
      runner.run(
        binary,
        [
          'uninstall',
          release.name,
          '--namespace',
          release.namespace,
          '--timeout',
          `${Math.max(1, Math.round(timeoutMs / 1000))}s`,
          '--kubeconfig',
          kubeconfigPath,
        ],
        { timeoutMs: timeoutMs + 30_000 },
      ),
    version: async () => {
      const r = await runner.run(binary, ['version', '--template', '{{.Version}}']);
      return r.stdout.trim();
    },
  };
}
