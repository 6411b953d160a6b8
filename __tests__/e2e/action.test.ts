/**
 * The bundled action (dist/) run as a GitHub runner runs it: `node dist/index.js` with INPUT_*
 * variables and the GITHUB_STEP_SUMMARY / GITHUB_OUTPUT / GITHUB_STATE files, then
 * `node dist/post/index.js` with the saved state as STATE_* variables.
 */
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import type { ApiClient } from '../../src/cluster/api-client.js';
import {
  adminApiForSuite,
  clusterEnv,
  deleteIfPresent,
  getOrUndefined,
  repoRoot,
  uniqueName,
} from '../integration/support/cluster.js';
import { fileCommands, runStep, runnerFiles } from './support/runner.js';
import { installOperatorAndApp } from '../integration/support/widgets.js';
import { recorderIds, runnerEnv, startGitHubRecorder } from '../integration/support/github-recorder.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

test('teardown through node dist/index.js: clean verdict, summary, outputs and JSON report', async () => {
  const id = uniqueName('e2e');
  const env = {
    group: `${id}.kube-sweep.test`,
    operatorNs: `${id}-operator`,
    appNs: `${id}-app`,
    finalizer: false,
  };
  await installOperatorAndApp(api, env);
  try {
    const files = runnerFiles();
    const step = await runStep('dist/index.js', {
      ...files,
      INPUT_MODE: 'teardown',
      INPUT_NAMESPACES: `${id}-*`,
      INPUT_KUBECONFIG: Buffer.from(readFileSync(clusterEnv().kubeconfig)).toString('base64'),
      INPUT_HELM: clusterEnv().helm4,
      'INPUT_STAGE-TIMEOUT': '60s',
      RUNNER_DEBUG: '1',
    });
    expect(step.exitCode).toBe(0);
    // The step ran in the relaunched process, with the young-generation cap (src/util/relaunch.ts).
    expect(String(step.stdout)).toMatch(/::debug::node v24\.\S+ --max-semi-space-size=8/);
    const outputs = fileCommands(files.GITHUB_OUTPUT);
    expect(outputs).toMatchObject({
      verdict: 'clean',
      'releases-uninstalled': '2',
      blockers: '0',
      'stuck-namespaces': '0',
    });
    const report = JSON.parse(readFileSync(outputs['report-path']!, 'utf8'));
    expect(
      report.teardown.stages.map((s: { releases: { release: string }[] }) =>
        s.releases.map((r) => r.release),
      ),
    ).toEqual([[`${env.appNs}/app`], [`${env.operatorNs}/operator`]]);
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('## ✅ kube-sweep: clean');
    expect(summary).toContain(
      `| 2 | \`${env.operatorNs}/operator\` | removed with its namespace (no delete hooks) |`,
    );
    // Log groups, as the runner folds them.
    expect(String(step.stdout)).toMatch(/::group::Stage 1\/2: .*app/);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${env.appNs}`)).toBeUndefined();
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${env.appNs}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${env.operatorNs}`);
  }
});

test('bad input fails the step with the input named, and nothing is touched', async () => {
  const files = runnerFiles();
  const step = await runStep('dist/index.js', {
    ...files,
    INPUT_MODE: 'teardown',
    INPUT_NAMESPACES: 'pr-*',
    INPUT_KUBECONFIG: clusterEnv().kubeconfig,
    'INPUT_STAGE-TIMEOUT': 'forever',
  });
  expect(step.exitCode).toBe(1);
  expect(String(step.stdout)).toContain(
    "::error::input 'stage-timeout' is 'forever', which is not a positive duration; write it like 90s, 5m or 1h30m",
  );
  expect(fileCommands(files.GITHUB_OUTPUT).verdict).toBe('error');
});

