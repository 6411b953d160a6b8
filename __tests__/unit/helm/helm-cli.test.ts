import { helmCli } from '../../../src/helm/helm-cli.js';
import type { CommandRunner, RunOptions } from '../../../src/util/command.js';

function recordingRunner() {
  const calls: { file: string; args: readonly string[]; env?: RunOptions['env'] }[] = [];
  const runner: CommandRunner = {
    run: (file, args, options) => {
      calls.push({ file, args, env: options?.env });
      return Promise.resolve({ exitCode: 0, stdout: '', stderr: '' });
    },
    find: () => Promise.resolve(undefined),
  };
  return { calls, runner };
}

test('helm uninstall passes the release name after --, so a name like --dry-run is a name, not a flag', async () => {
  const { calls, runner } = recordingRunner();
  await helmCli('helm', '/tmp/kubeconfig', runner).uninstall(
    { namespace: 'pr-1', name: '--dry-run', storage: { kind: 'Secret' } },
    { timeoutMs: 60_000 },
  );
  expect(calls).toEqual([
    {
      file: 'helm',
      args: [
        'uninstall',
        '--namespace',
        'pr-1',
        '--timeout',
        '60s',
        '--kubeconfig',
        '/tmp/kubeconfig',
        '--',
        '--dry-run',
      ],
      env: { HELM_DRIVER: 'secret' },
    },
  ]);
});

test.each([
  ['Secret', 'secret'],
  ['ConfigMap', 'configmap'],
] as const)(
  'helm uninstall of a release stored in a %s runs with HELM_DRIVER=%s, whatever the environment says',
  async (kind, driver) => {
    const { calls, runner } = recordingRunner();
    await helmCli('helm', '/tmp/kubeconfig', runner).uninstall(
      { namespace: 'pr-1', name: 'web', storage: { kind } },
      { timeoutMs: 1_000 },
    );
    expect(calls.map((c) => c.env)).toEqual([{ HELM_DRIVER: driver }]);
  },
);
