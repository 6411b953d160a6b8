/**
 * A hostile cluster: what someone who may write in one namespace (or create a binding) can plant
 * for the engineer who runs kube-sweep. Seeded for real: annotations that carry workflow
 * commands, forged Helm release Secrets (not base64, a gzip bomb, a release name with a line
 * break and `::`, a manifest naming a kube-system object), a ClusterRoleBinding whose User
 * subject is `system:serviceaccount:<gone>:x'; touch pwned; echo '`. The bundled action
 * (`node dist/index.js`, as the runner runs it) scans, plans, dry-runs and tears down:
 * - every run completes with a report (no crash);
 * - no line of its stdout or stderr starts a workflow command that the cluster wrote;
 * - every command in the summary, run in bash with recording kubectl/helm, runs only
 *   kubectl/helm with the intended arguments (the canary file never appears);
 * - the audit log shows no mutating request from kube-sweep or its helm outside the scope
 *   (none at all for scan, plan and dry run).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { shellCommand } from '../../src/util/shell-quote.js';
import { auditMark, toolMutationsSince } from '../integration/support/audit.js';
import {
  adminApiForSuite,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../integration/support/cluster.js';
import { chart, helm4 } from '../integration/support/widgets.js';
import { recordOf, releaseData, releaseSecret } from '../integration/support/release-records.js';
import { fileCommands, runStep, runnerFiles } from './support/runner.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

const canary = 'pwned';
const hostileSubject = (goneNs: string) => `system:serviceaccount:${goneNs}:x'; touch ${canary}; echo '`;

/**
 * Seeds namespace `ns`: a real Helm release, a ConfigMap whose annotations carry workflow
 * commands (and name a gone release with one), forged release records, and a
 * ClusterRoleBinding with the hostile User subject. With `victim`, one more forged record
 * whose manifest names ConfigMap kube-system/<victim>, which the test creates.
 */