test('cluster: kind with the stand-in kind: the post step deletes the cluster the main step created', async () => {
  const files = runnerFiles();
  const kindEnv = {
    PATH: [join(repoRoot, 'test/kind-stand-in'), process.env.PATH].join(delimiter),
    KIND_STANDIN_LOG: join(files.RUNNER_TEMP, 'kind.log'),
    KIND_STANDIN_STATE: join(files.RUNNER_TEMP, 'clusters'),
    KIND_STANDIN_KUBECONFIG: clusterEnv().kubeconfig,
  };
  const main = await runStep('dist/index.js', {
    ...files,
    ...kindEnv,
    INPUT_MODE: 'inventory',
    INPUT_CLUSTER: 'kind',
    'INPUT_KIND-CLUSTER-NAME': 'e2e-kind',
  });
  expect(main.exitCode).toBe(0);
  const state = fileCommands(files.GITHUB_STATE);
  expect(state).toMatchObject({ 'kind-cluster-name': 'e2e-kind', 'kind-cluster-created': 'true' });
  const stateEnv = Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v]));
  const post = await runStep('dist/post/index.js', { ...files, ...kindEnv, ...stateEnv });
  expect(post.exitCode).toBe(0);
  expect(String(post.stdout)).toContain("deleted kind cluster 'e2e-kind'");
  expect(readFileSync(kindEnv.KIND_STANDIN_LOG, 'utf8').trim().split('\n')).toEqual([
    'get clusters',
    'create cluster --name e2e-kind --wait 60s',
    'get kubeconfig --name e2e-kind',
    'delete cluster --name e2e-kind',
  ]);
});

