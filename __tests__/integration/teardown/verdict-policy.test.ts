/**
 * `fail-on` and `ignore` decide a teardown's verdict for every finding, the objects it left
 * behind included: a teardown that leaves only Helm hook objects (the hookcr chart: a
 * post-install ClusterRole and ConfigMap Helm never deletes) fails by default, and passes with
 * `fail-on: never` or with `ignore` of their `HelmLeftover` findings, with a headline that says
 * what passed (never "clean" above findings). Built for real with Helm 4 on the local control plane.
 */
import { main } from '../../../src/cli/index.js';
import { runAction } from '../support/action.js';
import { adminApiForSuite, clusterEnv, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';

const suiteApi = adminApiForSuite();

/** Installs the hookcr release `hooks` in a new namespace, runs `fn`, then removes what it left. */
async function withHookRelease(fn: (ns: string) => Promise<void>) {
  const api = suiteApi();
  const ns = uniqueName('vp-hook');
  const r = await helm4(['install', 'hooks', chart('hookcr'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    await fn(ns);
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-hook-role`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}

test('a hook-only teardown fails by default: its leftovers are root causes to act on, not notes', async () => {
  expect.hasAssertions();
  await withHookRelease(async (ns) => {
    const { report, summary, failures } = await runAction({ mode: 'teardown', namespaces: ns });
    expect(report.verdict).toBe('leftovers');
    expect(failures).toHaveLength(1);
    expect(report.failing!.length).toBeGreaterThan(0);
    expect(summary).toContain('## ❌ kube-sweep: leftovers found');
    expect(summary).not.toContain('Nothing to act on');
    expect(summary).not.toContain('No finding crosses');
  });
});

test('fail-on: never passes a hook-only teardown, and the headline says what passed', async () => {
  expect.hasAssertions();
  await withHookRelease(async (ns) => {
    const { report, summary, failures } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      'fail-on': 'never',
    });
    expect(report.verdict).toBe('clean');
    expect(failures).toEqual([]);
    expect(report.failing).toEqual([]);
    expect(report.findings!.map((f) => f.code)).toContain('HelmLeftover');
    expect(summary).toMatch(/^## ✅ kube-sweep: passed: \d+ findings? below the fail-on policy$/m);
    expect(summary).not.toContain('kube-sweep: clean');
  });
});

test('ignore of HelmLeftover passes a hook-only teardown (CLI: exit 0, the headline names what was suppressed)', async () => {
  expect.hasAssertions();
  await withHookRelease(async (ns) => {
    let out = '';
    let err = '';
    const code = await main(
      [
        'teardown',
        '--namespaces',
        ns,
        '--kubeconfig',
        clusterEnv().kubeconfig,
        '--helm',
        clusterEnv().helm4,
        '--ignore',
        '- {code: HelmLeftover}',
      ],
      (s) => (out += s),
      (s) => (err += s),
    );
    expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
    expect(out.split('\n')[0]).toMatch(/^verdict: passed \(\d+ suppressed by --ignore\)$/);
  });
});

test('a tool error is never passed: fail-on: never still fails a teardown whose helm cannot run', async () => {
  expect.hasAssertions();
  await withHookRelease(async (ns) => {
    const { report } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      'fail-on': 'never',
      helm: '/nonexistent/helm',
    });
    expect(report.verdict).toBe('error');
  });
});
