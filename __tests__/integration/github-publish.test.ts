/**
 * The "PR check summary" use (issue 7): the action, run in-process from source against the
 * local control plane, with pr-comment and check-run on a pull_request event, publishing to a
 * local server that records every GitHub REST call (GitHub cannot be reached from the tests).
 * The environment holds 120 real HelmLeftover findings: 120 ConfigMaps annotated for a Helm
 * release that does not exist.
 */
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { main as cli } from '../../src/cli/index.js';
import { commentMarker } from '../../src/report/github/pr-comment.js';
import { recorderIds, runnerEnv, startGitHubRecorder } from './support/github-recorder.js';
import { schemaErrors } from '../unit/support/report-schema.js';
import { runAction } from './support/action.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  kubectl,
  uniqueName,
} from './support/cluster.js';

const token = 'ghs_integrationToken9876543210zyxwvuTSRQ';
const ns = uniqueName('gh-pr');
let api: ApiClient;

beforeAll(async () => {
  api = await adminApi();
  await createNamespace(api, ns);
  const items = Array.from({ length: 120 }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `left-${String(i).padStart(3, '0')}`,
      namespace: ns,
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'gone', 'meta.helm.sh/release-namespace': ns },
    },
    data: { k: 'v' },
  }));
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
});
afterAll(async () => {
  await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  await api.close();
});

const inputs = (extra: Record<string, string>) => ({
  mode: 'scan',
  'scan-scope': 'environment',
  namespaces: ns,
  'pr-comment': 'true',
  'check-run': 'true',
  'github-token': token,
  ...extra,
});

test('a PR run keeps one sticky comment (found on page 2, updated) and creates a check run with 120 annotations', async () => {
  const marker = commentMarker('PR environment/teardown/sweep');
  const server = await startGitHubRecorder({
    commentPages: [[{ id: 11, body: 'Looks good' }], [{ id: 12, body: `${marker}\nthe previous run` }]],
  });
  try {
    const run = await runAction(
      inputs({ 'fail-on': 'warning' }),
      runnerEnv(server.url, { pullRequest: { number: 7, headSha: 'prheadsha' } }),
    );
    expect(run.report.findings!.filter((f) => f.code === 'HelmLeftover')).toHaveLength(120);
    expect(run.report.verdict).toBe('leftovers');
    expect(run.failures).toHaveLength(1); // the sweep's own verdict, nothing from GitHub

    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/repos/acme/shop/issues/7/comments?per_page=100'],
      ['GET', '/repos/acme/shop/issues/7/comments?per_page=100&page=2'],
      ['PATCH', '/repos/acme/shop/issues/comments/12'],
      ['POST', '/repos/acme/shop/check-runs'],
      ['PATCH', `/repos/acme/shop/check-runs/${recorderIds.checkRunId}`],
      ['PATCH', `/repos/acme/shop/check-runs/${recorderIds.checkRunId}`],
    ]);
    for (const r of server.requests) expect(r.authorization).toBe(`token ${token}`);

    // The comment: the job summary's beginning, cut between blocks under 65536 characters.
    const body = (server.requests[2]!.body as { body: string }).body;
    expect(body.startsWith(`${marker}\n## ❌ kube-sweep: leftovers found`)).toBe(true);
    expect(body.length).toBeLessThanOrEqual(65536);
    expect(run.summary.length).toBeGreaterThan(65536); // so the comment had to be cut
    expect(body).toContain("\n\n> ✂️ This comment was cut to stay under GitHub's 65536-character limit");
    expect(body).toContain('[the workflow run](https://github.example/acme/shop/actions/runs/1234)');
    const kept = body.slice(marker.length + 1, body.indexOf('\n\n> ✂️ This comment was cut'));
    expect(kept.length).toBeGreaterThan(1000);
    // The same blocks but the cluster line, which names the server only in the job summary.
    const clusterLine = /^(Cluster `|Kubernetes ).*\n/m;
    expect(clusterLine.exec(kept)?.[0]).toMatch(
      /^Kubernetes .*the API server and context are not published here/,
    );
    expect(
      run.summary
        .replace(clusterLine, '')
        .startsWith(kept.replace(clusterLine, '').replace(/(\n\n<\/details>)+$/, '')),
    ).toBe(true);
    // The findings table is whole: one row per finding.
    expect(kept.match(/^\| 🟠 \| \*\*`HelmLeftover`\*\* \|/gm)).toHaveLength(120);

    // The check run: on the PR head, failure, 50 + 50 + 20 annotations on the workflow file.
    const checks = server.requests.slice(3).map(
      (r) =>
        r.body as {
          head_sha?: string;
          conclusion?: string;
          output: {
            summary: string;
            annotations: { annotation_level: string; path: string; message: string }[];
          };
        },
    );
    expect(checks[0]).toMatchObject({
      name: 'kube-sweep (scan)',
      head_sha: 'prheadsha',
      conclusion: 'failure',
    });
    expect(checks.map((c) => c.output.annotations.length)).toEqual([50, 50, 20]);
    const annotations = checks.flatMap((c) => c.output.annotations);
    expect(new Set(annotations.map((a) => `${a.annotation_level} ${a.path}`))).toEqual(
      new Set(['warning .github/workflows/pr-env.yml']),
    );
    expect(annotations[0]!.message).toMatch(new RegExp(`^HelmLeftover ConfigMap ${ns}/left-000: `));
    expect(checks[0]!.output.summary.length).toBeLessThanOrEqual(65535);

    // Recorded in the report (which still matches its schema); the token appears nowhere.
    const written = readFileSync(run.outputs.get('report-path')!, 'utf8');
    expect(JSON.parse(written).github).toEqual({
      prComment: { status: 'updated', url: `${server.url}/comment/12` },
      checkRun: { status: 'created', url: `${server.url}/check/${recorderIds.checkRunId}` },
    });
    expect(schemaErrors(JSON.parse(written))).toEqual([]);
    for (const text of [run.log.join('\n'), run.summary, written, JSON.stringify([...run.outputs])]) {
      expect(text).not.toContain(token);
    }
    // The API server URL and the context are in the summary and the report, not in what was
    // posted through the API (publish-server is false by default).
    const apiServer = /server: (\S+)/.exec(readFileSync(clusterEnv().kubeconfig, 'utf8'))![1]!;
    expect(run.summary).toContain(apiServer);
    expect(JSON.parse(written).cluster.server).toBe(apiServer);
    for (const r of server.requests) {
      expect(JSON.stringify(r.body ?? '')).not.toContain(apiServer);
      expect(JSON.stringify(r.body ?? '')).not.toContain(`context \``);
    }
  } finally {
    await server.close();
  }
});