async function seed(ns: string, binding: string, victim?: string): Promise<void> {
  await createNamespace(api, ns);
  const r = await helm4(['install', 'web', chart('sample'), '-n', ns]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  const post = (path: string, body: unknown) => api.request({ method: 'POST', path, body });
  await post(`/api/v1/namespaces/${ns}/configmaps`, {
    metadata: {
      name: 'hostile-annotations',
      annotations: {
        'example.com/note':
          'x\n::error::injected-annotation\r\n##[error]injected-legacy %0A::warning::injected-pct',
        'meta.helm.sh/release-name': 'gone\n::error::injected-release-annotation',
        'meta.helm.sh/release-namespace': ns,
      },
    },
    data: { k: 'v' },
  });
  const valid = { namespace: ns, version: 1, info: { status: 'deployed' }, manifest: '' };
  const forged = [
    releaseSecret(ns, 'forged-base64', Buffer.from('%%% not base64 of gzip %%%').toString('base64')),
    // 40 MiB of zeros: about 40 KiB gzipped, past the 32 MiB bound.
    releaseSecret(ns, 'forged-bomb', releaseData(gzipSync(Buffer.alloc(40 * 1024 * 1024)))),
    releaseSecret(ns, 'forged-name', recordOf({ ...valid, name: 'x\n::error::injected-release-name' })),
    ...(victim
      ? [
          releaseSecret(
            ns,
            'forged-system',
            recordOf({
              ...valid,
              name: 'forged-system',
              manifest: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${victim}\n  namespace: kube-system\n`,
            }),
          ),
        ]
      : []),
  ];
  for (const s of forged) await post(`/api/v1/namespaces/${ns}/secrets`, s);
  await post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: binding },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: hostileSubject(`${ns}-gone`) },
      { kind: 'ServiceAccount', name: 'default', namespace: 'default' },
    ],
  });
}

/** Runs the bundled action with `inputs` (INPUT_* variables); its log, summary, report. */
async function runBundled(inputs: Record<string, string>) {
  const files = runnerFiles();
  const env: Record<string, string> = {
    ...files,
    INPUT_KUBECONFIG: clusterEnv().kubeconfig,
    INPUT_HELM: clusterEnv().helm4,
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const step = await runStep('dist/index.js', env);
  const outputs = fileCommands(files.GITHUB_OUTPUT);
  const log = `${String(step.stdout)}\n${String(step.stderr)}`;
  return {
    exitCode: step.exitCode,
    log,
    summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
    report: JSON.parse(readFileSync(outputs['report-path']!, 'utf8')) as {
      verdict: string;
      findings?: { code: string; remediation: { commands: string[] } }[];
      warnings?: string[];
      plan?: { refusals?: string[] };
    },
  };
}

/** Lines of a log that would start a workflow command the cluster planted (the runner trims). */
function injectedCommands(log: string): string[] {
  return log
    .split(/\r\n|\r|\n/)
    .filter((line) => /^\s*::[^:]*::injected/.test(line) || line.includes('##[error]injected'));
}

/** Runs every line of the summary's code blocks in bash, with recording kubectl, helm and etcdctl. */
function runSummaryCommands(summary: string): { lines: string[]; calls: string[][]; canary: boolean } {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of summary.split('\n')) {
    if (fence === undefined) fence = /^(`{3,})sh$/.exec(line)?.[1];
    else if (line === fence) fence = undefined;
    else if (!line.startsWith('#')) lines.push(line);
  }
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-hostile-'));
  const bin = join(dir, 'bin');
  const work = join(dir, 'work');
  mkdirSync(bin);
  mkdirSync(work);
  const record = join(dir, 'argv');
  writeFileSync(record, '');
  for (const tool of ['kubectl', 'helm', 'etcdctl']) {
    writeFileSync(
      join(bin, tool),
      `#!/bin/sh\nprintf '%s\\0' "${tool}" "$@" >> "$RECORD"\nprintf '\\n' >> "$RECORD"\n`,
    );
    chmodSync(join(bin, tool), 0o755);
  }
  execFileSync('bash', ['-c', lines.join('\n')], {
    cwd: work,
    env: { PATH: `${bin}:/usr/bin:/bin`, RECORD: record },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const calls = readFileSync(record, 'utf8')
    .split('\0\n')
    .filter((c) => c.length > 0)
    .map((c) => c.split('\0'));
  return { lines, calls, canary: existsSync(join(work, canary)) };
}

test('scan, plan and dry run of a hostile namespace complete, change nothing, inject nothing', async () => {
  const ns = uniqueName('hostile');
  const binding = `${ns}-binding`;
  const victim = `${ns}-victim`;
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces/kube-system/configmaps',
    body: { metadata: { name: victim }, data: { k: 'v' } },
  });
  try {
    await seed(ns, binding, victim);
    const mark = auditMark();
    const since = new Date();
    const runs = [
      await runBundled({ mode: 'scan', namespaces: ns, 'scan-scope': 'cluster', 'fail-on': 'never' }),
      await runBundled({ mode: 'plan', namespaces: ns }),
      await runBundled({ mode: 'teardown', namespaces: ns, 'dry-run': 'true' }),
    ];
    for (const [i, run] of runs.entries()) {
      expect([i, run.log.includes('kube-sweep crashed')]).toEqual([i, false]);
      // The scan completes; the plan and the dry run refuse the forged release whose manifest
      // names an object in kube-system (a protected namespace: issue 21, a surprise in scope is a
      // refusal), naming that object, and send no change.
      if (i === 0) expect([i, run.report.verdict]).not.toEqual([i, 'error']);
      else {
        expect([i, run.report.verdict]).toEqual([i, 'error']);
        expect([i, JSON.stringify(run.report.plan?.refusals ?? [])]).toEqual([
          i,
          expect.stringContaining(victim),
        ]);
      }
      expect([i, injectedCommands(run.log)]).toEqual([i, []]);
      const { lines, calls, canary: ran } = runSummaryCommands(run.summary);
      expect([i, ran]).toEqual([i, false]);
      expect(calls.map((argv) => shellCommand(argv))).toEqual(lines);
    }
    // The scan printed the patch that removes the dangling subject, with its name as data.
    const [scan, plan, dryRun] = runs;
    const patch = runSummaryCommands(scan!.summary).calls.find(
      (argv) => argv[1] === 'patch' && argv.includes(binding),
    );
    expect(patch?.slice(0, 4)).toEqual([
      'kubectl',
      'patch',
      'clusterrolebindings.rbac.authorization.k8s.io',
      binding,
    ]);
    expect(JSON.stringify(JSON.parse(patch!.at(-1)!))).toContain(
      JSON.stringify(hostileSubject(`${ns}-gone`)),
    );
    // The forged records that are not releases are findings; the one that is (forged-system)
    // is planned like any release: its kube-system object is named before any teardown.
    // The plan and the dry run are refused (the kube-system object), so their reports carry no
    // findings: the three invalid records are named among the run's warnings instead.
    for (const run of [plan!, dryRun!])
      expect((run.report.warnings ?? []).filter((w) => w.includes('HelmReleaseRecordInvalid'))).toHaveLength(
        3,
      );
    expect(dryRun!.summary).toContain(victim);
    expect(toolMutationsSince(mark, since)).toEqual([]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/kube-system/configmaps/${victim}`)).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${binding}`);
    await deleteIfPresent(api, `/api/v1/namespaces/kube-system/configmaps/${victim}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a teardown of a hostile scoped namespace completes and changes nothing outside it', async () => {
  // Without the record whose manifest names a kube-system object: what a teardown does with
  // a release's objects outside the scope is the protected-namespace work (issue 21, scope).
  const ns = uniqueName('hostile');
  const binding = `${ns}-binding`;
  try {
    await seed(ns, binding);
    const mark = auditMark();
    const since = new Date();
    const run = await runBundled({
      mode: 'teardown',
      namespaces: ns,
      'stage-timeout': '60s',
      'fail-on': 'never',
    });
    expect(run.log.includes('kube-sweep crashed')).toBe(false);
    expect(run.report.verdict).not.toBe('error');
    expect(injectedCommands(run.log)).toEqual([]);
    const { lines, calls, canary: ran } = runSummaryCommands(run.summary);
    expect(ran).toBe(false);
    expect(calls.map((argv) => shellCommand(argv))).toEqual(lines);
    await waitGone(api, `/api/v1/namespaces/${ns}`, 120_000);
    const outside = toolMutationsSince(mark, since).filter(
      (e) =>
        /^\/apis?\/(?:[^/]+\/)?[^/]+\/namespaces\/([^/?]+)[/?]/.exec(e.requestURI)?.[1] !== ns &&
        e.requestURI !== `/api/v1/namespaces/${ns}`,
    );
    expect(outside.map((e) => `${e.verb} ${e.requestURI}`)).toEqual([]);
    expect(
      await getOrUndefined(api, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${binding}`),
    ).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${binding}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
