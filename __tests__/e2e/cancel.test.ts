/**
 * A cancelled step, as a GitHub runner cancels it: SIGINT to `node dist/index.js` (the
 * launcher, which relaunches itself with V8 flags and passes signals on), SIGTERM 7.5 s
 * later, SIGKILL 2.5 s after that, during a real teardown on the local control plane. One
 * release is removed with its namespace before the signal; the other's `helm uninstall` is
 * running (its pre-delete hook Job can never run: no node matches it). The step must stop
 * starting work, stop helm, and write its report, outputs and summary before the SIGKILL.
 * The CLI (`dist/cli/index.js`, relaunched with V8 flags) on Ctrl-C prints what was done and exits 130.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { waitFor } from '../../src/util/wait.js';
import {
  adminApiForSuite,
  clusterEnv,
  deleteIfPresent,
  getOrUndefined,
  repoRoot,
  uniqueName,
} from '../integration/support/cluster.js';
import { helm4Ok, writeChart } from '../integration/rules/support/helm.js';
import { createNamespaceHeldByFinalizer, removeFinalizers } from '../integration/rules/support/scenario.js';
import { chart } from '../integration/support/widgets.js';
import { fileCommands, runnerFiles } from './support/runner.js';
import { join } from 'node:path';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

test('SIGINT during a teardown: helm is stopped, nothing new starts, and the report, outputs and summary say what was done', async () => {
  const id = uniqueName('cancel');
  const hooked = `${id}-hooked`; // helm uninstall hangs on its pre-delete hook
  const plain = `${id}-plain`; // removed with its namespace at once
  const plainChart = writeChart('plain', {
    'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n',
  });
  try {
    await helm4Ok(['install', 'hooked', chart('hooked'), '-n', hooked, '--create-namespace']);
    await helm4Ok(['install', 'plain', plainChart.path, '-n', plain, '--create-namespace']);
    const files = runnerFiles();
    const step = execa(process.execPath, [join(repoRoot, 'dist/index.js')], {
      env: {
        ...files,
        GITHUB_ACTION: 'sweep',
        INPUT_MODE: 'teardown',
        INPUT_NAMESPACES: `${id}-*`,
        INPUT_KUBECONFIG: clusterEnv().kubeconfig,
        INPUT_HELM: clusterEnv().helm4,
        'INPUT_STAGE-TIMEOUT': '3m',
      },
      extendEnv: true,
      reject: false,
    });
    // Helm is uninstalling `hooked` (it created the hook Job and waits for it), and the other
    // namespace's deletion was accepted.
    await waitFor(
      async () => {
        const job = await getOrUndefined(api, `/apis/batch/v1/namespaces/${hooked}/jobs/cleanup`);
        const ns = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
          api,
          `/api/v1/namespaces/${plain}`,
        );
        return { done: job !== undefined && (ns === undefined || !!ns.metadata.deletionTimestamp), value: 0 };
      },
      { timeoutMs: 90_000, description: 'helm uninstall of the hooked release to be running' },
    );
    // The runner's cancellation: SIGINT to the step's process, SIGTERM 7.5 s later, SIGKILL 2.5 s after.
    const signalled = Date.now();
    step.kill('SIGINT');
    const term = setTimeout(() => step.kill('SIGTERM'), 7500);
    const kill = setTimeout(() => step.kill('SIGKILL'), 10_000);
    const result = await step;
    clearTimeout(term);
    clearTimeout(kill);
    const endedAfterMs = Date.now() - signalled;
    // It ended on its own, failing the step: not by the SIGKILL.
    expect([result.exitCode, result.signal]).toEqual([1, undefined]);
    expect(endedAfterMs).toBeLessThan(10_000);
    const outputs = fileCommands(files.GITHUB_OUTPUT);
    expect(outputs.verdict).toBe('error');
    expect(outputs['report-path']).toBe(join(files.RUNNER_TEMP, 'kube-sweep-report-sweep.json'));
    const report = JSON.parse(readFileSync(outputs['report-path']!, 'utf8'));
    expect(report.verdict).toBe('error');
    expect(report.cancelled).toEqual({
      signal: 'SIGINT',
      afterMs: expect.any(Number),
      during: expect.stringMatching(/^Stage 1\/1: /),
      releasesRemoved: [`${plain}/plain (with its namespace)`],
      namespacesDeleted: [plain],
      processesStopped: [
        expect.stringMatching(new RegExp(`^helm uninstall --namespace ${hooked} .*-- hooked$`)),
      ],
    });
    expect(report.error).toMatch(
      new RegExp(
        `^cancelled after [\\d.]+ s by SIGINT, during 'Stage 1/1: .*'\\. Done before that: 1 release\\(s\\) removed \\(${plain}/plain \\(with its namespace\\)\\); deletion of 1 namespace\\(s\\) requested \\(${plain}\\)\\. Stopped while running: helm uninstall --namespace ${hooked} `,
      ),
    );
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('kube-sweep: cancelled');
    expect(summary).toContain(`cancelled after`);
    expect(String(result.stdout)).toContain('SIGINT: cancelling: nothing new is started');
    expect(String(result.stdout)).toContain(`::error::cancelled after`);
    // Nothing new was started: the hooked release's namespace was not deleted.
    const left = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
      api,
      `/api/v1/namespaces/${hooked}`,
    );
    expect(left?.metadata.deletionTimestamp).toBeUndefined();
  } finally {
    plainChart.remove();
    await deleteIfPresent(api, `/api/v1/namespaces/${hooked}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${plain}`);
  }
});

test('Ctrl-C (SIGINT) during a CLI teardown: it prints what was done and exits 130', async () => {
  const ns = uniqueName('cli-cancel');
  const held = await createNamespaceHeldByFinalizer(api, ns);
  try {
    const cli = execa(
      process.execPath,
      [
        join(repoRoot, 'dist/cli/index.js'),
        'teardown',
        '-n',
        ns,
        '--await-predicted-hangs',
        'true',
        '--stage-timeout',
        '3m',
        '--kubeconfig',
        clusterEnv().kubeconfig,
        '--helm',
        clusterEnv().helm4,
      ],
      { reject: false, env: { NO_COLOR: '1' } },
    );
    // The teardown waits on the namespace its finalizer holds.
    await waitFor(
      async () => {
        const n = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
          api,
          `/api/v1/namespaces/${ns}`,
        );
        return { done: !!n?.metadata.deletionTimestamp, value: 0 };
      },
      { timeoutMs: 60_000, description: 'the namespace deletion to be requested' },
    );
    cli.kill('SIGINT');
    const result = await cli;
    expect(result.exitCode).toBe(130);
    expect(String(result.stderr)).toContain('SIGINT: cancelling: nothing new is started');
    const stdout = String(result.stdout);
    expect(stdout).toMatch(/^verdict: error$/m);
    expect(stdout).toMatch(
      new RegExp(
        `^error: cancelled after [\\d.]+ s by SIGINT, during '.*'\\. Done before that: deletion of 1 namespace\\(s\\) requested \\(${ns}\\)\\. Not done: the rest of the teardown and the scan for leftovers; run it again to finish\\.$`,
        'm',
      ),
    );
  } finally {
    await removeFinalizers(api, held);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
