/**
 * The example workflows of examples/ (the files the README tells users to copy), run unchanged by
 * an independent runner, nektos/act, against the local control plane (issue 22). Each one gets
 * its kubeconfig as the secret KUBECONFIG_B64, for an identity bound to the shipped ClusterRole
 * it needs (rbac/), so the API server's audit log tells its requests apart. The tests assert on
 * act's outcome per step, the outputs a later step read (and the artifact it uploaded), and the
 * audit log. See __tests__/act/support.ts for how nothing leaves the machine.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { mutatingVerbs, isDryRun, auditMark, requestsOfUserSince } from '../integration/support/audit.js';
import {
  adminApiForSuite,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  repoRoot,
  uniqueName,
} from '../integration/support/cluster.js';
import { startGitHubRecorder } from '../integration/support/github-recorder.js';
import { userKubeconfig, withRole } from '../integration/support/identities.js';
import { installOperatorAndApp, removeOperatorAndApp } from '../integration/support/widgets.js';
import { createWebhookWithoutBackend, webhookConfigurationPath } from '../integration/support/webhooks.js';
import { actSkipReason, runAct, type ActRun } from './support.js';

const minutes = 60_000;
/** A pull request number of this run: its environment's namespaces are pr-<n>-*. */
const prNumber = () => 10_000 + Math.floor(Math.random() * 80_000);
/** The operator and app releases of pull request `pr`'s environment (no finalizer on the Widgets). */
const prEnvironment = (pr: number) => ({
  group: `pr-${pr}.act.kube-sweep.test`,
  operatorNs: `pr-${pr}-operator`,
  appNs: `pr-${pr}-app`,
  finalizer: false,
});
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** The repository act reports (github.repository) and a pull request from it. */
const repository = 'acme/shop';
function pullRequest(number: number, action: string, headSha = 'a'.repeat(40)) {
  return {
    action,
    number,
    pull_request: {
      number,
      merged: action === 'closed',
      head: { sha: headSha, repo: { full_name: repository } },
    },
    repository: { full_name: repository },
  };
}

/** The one file an upload-artifact step kept in `dir` (the stand-in's copy), read as a report. */
function artifactReport(dir: string) {
  const files = readdirSync(dir);
  expect(files).toHaveLength(1);
  return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'));
}

/** The requests of `user` since `mark` that change something (access reviews change nothing). */
function changesBy(user: string, mark: number) {
  return requestsOfUserSince(mark, user).filter(
    (e) =>
      mutatingVerbs.has(e.verb) &&
      !isDryRun(e) &&
      !/^\/apis\/(authorization|authentication)\.k8s\.io\//.test(e.requestURI),
  );
}

/** Fails with act's whole log when the job did not end as expected. */
function expectJob(run: ActRun, result: 'success' | 'failure') {
  if (run.jobResult !== result || (run.exitCode === 0) !== (result === 'success'))
    throw new Error(
      `expected job ${result}, act exited ${run.exitCode} (job ${run.jobResult}); its log:\n${run.text}`,
    );
}

/** Each example is run here: a new example file needs its own test below. */
test('every example workflow is run under act by this file', () => {
  expect.hasAssertions();
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const examples = readdirSync(join(repoRoot, 'examples')).filter((f) => f.endsWith('.yml'));
  for (const f of examples) expect([f, source.includes(`workflow: 'examples/${f}'`)]).toEqual([f, true]);
});

const reason = actSkipReason();
const suite = reason ? describe.skip : describe;

