/**
 * publishToGitHub against a local server that records every REST call (GitHub cannot be
 * reached from the tests): the exact requests for the sticky comment and the check run,
 * pagination, 403 and other errors, and the token kept out of the logs.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Finding } from '../../../../src/rules/findings.js';
import { commentMarker } from '../../../../src/report/github/pr-comment.js';
import { publishToGitHub, type PublishPorts } from '../../../../src/report/github/publish.js';
import type { Report } from '../../../../src/report/report.js';
import {
  recorderIds,
  runnerEnv,
  startGitHubRecorder,
  type GitHubRecorder,
  type RecorderOptions,
} from '../../support/github-recorder.js';

const token = 'ghs_unitTestToken0123456789abcdefABCDEF';
const marker = commentMarker('PR environment/teardown/sweep');

function report(findings: number): Report {
  return {
    schemaVersion: 1,
    tool: 'kube-sweep',
    mode: 'scan',
    verdict: findings ? 'leftovers' : 'clean',
    cluster: { server: 'https://127.0.0.1:6443', version: 'v1.37.2', context: 'ci' },
    findings: Array.from(
      { length: findings },
      (_, i) =>
        ({
          key: `HelmLeftover:v1/ConfigMap/ns/cm-${i}`,
          code: 'HelmLeftover',
          rule: 'helm-leftover',
          severity: 'warning',
          object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: `cm-${i}` },
          message: `left by release ns/gone`,
          evidence: [],
          remediation: { summary: 'delete it', commands: [] },
          scope: 'environment',
        }) as Finding,
    ),
    failing: [],
    warnings: [],
  };
}

const servers: GitHubRecorder[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function publish(
  options: RecorderOptions,
  what: { prComment?: boolean; checkRun?: boolean },
  env: (url: string) => Record<string, string>,
  findings = 0,
) {
  const recorder = await startGitHubRecorder(options);
  servers.push(recorder);
  const log: string[] = [];
  const secrets: string[] = [];
  const ports: PublishPorts = {
    env: env(recorder.url),
    info: (l) => log.push(`info: ${l}`),
    notice: (l) => log.push(`notice: ${l}`),
    warning: (l) => log.push(`warning: ${l}`),
    setSecret: (s) => secrets.push(s),
  };
  const result = await publishToGitHub(
    { prComment: what.prComment ?? false, checkRun: what.checkRun ?? false, token },
    report(findings),
    '## ✅ kube-sweep: clean\n',
    ports,
  );
  return { result, log, secrets, requests: recorder.requests, url: recorder.url };
}

const pr = (url: string) => runnerEnv(url, { pullRequest: { number: 7, headSha: 'headsha7' } });
const commentsPath = '/repos/acme/shop/issues/7/comments';

test('the marked comment on page 2 is found through the Link header and updated (PATCH)', async () => {
  const { result, log, requests, secrets, url } = await publish(
    {
      commentPages: [
        [
          { id: 1, body: 'LGTM' },
          { id: 2, body: '<!-- kube-sweep:summary other/job/step -->\nanother step' },
        ],
        [{ id: 3, body: `${marker}\nold summary` }],
      ],
    },
    { prComment: true },
    pr,
  );
  expect(requests.map((r) => [r.method, r.path])).toEqual([
    ['GET', `${commentsPath}?per_page=100`],
    ['GET', `${commentsPath}?per_page=100&page=2`],
    ['PATCH', '/repos/acme/shop/issues/comments/3'],
  ]);
  expect(requests[2]!.body).toEqual({ body: `${marker}\n## ✅ kube-sweep: clean\n` });
  expect(result.prComment).toEqual({ status: 'updated', url: `${url}/comment/3` });
  for (const r of requests) expect(r.authorization).toBe(`token ${token}`);
  expect(secrets).toEqual([token]);
  expect(log.join('\n')).not.toContain(token);
});

test('without a marked comment a new one is created (POST), and only once per page walk', async () => {
  const { result, requests, url } = await publish(
    { commentPages: [[{ id: 1, body: 'LGTM' }], [{ id: 2, body: 'nit' }]] },
    { prComment: true },
    pr,
  );
  expect(requests.map((r) => [r.method, r.path])).toEqual([
    ['GET', `${commentsPath}?per_page=100`],
    ['GET', `${commentsPath}?per_page=100&page=2`],
    ['POST', commentsPath],
  ]);
  expect(requests[2]!.body).toEqual({ body: `${marker}\n## ✅ kube-sweep: clean\n` });
  expect(result.prComment).toEqual({
    status: 'created',
    url: `${url}/comment/${recorderIds.createdCommentId}`,
  });
});

test("a marked comment someone else wrote is never taken: kube-sweep's own is found by author, or a new one is made", async () => {
  // A tester's comment by user `attacker` that held the marker got PATCHed with the summary.
  const planted = { id: 99, body: `${marker}\nmine now`, user: { login: 'attacker', type: 'User' as const } };
  const quoted = {
    id: 98,
    body: `> ${marker}`,
    user: { login: 'github-actions[bot]', type: 'Bot' as const },
  };
  const refused = await publish({ commentPages: [[planted, quoted]] }, { prComment: true }, pr);
  expect(refused.requests.map((r) => [r.method, r.path])).toEqual([
    ['GET', `${commentsPath}?per_page=100`],
    ['GET', '/user'],
    ['POST', commentsPath],
  ]);
  expect(refused.result.prComment?.status).toBe('created');
  // With a personal token, the token's user wrote kube-sweep's comment: that one is updated.
  const own = { ...planted, id: 42, user: { login: 'ci-user', type: 'User' as const } };
  const updated = await publish(
    { commentPages: [[planted, own]], authenticatedUser: 'ci-user' },
    { prComment: true },
    pr,
  );
  expect(updated.requests.map((r) => [r.method, r.path]).at(-1)).toEqual([
    'PATCH',
    '/repos/acme/shop/issues/comments/42',
  ]);
});

test('120 findings: the check run is created with 50 annotations, then updated with 50 and 20', async () => {
  const { result, requests, url } = await publish({}, { checkRun: true }, pr, 120);
  expect(requests.map((r) => [r.method, r.path])).toEqual([
    ['POST', '/repos/acme/shop/check-runs'],
    ['PATCH', `/repos/acme/shop/check-runs/${recorderIds.checkRunId}`],
    ['PATCH', `/repos/acme/shop/check-runs/${recorderIds.checkRunId}`],
  ]);
  const bodies = requests.map(
    (r) => r.body as { output: { title: string; annotations: { title: string; path: string }[] } },
  );
  expect(bodies[0]).toMatchObject({
    name: 'kube-sweep (scan)',
    head_sha: 'headsha7',
    status: 'completed',
    conclusion: 'failure',
    details_url: 'https://github.example/acme/shop/actions/runs/1234',
    output: { title: 'kube-sweep scan: leftovers found; 120 finding(s), 0 over fail-on' },
  });
  expect(bodies.map((b) => b.output.annotations.length)).toEqual([50, 50, 20]);
  // Every finding once, in order, on the workflow file.
  expect(bodies.flatMap((b) => b.output.annotations.map((a) => a.title))).toEqual(
    Array.from({ length: 120 }, (_, i) => `HelmLeftover: ConfigMap ns/cm-${i}`),
  );
  expect(new Set(bodies.flatMap((b) => b.output.annotations.map((a) => a.path)))).toEqual(
    new Set(['.github/workflows/pr-env.yml']),
  );
  expect(result.checkRun).toEqual({
    status: 'created',
    url: `${url}/check/${recorderIds.checkRunId}`,
  });
});

test('outside a pull request: a notice and no comment, while the check run goes on GITHUB_SHA', async () => {
  const { result, log, requests } = await publish({}, { prComment: true, checkRun: true }, (url) =>
    runnerEnv(url, { eventName: 'push' }),
  );
  expect(result.prComment).toMatchObject({ status: 'skipped' });
  expect(log).toContain(
    "notice: pr-comment: not a pull request event (GITHUB_EVENT_NAME is 'push'); no comment was written",
  );
  expect(requests.map((r) => [r.method, r.path])).toEqual([['POST', '/repos/acme/shop/check-runs']]);
  expect(requests[0]!.body).toMatchObject({
    head_sha: 'f00dfeed00000000000000000000000000000000',
    conclusion: 'success',
  });
  expect((requests[0]!.body as { output: object }).output).not.toHaveProperty('annotations');
});

test('403 becomes a warning naming the permission to grant, recorded as forbidden', async () => {
  const { result, log } = await publish(
    { forbidden: ['comments', 'checks'] },
    { prComment: true, checkRun: true },
    pr,
  );
  expect(result).toEqual({
    prComment: {
      status: 'forbidden',
      message: '403 Resource not accessible by integration - https://docs.github.com/rest',
    },
    checkRun: {
      status: 'forbidden',
      message: '403 Resource not accessible by integration - https://docs.github.com/rest',
    },
  });
  const warnings = log.filter((l) => l.startsWith('warning: '));
  expect(warnings).toHaveLength(2);
  expect(warnings[0]).toContain('`permissions: pull-requests: write`');
  expect(warnings[1]).toContain('`permissions: checks: write`');
  expect(log.join('\n')).not.toContain(token);
});

test('other errors become warnings and are recorded as failed; nothing throws', async () => {
  const { result, log } = await publish({ broken: ['checks'] }, { prComment: true, checkRun: true }, pr);
  expect(result.prComment).toMatchObject({ status: 'created' });
  expect(result.checkRun).toMatchObject({ status: 'failed' });
  expect(result.checkRun!.message).toMatch(/^500 /);
  expect(log.filter((l) => l.startsWith('warning: '))).toEqual([
    expect.stringMatching(/^warning: could not write the check run: 500 .*verdict is unchanged/),
  ]);
});

test('an unreachable API is a failed publication, not an exception', async () => {
  const closed = await startGitHubRecorder();
  await closed.close(); // nothing listens on its port any more
  const log: string[] = [];
  const result = await publishToGitHub({ prComment: false, checkRun: true, token }, report(0), '## x', {
    env: pr(closed.url),
    info: (l) => log.push(`info: ${l}`),
    notice: (l) => log.push(`notice: ${l}`),
    warning: (l) => log.push(`warning: ${l}`),
    setSecret: () => {},
  });
  expect(result.checkRun).toMatchObject({ status: 'failed' });
  // What happened, not Octokit's placeholder status 500 (GitHub never answered).
  expect(result.checkRun!.message).toBe(
    `POST /repos/acme/shop/check-runs: no answer from GitHub (ECONNREFUSED: connect ECONNREFUSED ${new URL(closed.url).host})`,
  );
  expect(log.filter((l) => l.startsWith('warning: '))).toEqual([
    `warning: could not write the check run: ${result.checkRun!.message} (the sweep's verdict is unchanged)`,
  ]);
  expect(log.join('\n')).not.toContain(token);
});

/** A loopback server that accepts every connection and reads the request, then never answers. */
async function silentServer(): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req) => requests.push(`${req.method} ${req.url}`));
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

