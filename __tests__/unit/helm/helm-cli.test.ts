import { helmCli } from '../../../src/helm/helm-cli.js';
import type { CommandRunner } from '../../../src/util/command.js';

test('helm uninstall passes the release name after --, so a name like --dry-run is a name, not a flag', async () => {
  const calls: { file: string; args: readonly string[] }[] = [];
  const runner: CommandRunner = {
    run: (file, args) => {
      calls.push({ file, args });
      return Promise.resolve({ exitCode: 0, stdout: '', stderr: '' });
    },
    find: () => Promise.resolve(undefined),
  };
  await helmCli('helm', '/tmp/kubeconfig', runner).uninstall(
    { namespace: 'pr-1', name: '--dry-run' },
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
    },
  ]);
});