test('403 from GitHub (a fork PR, no permissions): warnings naming the permissions, the step does not fail', async () => {
  const server = await startGitHubRecorder({ forbidden: ['comments', 'checks'] });
  try {
    const run = await runAction(
      inputs({ 'fail-on': 'never' }),
      runnerEnv(server.url, { pullRequest: { number: 8, headSha: 'forkhead' } }),
    );
    expect(run.failures).toEqual([]);
    expect(['clean', 'partial']).toContain(run.report.verdict);
    expect(run.outputs.get('verdict')).toBe(run.report.verdict);
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/repos/acme/shop/issues/8/comments?per_page=100'],
      ['POST', '/repos/acme/shop/check-runs'],
    ]);
    const warnings = run.log.filter((l) => l.startsWith('warning: could not write'));
    expect(warnings).toEqual([
      expect.stringContaining('`permissions: pull-requests: write`'),
      expect.stringContaining('`permissions: checks: write`'),
    ]);
    expect(run.report.github).toEqual({
      prComment: { status: 'forbidden', message: expect.stringMatching(/^403 /) },
      checkRun: { status: 'forbidden', message: expect.stringMatching(/^403 /) },
    });
    expect(run.log.join('\n')).not.toContain(token);
  } finally {
    await server.close();
  }
});

test('an empty github-token (a fork PR, no token given): a warning, the sweep runs and its verdict stands', async () => {
  const server = await startGitHubRecorder();
  try {
    const run = await runAction(
      inputs({ 'fail-on': 'never', 'github-token': '' }),
      runnerEnv(server.url, { pullRequest: { number: 9, headSha: 'forkhead' } }),
    );
    expect(run.failures).toEqual([]);
    expect(['clean', 'partial']).toContain(run.report.verdict);
    expect(run.report.findings?.length).toBeGreaterThanOrEqual(120);
    expect(run.outputs.get('verdict')).toBe(run.report.verdict);
    expect(server.requests).toEqual([]);
    expect(run.log.filter((l) => l.startsWith('warning: could not publish'))).toEqual([
      expect.stringContaining("no token: input 'github-token' is empty"),
    ]);
    expect(run.report.github).toEqual({
      prComment: { status: 'failed', message: expect.stringMatching(/^no token/) },
      checkRun: { status: 'failed', message: expect.stringMatching(/^no token/) },
    });
  } finally {
    await server.close();
  }
});

test('the CLI takes the token from GITHUB_TOKEN, and without one warns and still sweeps', async () => {
  const server = await startGitHubRecorder();
  const variables = { ...runnerEnv(server.url, { eventName: 'push' }), GITHUB_TOKEN: token };
  const saved = Object.fromEntries(Object.keys(variables).map((k) => [k, process.env[k]]));
  const args = [
    'scan',
    '--kubeconfig',
    clusterEnv().kubeconfig,
    '--namespaces',
    ns,
    '--scan-scope',
    'environment',
  ];
  try {
    Object.assign(process.env, variables);
    let stderr = '';
    const code = await cli(
      [...args, '--fail-on', 'never', '--check-run', 'true', '--output', 'json'],
      () => {},
      (s) => (stderr += s),
    );
    expect(code).toBe(0);
    expect(server.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ['POST', '/repos/acme/shop/check-runs', `token ${token}`],
      ['PATCH', `/repos/acme/shop/check-runs/${recorderIds.checkRunId}`, `token ${token}`],
      ['PATCH', `/repos/acme/shop/check-runs/${recorderIds.checkRunId}`, `token ${token}`],
    ]);
    expect(stderr).toContain('check run created');
    expect(stderr).not.toContain(token);

    delete process.env.GITHUB_TOKEN;
    stderr = '';
    expect(
      await cli(
        [...args, '--fail-on', 'never', '--check-run', 'true'],
        () => {},
        (s) => (stderr += s),
      ),
    ).toBe(0);
    expect(stderr).toContain("could not publish to GitHub: no token: input 'github-token' is empty");
    expect(server.requests).toHaveLength(3);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await server.close();
  }
});
