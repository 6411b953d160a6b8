/**
 * Two kube-sweep steps in one job, run as a runner runs them (issue 22): the harness gives the
 * job ONE RUNNER_TEMP (__tests__/e2e/support/runner.ts, runnerJob), as GitHub's runner and act do,
 * so what one step leaves there is what the next step sees.
 */
import { readFileSync } from 'node:fs';
import { clusterEnv, uniqueName } from '../integration/support/cluster.js';
import { fileCommands, runStep, runnerJob } from './support/runner.js';

test('the harness gives the steps of one job one RUNNER_TEMP and their own output files', () => {
  const job = runnerJob();
  const first = job.step('plan');
  const second = job.step();
  expect(second.RUNNER_TEMP).toBe(first.RUNNER_TEMP);
  expect(second.GITHUB_OUTPUT).not.toBe(first.GITHUB_OUTPUT);
  expect([first.GITHUB_ACTION, second.GITHUB_ACTION, job.step().GITHUB_ACTION]).toEqual([
    'plan',
    '__self',
    '__self_2',
  ]);
});

/** A job of two steps: a plan, then a scan of the same (empty) environment. */
async function twoSteps() {
  const id = uniqueName('one-job');
  const job = runnerJob();
  const inputs = {
    INPUT_KUBECONFIG: clusterEnv().kubeconfig,
    INPUT_NAMESPACES: `${id}-*`,
    'INPUT_SCAN-SCOPE': 'environment',
    'INPUT_FAIL-ON': 'never',
  };
  const planFiles = job.step('plan');
  const plan = await runStep('dist/index.js', { ...planFiles, ...inputs, INPUT_MODE: 'plan' });
  const scanFiles = job.step('scan');
  const scan = await runStep('dist/index.js', { ...scanFiles, ...inputs, INPUT_MODE: 'scan' });
  return {
    job,
    exitCodes: [plan.exitCode, scan.exitCode],
    plan: fileCommands(planFiles.GITHUB_OUTPUT),
    scan: fileCommands(scanFiles.GITHUB_OUTPUT),
  };
}
describe('two kube-sweep steps in one job, on the local control plane', () => {
  let run: Awaited<ReturnType<typeof twoSteps>>;
  beforeAll(async () => {
    run = await twoSteps();
  }, 120_000);
  const report = (path: string) =>
    JSON.parse(readFileSync(path, 'utf8')) as { mode: string; verdict: string };

  test("two kube-sweep steps in one job both run, and write their reports in the job's RUNNER_TEMP", () => {
    expect(run.exitCodes).toEqual([0, 0]);
    expect(run.plan.verdict).toBe('planned');
    expect(['clean', 'partial']).toContain(run.scan.verdict); // partial: something else could not be read
    expect(run.plan['report-path']!.startsWith(run.job.RUNNER_TEMP)).toBe(true);
    expect(run.scan['report-path']!.startsWith(run.job.RUNNER_TEMP)).toBe(true);
    expect(report(run.scan['report-path']!)).toMatchObject({ mode: 'scan', verdict: run.scan.verdict });
  });

  // Issue 22, item 1: the default report path is unique per step (GITHUB_ACTION), so the scan
  // does not overwrite the plan's report although both steps share the job's RUNNER_TEMP.
  test("two kube-sweep steps in one job: the first step's report-path output still names its own report", () => {
    // What a later step of the job reads through the plan's output: the plan's report.
    expect(report(run.plan['report-path']!)).toMatchObject({ mode: 'plan', verdict: 'planned' });
    expect(run.plan['report-path']).not.toBe(run.scan['report-path']);
  });
});
