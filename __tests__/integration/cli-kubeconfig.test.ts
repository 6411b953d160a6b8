/**
 * The CLI leaves no copy of the kubeconfig behind: the copy it writes for helm (credentials
 * included) lives in a private folder of the run and is deleted when the run ends.
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/index.js';
import { clusterEnv } from './support/cluster.js';
import { bogusTokenKubeconfig } from './support/identities.js';

function copiesOfThisProcess(): string[] {
  return readdirSync(tmpdir())
    .filter((d) => d === 'kube-sweep' || d.startsWith('kube-sweep-'))
    .flatMap((d) => {
      const dir = join(tmpdir(), d);
      try {
        return readdirSync(dir)
          .filter((f) => f.startsWith(`kubeconfig-${process.pid}-`))
          .map((f) => join(dir, f));
      } catch {
        return [];
      }
    });
}

test('a CLI run deletes the kubeconfig copy it wrote', async () => {
  const saved = process.env.RUNNER_TEMP;
  delete process.env.RUNNER_TEMP;
  const before = copiesOfThisProcess();
  let code;
  try {
    code = await main(
      ['inventory', '--kubeconfig', clusterEnv().kubeconfig, '--output', 'json'],
      () => {},
      () => {},
    );
  } finally {
    // eslint-disable-next-line require-atomic-updates -- restores what this test changed, nothing else writes it
    if (saved !== undefined) process.env.RUNNER_TEMP = saved;
  }
  expect(code).toBe(0);
  expect(copiesOfThisProcess().filter((p) => !before.includes(p) && existsSync(p))).toEqual([]);
});

test('a CLI run whose credentials are refused (401) writes no kubeconfig copy at all', async () => {
  const before = copiesOfThisProcess();
  const code = await main(
    ['inventory', '--kubeconfig', bogusTokenKubeconfig()],
    () => {},
    () => {},
  );
  expect(code).toBe(2);
  expect(copiesOfThisProcess().filter((p) => !before.includes(p))).toEqual([]);
});
