/** The pure parts of the GitHub publishing: context, marker, comment body, conclusion, annotations. */
import type { Finding } from '../../../../src/rules/findings.js';
import {
  annotationsOf,
  batches,
  checkRunOutput,
  conclusionOf,
  cutText,
} from '../../../../src/report/github/check-run.js';
import { pullRequestOf, readGitHubContext, workflowPathOf } from '../../../../src/report/github/context.js';
import { commentBody, commentLimit, commentMarker } from '../../../../src/report/github/pr-comment.js';
import type { Report } from '../../../../src/report/report.js';

const finding = (i: number, severity: Finding['severity']): Finding =>
  ({
    key: `HelmLeftover:v1/ConfigMap/ns/cm-${i}`,
    code: 'HelmLeftover',
    rule: 'helm-leftover',
    severity,
    object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: `cm-${i}` },
    message: `ConfigMap ns/cm-${i} belongs to release ns/gone, which does not exist`,
    evidence: ['no release Secret'],
    remediation: { summary: 'delete it', commands: [`kubectl delete configmap cm-${i} -n ns`] },
    scope: 'environment',
  }) as Finding;

test('the pull request comes from a pull_request or pull_request_target payload only', () => {
  const payload = { pull_request: { number: 7, head: { sha: 'abc' } } };
  expect(pullRequestOf('pull_request', payload)).toEqual({ number: 7, headSha: 'abc' });
  expect(pullRequestOf('pull_request_target', payload)).toEqual({ number: 7, headSha: 'abc' });
  expect(pullRequestOf('push', payload)).toBeUndefined();
  expect(pullRequestOf('pull_request', {})).toBeUndefined();
});

test('the annotation path is the workflow file, or .github', () => {
  expect(workflowPathOf('acme/shop/.github/workflows/ci.yml@refs/heads/main', 'acme/shop')).toBe(
    '.github/workflows/ci.yml',
  );
  expect(workflowPathOf(undefined, 'acme/shop')).toBe('.github');
  expect(workflowPathOf('other/repo/.github/workflows/x.yml@v1', 'acme/shop')).toBe('.github');
});

test('the context uses the PR head commit on PR events, GITHUB_SHA otherwise, and needs owner/repo', () => {
  const env = {
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: '/event.json',
    GITHUB_SHA: 'merge-sha',
    GITHUB_API_URL: 'http://127.0.0.1:1/',
    GITHUB_RUN_ID: '9',
    GITHUB_WORKFLOW: 'PR env',
    GITHUB_JOB: 'down',
    GITHUB_ACTION: 'sweep',
  };
  const read = () => JSON.stringify({ pull_request: { number: 3, head: { sha: 'head-sha' } } });
  expect(readGitHubContext(env, read)).toMatchObject({
    apiUrl: 'http://127.0.0.1:1',
    owner: 'acme',
    repo: 'shop',
    pullRequest: { number: 3, headSha: 'head-sha' },
    headSha: 'head-sha',
    runUrl: 'https://github.com/acme/shop/actions/runs/9',
    stepKey: 'PR env/down/sweep',
  });
  expect(readGitHubContext({ ...env, GITHUB_EVENT_NAME: 'push' }, read).headSha).toBe('merge-sha');
  // A '/' or '%' inside a name cannot make two steps one key.
  const key = (workflow: string, job: string) =>
    readGitHubContext({ ...env, GITHUB_WORKFLOW: workflow, GITHUB_JOB: job }, read).stepKey;
  expect(key('a/b', 'c')).toBe('a%2Fb/c/sweep');
  expect(key('a/b', 'c')).not.toBe(key('a', 'b/c'));
  expect(key('50%', 'c')).toBe('50%25/c/sweep');
  expect(() => readGitHubContext({ ...env, GITHUB_REPOSITORY: '' }, read)).toThrow(/GITHUB_REPOSITORY/);
});

test('the marker tells steps apart and cannot close the HTML comment early', () => {
  expect(commentMarker('PR env/down/sweep')).toBe('<!-- kube-sweep:summary PR env/down/sweep -->');
  expect(commentMarker('a/b/c')).not.toBe(commentMarker('a/b/d'));
  const hostile = commentMarker('x-->y/<b>/--z');
  expect(hostile.slice(4, -3)).not.toMatch(/--|>/);
  // Two workflow names that differ only in characters that are encoded get two markers.
  const keys = [
    'PR (env)/t/s',
    'PR [env]/t/s',
    'PR _env_/t/s',
    'PR -env-/t/s',
    'PR --env/t/s',
    'PR %25env/t/s',
  ];
  expect(new Set(keys.map(commentMarker)).size).toBe(keys.length);
  expect(commentMarker('PR (env)/t/s')).toBe('<!-- kube-sweep:summary PR %28env%29/t/s -->');
  expect(commentMarker('a--b/é/s')).toBe('<!-- kube-sweep:summary a-%2Db/%C3%A9/s -->');
  for (const k of keys) expect(commentMarker(k).slice(4, -3)).not.toMatch(/--|>|\n/);
});