suite(`the examples under act${reason ? ` (skipped: ${reason})` : ''}`, () => {
  const suiteApi = adminApiForSuite();
  let api: ApiClient;
  beforeAll(() => {
    api = suiteApi();
  });

  test(
    'ephemeral-teardown.yml: helm set up, the PR environment torn down clean, the report uploaded',
    async () => {
      expect.hasAssertions();
      const pr = prNumber();
      const env = prEnvironment(pr);
      const user = uniqueName('act-teardown');
      const artifacts = mkdtempSync(join(tmpdir(), 'kube-sweep-act-artifacts-'));
      await installOperatorAndApp(api, env);
      try {
        await withRole(api, 'kube-sweep-teardown.yaml', user, async () => {
          const mark = auditMark();
          const run = await runAct({
            workflow: 'examples/ephemeral-teardown.yml',
            event: 'pull_request',
            payload: pullRequest(pr, 'closed'),
            secrets: { KUBECONFIG_B64: b64(await userKubeconfig(user)) },
            env: { GITHUB_REPOSITORY: repository },
            processEnv: { KUBE_SWEEP_ACT_HELM: clusterEnv().helm4, KUBE_SWEEP_ACT_ARTIFACTS: artifacts },
          });
          expectJob(run, 'success');
          // Per step: setup-helm (its stand-in), the sweep, the upload; the sweep's post step.
          expect([
            run.result('0'),
            run.result('sweep'),
            run.result('2'),
            run.result('sweep', 'Post'),
          ]).toEqual(['success', 'success', 'success', 'success']);
          const outputs = run.outputs('sweep');
          expect(outputs).toMatchObject({ verdict: 'clean', 'releases-uninstalled': '2', blockers: '0' });
          // The upload step read the report-path output: the artifact is this run's report.
          const report = artifactReport(join(artifacts, `kube-sweep-report-pr-${pr}`));
          expect([report.mode, report.verdict]).toEqual(['teardown', 'clean']);
          expect([...report.plan.namespaces].sort()).toEqual([env.appNs, env.operatorNs]);
          expect(run.summary('sweep')).toContain('kube-sweep: clean');
          // The audit log: the identity changed only this environment, and deleted its namespaces.
          const mutations = changesBy(user, mark);
          expect(mutations.filter((e) => !e.requestURI.includes(`pr-${pr}`))).toEqual([]);
          expect(mutations.filter((e) => e.requestURI.endsWith('/finalize'))).toEqual([]);
          const deleted = mutations.filter((e) => e.verb === 'delete').map((e) => e.requestURI.split('?')[0]);
          expect(deleted).toEqual(
            expect.arrayContaining([
              `/api/v1/namespaces/${env.appNs}`,
              `/api/v1/namespaces/${env.operatorNs}`,
            ]),
          );
          expect(await getOrUndefined(api, `/api/v1/namespaces/${env.appNs}`)).toBeUndefined();
        });
      } finally {
        await removeOperatorAndApp(api, env);
      }
    },
    10 * minutes,
  );

  test(
    'pr-check-summary.yml: the plan as one PR comment and a check run, nothing changed in the cluster',
    async () => {
      expect.hasAssertions();
      const pr = prNumber();
      const env = prEnvironment(pr);
      const user = uniqueName('act-plan');
      const token = 'ghs_actToken0123456789abcdefghijklmnopqr';
      const headSha = 'c0ffee'.padEnd(40, '0');
      const recorder = await startGitHubRecorder();
      await installOperatorAndApp(api, env);
      try {
        await withRole(api, 'kube-sweep-scan.yaml', user, async () => {
          const mark = auditMark();
          const run = await runAct({
            workflow: 'examples/pr-check-summary.yml',
            event: 'pull_request',
            payload: pullRequest(pr, 'synchronize', headSha),
            secrets: { KUBECONFIG_B64: b64(await userKubeconfig(user)), GITHUB_TOKEN: token },
            env: { GITHUB_REPOSITORY: repository, GITHUB_API_URL: recorder.url },
          });
          expectJob(run, 'success');
          expect(run.result('sweep')).toBe('success');
          expect(run.outputs('sweep')).toMatchObject({ verdict: 'planned' });
          // GitHub (the recorder): one comment created after reading the PR's comments, one check run.
          expect(recorder.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
            ['GET', `/repos/${repository}/issues/${pr}/comments?per_page=100`, `token ${token}`],
            ['POST', `/repos/${repository}/issues/${pr}/comments`, `token ${token}`],
            ['POST', `/repos/${repository}/check-runs`, `token ${token}`],
          ]);
          const comment = (recorder.requests[1]!.body as { body: string }).body;
          expect(comment).toMatch(/^<!-- kube-sweep:summary PR environment check\/plan\/sweep -->\n/);
          expect(comment).toContain(`${env.appNs}/app`);
          expect(recorder.requests[2]!.body).toMatchObject({ head_sha: headSha, name: 'kube-sweep (plan)' });
          expect(run.commands('sweep', 'warning')).toEqual([]);
          expect(run.text).not.toContain(token);
          // The audit log: the plan read the cluster and changed nothing.
          const requests = requestsOfUserSince(mark, user);
          expect(requests.length).toBeGreaterThan(0);
          expect(changesBy(user, mark)).toEqual([]);
        });
      } finally {
        await recorder.close();
        await removeOperatorAndApp(api, env);
      }
    },
    10 * minutes,
  );

  test(
    'scheduled-hygiene.yml: a webhook without backend fails the first run; the next one, with the cached report as baseline, passes (nothing new)',
    async () => {
      expect.hasAssertions();
      const id = uniqueName('act-hygiene');
      const user = `${id}-scanner`;
      const configuration = `${id}-admission`;
      const sandbox = `sandbox-${id}`;
      const artifacts = mkdtempSync(join(tmpdir(), 'kube-sweep-act-artifacts-'));
      const cache = mkdtempSync(join(tmpdir(), 'kube-sweep-act-cache-'));
      const configurationPath = `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${configuration}`;
      // An error finding: a fail-closed webhook whose Service and namespace do not exist (for a
      // resource nothing uses), and a Helm leftover in a sandbox namespace, which the example ignores.
      await api.request({
        method: 'POST',
        path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          metadata: { name: configuration },
          webhooks: [
            {
              name: `validate.${id}.example.com`,
              rules: [
                {
                  apiGroups: [`${id}.example.com`],
                  apiVersions: ['v1'],
                  resources: ['gadgets'],
                  operations: ['CREATE'],
                },
              ],
              failurePolicy: 'Fail',
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
              clientConfig: { service: { namespace: `${id}-gone`, name: 'backend', port: 443 } },
            },
          ],
        },
      });
      try {
        await createNamespace(api, sandbox);
        await api.request({
          method: 'POST',
          path: `/api/v1/namespaces/${sandbox}/configmaps`,
          body: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: 'left-by-helm',
              labels: { 'app.kubernetes.io/managed-by': 'Helm' },
              annotations: { 'meta.helm.sh/release-name': 'gone', 'meta.helm.sh/release-namespace': sandbox },
            },
          },
        });
        await withRole(api, 'kube-sweep-scan.yaml', user, async () => {
          const mark = auditMark();
          const options = {
            workflow: 'examples/scheduled-hygiene.yml',
            event: 'schedule',
            secrets: { KUBECONFIG_B64: b64(await userKubeconfig(user)) },
            env: { GITHUB_REPOSITORY: repository },
            processEnv: { KUBE_SWEEP_ACT_ARTIFACTS: artifacts, KUBE_SWEEP_ACT_CACHE: cache },
          };
          const run = await runAct(options);
          expectJob(run, 'failure');
          // Nothing restored; the sweep fails (fail-on: error, every finding new without a
          // baseline); the report is kept for the next run, uploaded, and the counts printed.
          expect([0, 'sweep', 2, 3, 4, 5].map((s) => run.result(String(s)))).toEqual([
            'success',
            'failure',
            'success',
            'success',
            'success',
            'success',
          ]);
          expect(run.log('0')).toContain('no cache for kube-sweep-baseline-');
          const outputs = run.outputs('sweep');
          expect(outputs.verdict).toBe('leftovers');
          const report = artifactReport(join(artifacts, 'kube-sweep-hygiene-report'));
          expect([report.mode, report.verdict]).toEqual(['scan', 'leftovers']);
          const about = (code: string, name: string) =>
            report.findings.filter(
              (f: { code: string; object: { name: string } }) => f.code === code && f.object.name === name,
            );
          expect(about('WebhookBackendMissing', configuration)).toHaveLength(1);
          expect(about('HelmLeftover', 'left-by-helm')).toEqual([]);
          expect(report.suppressed[0].count).toBeGreaterThan(0);
          // The last step read the sweep's outputs.
          expect(run.log('5')).toContain('verdict: leftovers');
          expect(run.log('5')).toContain(`errors: ${outputs.errors}, warnings: ${outputs.warnings}`);
          expect(Number(outputs.errors)).toBeGreaterThan(0);
          expect([outputs['new-findings'], outputs['resolved-findings']]).toEqual([outputs.findings, '0']);
          // The next run restores that report and passes it as baseline: the webhook finding is
          // still there, not new, so fail-on-new lets the job pass.
          const next = await runAct(options);
          expectJob(next, 'success');
          expect(next.log('0')).toMatch(/restored \.kube-sweep\/last-report\.json from kube-sweep-baseline-/);
          const again = next.outputs('sweep');
          expect(again).toMatchObject({ verdict: 'clean', 'new-findings': '0' });
          expect(Number(again.errors)).toBeGreaterThan(0);
          expect(next.log('5')).toContain('new: 0, resolved: 0');
          expect(next.summary('sweep')).toContain('still');
          // The audit log: the scan only read.
          const requests = requestsOfUserSince(mark, user);
          expect(requests.length).toBeGreaterThan(0);
          expect(changesBy(user, mark)).toEqual([]);
        });
      } finally {
        await deleteIfPresent(api, configurationPath);
        await deleteIfPresent(api, `/api/v1/namespaces/${sandbox}`);
      }
    },
    10 * minutes,
  );

  test(
    'fleet-hygiene.yml: three matrix legs scan and upload, the last job merges them; a webhook without backend fails the fleet',
    async () => {
      expect.hasAssertions();
      const id = uniqueName('act-fleet');
      const user = `${id}-scanner`;
      const configuration = `${id}-admission`;
      const artifacts = mkdtempSync(join(tmpdir(), 'kube-sweep-act-artifacts-'));
      await createWebhookWithoutBackend(api, configuration);
      try {
        await withRole(api, 'kube-sweep-scan.yaml', user, async () => {
          const mark = auditMark();
          const kubeconfig = b64(await userKubeconfig(user));
          // One control plane stands for the three clusters (each leg has its own secret).
          const run = await runAct({
            workflow: 'examples/fleet-hygiene.yml',
            event: 'schedule',
            secrets: {
              KUBECONFIG_DEV: kubeconfig,
              KUBECONFIG_STAGING: kubeconfig,
              KUBECONFIG_PROD_EU: kubeconfig,
            },
            env: { GITHUB_REPOSITORY: repository },
            processEnv: { KUBE_SWEEP_ACT_ARTIFACTS: artifacts },
          });
          expectJob(run, 'failure');
          // Each leg uploaded its report under its own name, with its cluster's name.
          for (const cluster of ['dev', 'staging', 'prod-eu']) {
            const report = artifactReport(join(artifacts, `kube-sweep-${cluster}`));
            expect([report.mode, report.cluster.name]).toEqual(['scan', cluster]);
          }
          // The merge job: downloaded, merged (fail-on: error fails it), the echo still ran.
          expect([run.result('0'), run.result('fleet'), run.result('2')]).toEqual([
            'success',
            'failure',
            'success',
          ]);
          expect(run.outputs('fleet')).toMatchObject({ verdict: 'leftovers' });
          expect(run.log('2')).toContain('fleet verdict leftovers');
          const summary = run.summary('fleet');
          for (const cluster of ['dev', 'staging', 'prod-eu']) expect(summary).toContain(cluster);
          expect(summary).toContain('WebhookBackendMissing');
          // The audit log: the scans only read.
          expect(requestsOfUserSince(mark, user).length).toBeGreaterThan(0);
          expect(changesBy(user, mark)).toEqual([]);
        });
      } finally {
        await deleteIfPresent(api, webhookConfigurationPath(configuration));
      }
    },
    10 * minutes,
  );

  test(
    'reap-abandoned.yml: the environment of a closed pull request is torn down, the open one and a kept one are left',
    async () => {
      expect.hasAssertions();
      const [closed, open, kept] = [prNumber(), prNumber(), prNumber()];
      const user = uniqueName('act-reap');
      const token = 'ghs_actToken0123456789abcdefghijklmnopqr';
      const recorder = await startGitHubRecorder({
        pulls: [
          { number: closed, state: 'closed', merged: true },
          { number: open, state: 'open' },
          { number: kept, state: 'closed', labels: ['keep-preview'] },
        ],
      });
      const namespaces = (pr: number) => [`pr-${pr}-api`, `pr-${pr}-db`];
      for (const pr of [closed, open, kept]) for (const ns of namespaces(pr)) await createNamespace(api, ns);
      try {
        await withRole(api, 'kube-sweep-teardown.yaml', user, async () => {
          const mark = auditMark();
          const run = await runAct({
            workflow: 'examples/reap-abandoned.yml',
            event: 'schedule',
            secrets: { KUBECONFIG_B64: b64(await userKubeconfig(user)), GITHUB_TOKEN: token },
            env: { GITHUB_REPOSITORY: repository, GITHUB_API_URL: recorder.url },
          });
          expectJob(run, 'success');
          expect([run.result('reap'), run.result('1')]).toEqual(['success', 'success']);
          const outputs = run.outputs('reap');
          expect(outputs.verdict).toBe('clean');
          expect(JSON.parse(outputs.reaped!)).toEqual([String(closed)]);
          expect(JSON.parse(outputs.kept!)).toEqual(expect.arrayContaining([String(open), String(kept)]));
          expect(run.log('1')).toContain(`reaped ["${closed}"], failed []`);
          for (const ns of namespaces(closed))
            expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
          for (const ns of [...namespaces(open), ...namespaces(kept)])
            expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
          // The audit log: the identity changed only the closed pull request's namespaces.
          const mutations = changesBy(user, mark);
          expect(mutations.length).toBeGreaterThan(0);
          expect(mutations.filter((e) => !e.requestURI.includes(`/namespaces/pr-${closed}-`))).toEqual([]);
          expect(recorder.requests.every((r) => r.authorization === `token ${token}`)).toBe(true);
          expect(run.text).not.toContain(token);
        });
      } finally {
        await recorder.close();
        for (const pr of [closed, open, kept])
          for (const ns of namespaces(pr)) await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
      }
    },
    10 * minutes,
  );
});
