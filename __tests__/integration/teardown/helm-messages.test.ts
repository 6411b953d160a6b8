/**
 * Messages say what happened (issue 36): two overlapping teardowns, where helm answers
 * "release: not found" because the other run uninstalled the release first, are a success
 * once its objects are gone (before: the loser failed with "release: not found" although
 * nothing was left); a helm that the stage deadline stopped says so (before: "helm exited with
 * code 124 and printed nothing").
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { adminApiForSuite, clusterEnv, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

/** A `helm` that runs `before` (bash) ahead of each `helm uninstall`, then the real Helm 4. */
function helmWrapper(before: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kube-sweep-helm-msg-')), 'helm');
  writeFileSync(
    path,
    `#!/usr/bin/env bash
if [[ "$1" == uninstall ]]; then
${before}
fi
exec '${clusterEnv().helm4}' "$@"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

test('an overlapping run uninstalled the release first: helm says "release: not found", its objects are gone, the verdict is clean', async () => {
  const ns = uniqueName('overlap');
  expect((await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  // The other run: the same uninstall, done just before this one's.
  const helm = helmWrapper(`  '${clusterEnv().helm4}' "$@" > /dev/null 2>&1`);
  try {
    const { report, failures } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      helm,
      'uninstall-mode': 'helm',
      'stage-timeout': '60s',
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');
    expect(report.teardown!.stages[0]!.releases.map((r) => [r.release, r.status])).toEqual([
      [`${ns}/web`, 'uninstalled'],
    ]);
    expect(report.teardown!.stages[0]!.remaining).toEqual([]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a helm stopped at the stage deadline is reported as stopped at the deadline, not as an exit code', async () => {
  const ns = uniqueName('helm-deadline');
  expect((await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  // Longer than the stage budget plus the 30 s helm is given on top of its --timeout.
  const helm = helmWrapper('  exec sleep 60');
  try {
    const { report } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      helm,
      'uninstall-mode': 'helm',
      'stage-timeout': '2s',
    });
    expect(report.verdict).toBe('leftovers');
    const [outcome] = report.teardown!.stages[0]!.releases;
    expect(outcome!.status).toBe('failed');
    expect(outcome!.message).toMatch(/^helm uninstall was stopped at the stage deadline \(\d+ s left of /);
    expect(outcome!.message).not.toContain('code 124');
  } finally {
    await helm4(['uninstall', 'web', '-n', ns]);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}, 180_000);