test('a comment over 65536 characters is cut between blocks, never inside a table, with a note', () => {
  const marker = commentMarker('w/j/s');
  const table = (n: number) =>
    [
      '| # | x |',
      '| --- | --- |',
      ...Array.from({ length: n }, (_, i) => `| ${i} | ${'é'.repeat(40)} |`),
    ].join('\n');
  const markdown = ['## ❌ kube-sweep: leftovers found', '', table(500), '', table(500), '', table(500)].join(
    '\n',
  );
  expect(markdown.length).toBeGreaterThan(commentLimit);
  const body = commentBody(markdown, marker, 'https://github.example/acme/shop/actions/runs/1');
  expect(body.startsWith(`${marker}\n`)).toBe(true);
  expect(body.length).toBeLessThanOrEqual(commentLimit);
  expect(body).toContain("GitHub's 65536-character limit");
  expect(body).toContain('[the workflow run](https://github.example/acme/shop/actions/runs/1)');
  // Cut after a whole table: the kept text ends with a complete table row.
  const kept = body.slice(0, body.indexOf('\n\n> ✂️'));
  expect(kept.endsWith(`| 499 | ${'é'.repeat(40)} |`)).toBe(true);
  // Small summaries are kept whole.
  expect(commentBody('## ok', marker)).toBe(`${marker}\n## ok`);
});

test('verdicts map to check run conclusions', () => {
  expect(conclusionOf('clean')).toBe('success');
  expect(conclusionOf('complete')).toBe('success');
  expect(conclusionOf('leftovers')).toBe('failure');
  expect(conclusionOf('error')).toBe('failure');
  expect(conclusionOf('planned')).toBe('neutral');
  expect(conclusionOf('partial')).toBe('neutral');
});

test('findings become annotations on the workflow file, severity mapped, in batches of 50', () => {
  const findings = [finding(0, 'error'), finding(1, 'warning'), finding(2, 'info')];
  const annotations = annotationsOf(findings, '.github/workflows/pr-env.yml');
  expect(annotations.map((a) => a.annotation_level)).toEqual(['failure', 'warning', 'notice']);
  expect(annotations[0]).toMatchObject({
    path: '.github/workflows/pr-env.yml',
    start_line: 1,
    end_line: 1,
    title: 'HelmLeftover: ConfigMap ns/cm-0',
    message:
      'HelmLeftover ConfigMap ns/cm-0: ConfigMap ns/cm-0 belongs to release ns/gone, which does not exist',
  });
  expect(annotations[0]!.raw_details).toContain('kubectl delete configmap cm-0 -n ns');
  const many = Array.from({ length: 120 }, (_, i) => i);
  expect(batches(many, 50).map((b) => b.length)).toEqual([50, 50, 20]);
  expect(batches(many, 50).flat()).toEqual(many);
  expect(batches([], 50)).toEqual([]);
});

test('an annotation shows the bidi, zero-width and line-break characters of cluster text as escapes', () => {
  const name = 'cm\u202eevil\u200b\nverdict: clean';
  const hostile = {
    ...finding(0, 'error'),
    object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns\u2066', name },
    message: `claims release x\u2028y\ufeff`,
    evidence: [`meta.helm.sh/release-name: x\r\n\u061cz`],
  } as Finding;
  const [a] = annotationsOf([hostile], '.github/workflows/pr-env.yml');
  expect(a!.title).toBe('HelmLeftover: ConfigMap ns\\u2066/cm\\u202eevil\\u200b\\nverdict: clean');
  expect(a!.message).toContain('claims release x\\u2028y\\ufeff');
  expect(a!.raw_details!.split('\n')[0]).toBe('meta.helm.sh/release-name: x\\r\\n\\u061cz');
  for (const text of [a!.title, a!.message, a!.raw_details])
    expect(text).not.toMatch(/[\r\u2028\u061c\u200b\u202e\u2066\ufeff]/);
});

test('texts are cut to the byte limit without splitting a character', () => {
  expect(cutText('abc', 10)).toBe('abc');
  const cut = cutText('é'.repeat(100), 11);
  expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(11);
  expect(cut).toBe('éééé…');
});

test('the check run output names the verdict and counts, and its summary fits 65535 characters', () => {
  const report = {
    schemaVersion: 1,
    tool: 'kube-sweep',
    mode: 'scan',
    verdict: 'leftovers',
    cluster: { server: '', version: '', context: '' },
    findings: [finding(0, 'error'), finding(1, 'warning')],
    failing: ['HelmLeftover:v1/ConfigMap/ns/cm-0'],
    warnings: [],
  } as Report;
  const output = checkRunOutput(report, `## x\n\n${'y'.repeat(70_000)}\n\n## z`);
  expect(output.title).toBe('kube-sweep scan: leftovers found; 2 finding(s), 1 over fail-on');
  expect(output.summary.length).toBeLessThanOrEqual(65535);
  expect(output.summary).toMatch(/^## x\n\n> ✂️ Cut to stay under GitHub's 65535-character limit/);
});