test('a GitHub that accepts and never answers: each request times out, logged, and the publication ends', async () => {
  const silent = await silentServer();
  const log: string[] = [];
  try {
    const result = await publishToGitHub(
      { prComment: true, checkRun: true, token, requestTimeoutMs: 700 },
      report(0),
      '## x',
      {
        env: pr(silent.url),
        info: (l) => log.push(`info: ${l}`),
        notice: (l) => log.push(`notice: ${l}`),
        warning: (l) => log.push(`warning: ${l}`),
        setSecret: () => {},
      },
    );
    expect(silent.requests).toEqual([`GET ${commentsPath}?per_page=100`, 'POST /repos/acme/shop/check-runs']);
    expect(result).toEqual({
      prComment: {
        status: 'failed',
        message: `GET ${commentsPath}: no answer from GitHub within 0.7 s (the request timeout; request-timeout sets it)`,
      },
      checkRun: {
        status: 'failed',
        message:
          'POST /repos/acme/shop/check-runs: no answer from GitHub within 0.7 s (the request timeout; request-timeout sets it)',
      },
    });
    expect(log[0]).toBe(
      `info: publishing to GitHub (${silent.url}): each request at most 0.7 s, all of it at most 2.8 s`,
    );
    expect(log.filter((l) => l.startsWith('warning: '))).toHaveLength(2);
  } finally {
    await silent.close();
  }
});

