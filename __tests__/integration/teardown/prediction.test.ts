/**
 * The prediction (teardown/prediction.ts) against the real control plane: on the demo's broken
 * environment (scripts/demo-env.sh broken: the operator uninstalled before the Widgets that
 * carry its finalizer, a hook release, a kept ConfigMap) `mode: plan` names the Widgets that
 * will hang and the hook ClusterRole that will stay; the teardown does not spend its stage
 * budget on the Widgets (known before it started), every object it leaves was predicted, and
 * there is no surprise. Then a leftover nobody predicted (a finalizer added to a release's
 * ConfigMap right after the plan was taken) is reported as a surprise.
 */
import { execa } from 'execa';
import { join } from 'node:path';
import type { Report } from '../../../src/report/report.js';
import { predictedId } from '../../../src/teardown/prediction.js';
import { runAction } from '../support/action.js';
import {
  adminApiForSuite,
  clusterEnv,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import { deleteNamespaceAndWait, removeFinalizers } from '../rules/support/scenario.js';

const suiteApi = adminApiForSuite();
const repoRoot = join(import.meta.dirname, '../../..');

/** Pure: `expected` of the object of that kind and name in the report's prediction. */
const expectedOf = (report: Report, kind: string, name: string) =>
  report.prediction?.objects.find((o) => o.object.kind === kind && o.object.name === name)?.expected;

test("the demo's broken environment: plan names what will hang and stay; the teardown does not wait for it and has no surprise", async () => {
  const api = suiteApi();
  const prefix = uniqueName('pred');
  const env = clusterEnv();
  const group = `${prefix}.kube-sweep.test`;
  await execa('bash', [join(repoRoot, 'scripts/demo-env.sh'), 'broken', prefix], {
    env: { ...process.env, KUBECONFIG: env.kubeconfig, HELM: env.helm4, KUBECTL: env.kubectl },
  });
  const role = `${prefix}-extras-hook-role`;
  try {
    const plan = await runAction({ mode: 'plan', namespaces: `${prefix}-*`, 'stage-timeout': '60s' });
    expect(plan.report.verdict).toBe('planned');
    expect(expectedOf(plan.report, 'Widget', 'w1')).toBe('hangs');
    expect(expectedOf(plan.report, 'Widget', 'w2')).toBe('hangs');
    expect(expectedOf(plan.report, 'ClusterRole', role)).toBe('stays');
    expect(plan.report.prediction!.namespaces).toContainEqual(
      expect.objectContaining({ name: `${prefix}-app`, expected: 'hangs' }),
    );
    const widget = plan.report.prediction!.objects.find((o) => o.object.name === 'w1')!;
    expect(widget.evidence).toContain(`${group}/cleanup`);
    expect(widget.remedy).toMatch(/^before the teardown, bring back the controller/);
    // What will hang and what will stay come first, before the findings and the plan's stages.
    const summary = plan.summary;
    expect(summary.indexOf('### What the teardown will do')).toBeGreaterThan(-1);
    expect(summary.indexOf('### What the teardown will do')).toBeLessThan(summary.indexOf('### Plan'));
    expect(summary).toContain(`| **hang** | \`Widget ${prefix}-app/w1\` |`);
    expect(summary).toContain(`| **stay** | \`ClusterRole ${role}\` |`);

    const { report } = await runAction({
      mode: 'teardown',
      namespaces: `${prefix}-*`,
      'stage-timeout': '60s',
    });
    expect(report.verdict).toBe('leftovers');
    // The Widgets were looked at once, not awaited: the wait says why.
    const skipped = report.teardown!.stages.flatMap((s) => s.waitsSkipped ?? []);
    expect(skipped.map((b) => [b.kind, b.name]).sort()).toEqual([
      ['Widget', 'w1'],
      ['Widget', 'w2'],
    ]);
    for (const b of skipped)
      expect(b.reason).toMatch(/^predicted to hang \(.*\); unchanged since .*: not awaited$/);
    // Their namespace too: looked at, not awaited.
    expect(report.teardown!.namespaces.find((n) => n.name === `${prefix}-app`)).toMatchObject({
      status: 'stuck',
      waitSkipped: expect.stringContaining('Widget w1'),
    });
    // Every object the teardown left was named by the plan (as hanging or staying): no surprise.
    expect(report.surprises).toEqual([]);
    const predicted = new Map(
      plan.report.prediction!.objects.map((o) => [predictedId(o.object), o.expected]),
    );
    const predictedNamespaces = new Map(plan.report.prediction!.namespaces.map((n) => [n.name, n.expected]));
    // (A hook's namespaced object the teardown saw before its namespace went is gone by the scan.)
    for (const l of (report.leftovers ?? []).filter((x) => !x.reason.startsWith('gone'))) {
      if (l.object.kind === 'Namespace')
        expect([l.object.name, predictedNamespaces.get(l.object.name)]).toEqual([l.object.name, 'hangs']);
      else
        expect([l.object.name, predicted.get(predictedId(l.object))]).toEqual([
          l.object.name,
          expect.stringMatching(/^(hangs|stays)$/),
        ]);
    }
  } finally {
    for (const w of ['w1', 'w2'])
      await removeFinalizers(api, `/apis/${group}/v1/namespaces/${prefix}-app/widgets/${w}`).catch(() => {});
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
    await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
    const scratch = `/api/v1/namespaces/${prefix}-scratch/configmaps/settings`;
    await removeFinalizers(api, scratch).catch(() => {});
    for (const ns of ['app', 'operator', 'extras'])
      await deleteNamespaceAndWait(api, `${prefix}-${ns}`, 120_000).catch(() => {});
  }
});

test('a leftover nobody predicted (a finalizer added after the plan was taken) is a surprise', async () => {
  const api = suiteApi();
  const ns = uniqueName('pred-late');
  const r = await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  const path = `/api/v1/namespaces/${ns}/configmaps/web-config`;
  try {
    const { report, summary } = await runAction(
      { mode: 'teardown', namespaces: ns, 'stage-timeout': '5s' },
      {},
      undefined,
      async (title) => {
        // Right after the plan (and its prediction) was taken, before any delete.
        if (title !== 'Planning the teardown') return;
        await api.request({
          method: 'PATCH',
          path,
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: ['example.com/late'] } },
        });
      },
    );
    expect(expectedOf(report, 'ConfigMap', 'web-config')).toBe('goes');
    expect(report.surprises).toContainEqual({
      object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'web-config' },
      expected: 'goes',
      actual: 'left',
      message: expect.stringMatching(/^ConfigMap .*web-config was left, but the prediction said it would go/),
    });
    expect(summary).toContain('### Surprises');
    expect(summary).toMatch(/ConfigMap .*web-config was left, but the prediction said it would go/);
  } finally {
    await removeFinalizers(api, path).catch(() => {});
    if (await getOrUndefined(api, `/api/v1/namespaces/${ns}`))
      await deleteNamespaceAndWait(api, ns, 120_000).catch(() => {});
  }
});

test('await-predicted-hangs: true keeps the old patience: an object predicted to hang is awaited like any other', async () => {
  const api = suiteApi();
  const ns = uniqueName('pred-old');
  const clusterRole = `${ns}-held-reader`;
  // The `held` chart: a ClusterRole with finalizer example.com/hold, which no controller removes.
  const r = await helm4(['install', 'held', chart('held'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const inputs = { mode: 'teardown', namespaces: ns, 'stage-timeout': '3s' };
    const patient = await runAction({ ...inputs, 'await-predicted-hangs': 'true' });
    expect(expectedOf(patient.report, 'ClusterRole', clusterRole)).toBe('hangs');
    expect(patient.report.teardown!.stages.flatMap((s) => s.waitsSkipped ?? [])).toEqual([]);
    expect(patient.report.teardown!.stages[0]!.remaining.map((b) => b.name)).toEqual([clusterRole]);
    expect(patient.report.surprises).toEqual([]);
  } finally {
    await removeFinalizers(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await helm4(['uninstall', 'held', '-n', ns]);
    if (await getOrUndefined(api, `/api/v1/namespaces/${ns}`))
      await deleteNamespaceAndWait(api, ns, 120_000).catch(() => {});
  }
});