test('no credential from the kubeconfig reaches the log, the summary, the outputs or the JSON report', async () => {
  const kubeconfig = readFileSync(clusterEnv().kubeconfig, 'utf8');
  const secrets: string[] = [];
  for (const key of ['client-certificate-data', 'client-key-data']) {
    const b64 = new RegExp(`${key}: (\\S+)`).exec(kubeconfig)![1]!;
    secrets.push(b64);
    const pem = Buffer.from(b64, 'base64').toString('utf8');
    secrets.push(...pem.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----')));
  }
  expect(secrets.length).toBeGreaterThan(4);
  const files = runnerFiles();
  const step = await runStep('dist/index.js', {
    ...files,
    INPUT_MODE: 'scan',
    INPUT_KUBECONFIG: kubeconfig, // inline YAML: the riskiest form
    'INPUT_FAIL-ON': 'never',
  });
  // The runner consumes ::add-mask:: commands (they register the secrets) and never shows them.
  const log = `${String(step.stdout)}\n${String(step.stderr)}`
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  const outputs = fileCommands(files.GITHUB_OUTPUT);
  const texts = {
    log,
    summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
    outputs: JSON.stringify(outputs),
    report: readFileSync(outputs['report-path']!, 'utf8'),
  };
  expect(texts.summary).toContain('kube-sweep');
  for (const [where, text] of Object.entries(texts)) {
    for (const secret of secrets) expect([where, text.includes(secret)]).toEqual([where, false]);
  }
  // Every secret was registered for masking.
  const masks = String(step.stdout)
    .split('\n')
    .filter((l) => l.startsWith('::add-mask::'));
  for (const secret of secrets) expect(masks).toContain(`::add-mask::${secret}`);
});

test('pr-comment and check-run through node dist/index.js: a sticky comment and a check run, the token masked', async () => {
  const token = 'ghs_e2eToken0123456789abcdefghijklmnopq';
  const server = await startGitHubRecorder({ commentPages: [[{ id: 5, body: 'first!' }]] });
  try {
    const files = runnerFiles();
    const step = await runStep('dist/index.js', {
      ...files,
      ...runnerEnv(server.url, { pullRequest: { number: 12, headSha: 'e2ehead' } }),
      INPUT_MODE: 'inventory',
      INPUT_KUBECONFIG: clusterEnv().kubeconfig,
      'INPUT_PR-COMMENT': 'true',
      'INPUT_CHECK-RUN': 'true',
      'INPUT_GITHUB-TOKEN': token,
    });
    expect(step.exitCode).toBe(0);
    expect(server.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
      ['GET', '/repos/acme/shop/issues/12/comments?per_page=100', `token ${token}`],
      ['POST', '/repos/acme/shop/issues/12/comments', `token ${token}`],
      ['POST', '/repos/acme/shop/check-runs', `token ${token}`],
    ]);
    const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
    // The comment is the job summary but for its cluster line: the API server and the context
    // are not posted through the API unless publish-server says so.
    expect((server.requests[1]!.body as { body: string }).body).toBe(
      `<!-- kube-sweep:summary PR environment/teardown/sweep -->\n${summary.replace(
        /^Cluster `[^`]+` \((Kubernetes [^,]+), context `[^`]+`\), mode (`\w+`)\.$/m,
        '$1, mode $2 (the API server and context are not published here: publish-server).',
      )}`,
    );
    expect(server.requests[2]!.body).toMatchObject({ head_sha: 'e2ehead', status: 'completed' });
    expect(String(step.stdout)).toContain(`::add-mask::${token}`);
    const log = `${String(step.stdout)}\n${String(step.stderr)}`
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    expect(log).not.toContain(token);
    const report = JSON.parse(readFileSync(fileCommands(files.GITHUB_OUTPUT)['report-path']!, 'utf8'));
    expect(report.github).toEqual({
      prComment: { status: 'created', url: `${server.url}/comment/${recorderIds.createdCommentId}` },
      checkRun: { status: 'created', url: `${server.url}/check/${recorderIds.checkRunId}` },
    });
  } finally {
    await server.close();
  }
});

test('two kube-sweep steps in one job share one RUNNER_TEMP, as on a runner: each report-path output names its own report', async () => {
  const job = runnerFiles(); // one RUNNER_TEMP for the job; each step gets its own output files
  const stepFiles = () => {
    const own = runnerFiles();
    return { ...own, RUNNER_TEMP: job.RUNNER_TEMP };
  };
  const steps: Record<string, string>[] = [
    { GITHUB_ACTION: 'inventory', INPUT_MODE: 'inventory' },
    { GITHUB_ACTION: 'plan', INPUT_MODE: 'plan', INPUT_NAMESPACES: 'kube-sweep-none-*' },
    // The same GITHUB_ACTION again (a runner never gives one twice; the counter keeps them apart anyway).
    { GITHUB_ACTION: 'plan', INPUT_MODE: 'inventory' },
    // No GITHUB_ACTION at all (outside a runner).
    { GITHUB_ACTION: '', INPUT_MODE: 'plan', INPUT_NAMESPACES: 'kube-sweep-none-*' },
  ];
  const seen: { verdict: string; path: string }[] = [];
  for (const vars of steps) {
    const files = stepFiles();
    const step = await runStep('dist/index.js', {
      ...files,
      ...vars,
      INPUT_KUBECONFIG: clusterEnv().kubeconfig,
    });
    expect(step.exitCode).toBe(0);
    const outputs = fileCommands(files.GITHUB_OUTPUT);
    seen.push({ verdict: outputs.verdict!, path: outputs['report-path']! });
  }
  expect(seen).toEqual([
    { verdict: 'complete', path: join(job.RUNNER_TEMP, 'kube-sweep-report-inventory.json') },
    { verdict: 'planned', path: join(job.RUNNER_TEMP, 'kube-sweep-report-plan.json') },
    { verdict: 'complete', path: join(job.RUNNER_TEMP, 'kube-sweep-report-plan-2.json') },
    { verdict: 'planned', path: join(job.RUNNER_TEMP, 'kube-sweep-report.json') },
  ]);
  // Read after all four ran: no step overwrote another's report.
  for (const { verdict, path } of seen) expect(JSON.parse(readFileSync(path, 'utf8')).verdict).toBe(verdict);
});

test('a GitHub API that accepts and never answers: the step logs the timeout, warns, and ends with the sweep verdict', async () => {
  const sockets = new Set<Socket>();
  const silent = createServer(() => {}); // reads each request, never answers
  silent.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  try {
    const files = runnerFiles();
    const step = await runStep('dist/index.js', {
      ...files,
      ...runnerEnv(url, { pullRequest: { number: 13, headSha: 'e2ehead' } }),
      INPUT_MODE: 'inventory',
      INPUT_KUBECONFIG: clusterEnv().kubeconfig,
      'INPUT_PR-COMMENT': 'true',
      'INPUT_CHECK-RUN': 'true',
      'INPUT_GITHUB-TOKEN': 'ghs_e2eSilentToken0123456789abcdefghijkl',
      'INPUT_REQUEST-TIMEOUT': '2s',
    });
    expect(step.exitCode).toBe(0);
    const stdout = String(step.stdout);
    expect(stdout).toContain(
      `publishing to GitHub (${url}): each request at most 2 s, all of it at most 8 s`,
    );
    expect(stdout).toContain(
      '::warning::could not write the pull request comment: GET /repos/acme/shop/issues/13/comments: no answer from GitHub within 2 s',
    );
    expect(stdout).toContain(
      '::warning::could not write the check run: POST /repos/acme/shop/check-runs: no answer from GitHub within 2 s',
    );
    const outputs = fileCommands(files.GITHUB_OUTPUT);
    expect(outputs.verdict).toBe('complete');
    expect(JSON.parse(readFileSync(outputs['report-path']!, 'utf8')).github).toEqual({
      prComment: { status: 'failed', message: expect.stringContaining('no answer from GitHub within 2 s') },
      checkRun: { status: 'failed', message: expect.stringContaining('no answer from GitHub within 2 s') },
    });
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

/** A `node` older than 24 on this machine (Debian's nodejs), or undefined. */
function olderNode(): string | undefined {
  const candidates = [
    '/usr/bin/node',
    '/usr/local/bin/node',
    ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'node')),
  ];
  for (const node of candidates) {
    const r = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (r.status === 0 && Number(r.stdout.split('.')[0]) < 24) return node;
  }
  return undefined;
}

test('on a Node older than 24 the main step still writes verdict=error, and the post step says nothing', async () => {
  const node = olderNode();
  // This machine has Debian's Node 20; the test needs one older than 24 to run the bundle on.
  expect(node).toBeDefined();
  const files = runnerFiles();
  const main = await execa(node!, [join(repoRoot, 'dist/index.js')], {
    env: { ...files, INPUT_MODE: 'teardown', INPUT_NAMESPACES: 'pr-*' },
    extendEnv: true,
    reject: false,
  });
  expect(main.exitCode).toBe(1);
  expect(String(main.stdout)).toMatch(/^::error::kube-sweep needs Node 24 or newer, and this is Node \d+\./);
  expect(fileCommands(files.GITHUB_OUTPUT)).toEqual({ verdict: 'error' });
  expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toMatch(
    /^## ❌ kube-sweep: error\n\nkube-sweep needs Node 24/,
  );
  // The post step: no kind cluster was created, so nothing to warn about.
  const post = await execa(node!, [join(repoRoot, 'dist/post/index.js')], {
    env: { ...files },
    extendEnv: true,
    reject: false,
  });
  expect([post.exitCode, String(post.stdout), String(post.stderr)]).toEqual([0, '', '']);
  // Had the state named a created cluster, the post step would say it is left.
  const left = await execa(node!, [join(repoRoot, 'dist/post/index.js')], {
    env: { ...files, 'STATE_kind-cluster-created': 'true', 'STATE_kind-cluster-name': 'pr-1' },
    extendEnv: true,
    reject: false,
  });
  expect(String(left.stdout)).toMatch(
    /^::warning::post step: kind cluster 'pr-1' is left: kube-sweep needs Node 24/,
  );
});