test('a GitHub that answers every page slowly and without end: the publication budget cuts it', async () => {
  const pages: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let base = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page = Number(url.searchParams.get('page') ?? '1');
    pages.push(page);
    url.searchParams.set('page', String(page + 1));
    const timer = setTimeout(() => {
      timers.delete(timer);
      res.writeHead(200, {
        'content-type': 'application/json',
        link: `<${base}${url.pathname}${url.search}>; rel="next"`,
      });
      res.end('[]');
    }, 250);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const log: string[] = [];
  try {
    const result = await publishToGitHub(
      { prComment: true, checkRun: false, token, requestTimeoutMs: 400 },
      report(0),
      '## x',
      {
        env: pr(base),
        info: (l) => log.push(`info: ${l}`),
        notice: (l) => log.push(`notice: ${l}`),
        warning: (l) => log.push(`warning: ${l}`),
        setSecret: () => {},
      },
    );
    expect(result.prComment).toEqual({
      status: 'failed',
      message: expect.stringMatching(
        /^GET \S+: not answered within the publication budget of 1\.6 s \(cut short\)$/,
      ),
    });
    // Each page came within the request timeout; the budget (4 × 400 ms) stopped the walk.
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages.length).toBeLessThanOrEqual(7);
    expect(log).toContainEqual(
      expect.stringMatching(/^warning: could not write the pull request comment: GET .*publication budget/),
    );
  } finally {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
