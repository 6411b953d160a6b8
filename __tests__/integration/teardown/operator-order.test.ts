/**
 * The heart of the teardown: an app whose custom resources carry a finalizer that a live
 * operator removes. kube-sweep tears the app down before the operator and ends clean; the
 * reverse order (seed 000's mistake) leaves the instances stuck, and the report says so.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince, mutatingVerbs, isDryRun } from '../support/audit.js';
import {
  adminApi,
  clusterEnv,
  deleteIfPresent,
  getOrUndefined,
  helm,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import { clearWidgetFinalizers, startWidgetOperator } from '../support/operator.js';
import { installOperatorAndApp } from '../support/widgets.js';
import { schemaErrors } from '../../unit/support/report-schema.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

interface Env {
  group: string;
  operatorNs: string;
  appNs: string;
}

async function installEnvironment(): Promise<Env> {
  const id = uniqueName('env');
  const env = { group: `${id}.kube-sweep.test`, operatorNs: `${id}-operator`, appNs: `${id}-app` };
  await installOperatorAndApp(api, env);
  return env;
}

async function cleanup(env: Env) {
  await clearWidgetFinalizers(api, env.group);
  await helm(clusterEnv().helm4, ['uninstall', 'app', '-n', env.appNs]);
  await helm(clusterEnv().helm4, ['uninstall', 'operator', '-n', env.operatorNs]);
  await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${env.group}`);
  await deleteIfPresent(api, `/api/v1/namespaces/${env.appNs}`);
  await deleteIfPresent(api, `/api/v1/namespaces/${env.operatorNs}`);
}

test('plan: the app goes before the operator, and planning sends no mutating request', async () => {
  const env = await installEnvironment();
  try {
    const mark = auditMark();
    const { report, failures } = await runAction({
      mode: 'plan',
      namespaces: `${env.appNs}\n${env.operatorNs}`,
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('planned');
    expect(report.plan!.stages.map((s) => s.releases)).toEqual([
      [`${env.appNs}/app`],
      [`${env.operatorNs}/operator`],
    ]);
    expect(report.plan!.stages[1]!.crdInstancesFirst).toEqual([`widgets.${env.group}`]);
    const edge = report.plan!.edges.find((e) => e.before === `${env.appNs}/app`)!;
    expect(edge.after).toBe(`${env.operatorNs}/operator`);
    expect(edge.reason).toContain(`CRD widgets.${env.group}`);
    expect(edge.reason).toContain(`webhook validate.${env.group}`);
    const requests = kubeSweepRequestsSince(mark);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((e) => mutatingVerbs.has(e.verb) && !isDryRun(e))).toEqual([]);
    // Nothing changed.
    expect(
      await getOrUndefined(api, `/apis/${env.group}/v1/namespaces/${env.appNs}/widgets/w1`),
    ).toBeDefined();
  } finally {
    await cleanup(env);
  }
});

test.each([
  ['auto', 'namespace'],
  ['helm', 'helm'],
] as const)(
  'teardown in dependency order with a live operator ends clean (uninstall-mode %s)',
  async (mode, method) => {
    const env = await installEnvironment();
    const operator = startWidgetOperator(api, {
      group: env.group,
      deploymentNamespace: env.operatorNs,
      deploymentName: 'widget-operator',
    });
    try {
      // A custom resource no release owns (made at runtime, as apps do): it must still go while
      // the operator runs, in the operator's stage, before the operator is uninstalled.
      await api.request({
        method: 'POST',
        path: `/apis/${env.group}/v1/namespaces/${env.appNs}/widgets`,
        body: {
          apiVersion: `${env.group}/v1`,
          kind: 'Widget',
          metadata: { name: 'runtime', finalizers: [`${env.group}/cleanup`] },
        },
      });
      const mark = auditMark();
      const { report, failures, outputs } = await runAction({
        mode: 'teardown',
        namespaces: `${env.appNs}, ${env.operatorNs}`,
        'stage-timeout': '60s',
        'uninstall-mode': mode,
      });
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
      const t = report.teardown!;
      expect(t.stages.map((s) => s.releases.map((r) => [r.release, r.status, r.method]))).toEqual([
        [[`${env.appNs}/app`, 'uninstalled', method]],
        [[`${env.operatorNs}/operator`, 'uninstalled', method]],
      ]);
      expect(t.stages.flatMap((s) => s.remaining)).toEqual([]);
      expect(t.namespaces.map((n) => [n.name, n.status])).toEqual([
        [env.appNs, 'deleted'],
        [env.operatorNs, 'deleted'],
      ]);
      // The operator finalized the release's two widgets and the runtime one before it went.
      // The runtime one goes when the app's namespace is emptied (stage 1) or, if it is still
      // there when stage 2 starts, by stage 2's custom resources first; either way none is left.
      expect(operator.finalized()).toBe(3);
      expect(t.stages[1]!.crdInstances.map((x) => [x.crd, x.remaining])).toEqual(
        t.stages[1]!.crdInstances.length === 0 ? [] : [[`widgets.${env.group}`, []]],
      );
      expect(outputs.get('verdict')).toBe('clean');
      expect(outputs.get('releases-uninstalled')).toBe('2');
      // Deletes went only to what the scope names: its namespaces, and (auto: kube-sweep removes
      // the operator release without helm) that release's cluster-scoped CRD and webhook configuration.
      const deletes = kubeSweepRequestsSince(mark).filter((e) => mutatingVerbs.has(e.verb) && !isDryRun(e));
      const group = env.group.replaceAll('.', '\\.');
      const inScope = new RegExp(
        `/namespaces/(${env.appNs}|${env.operatorNs})(/|\\?|$)|` +
          `/(customresourcedefinitions/widgets\\.${group}|validatingwebhookconfigurations/operator-${group})\\?`,
      );
      for (const d of deletes) expect(d.requestURI).toMatch(inScope);
      expect(kubeSweepRequestsSince(mark).some((e) => e.requestURI.includes('/finalize'))).toBe(false);
      await waitGone(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${env.group}`);
    } finally {
      await operator.stop();
      await cleanup(env);
    }
  },
);

test('the operator uninstalled first (seed 000) leaves the widgets stuck, and the report names them', async () => {
  const env = await installEnvironment();
  const operator = startWidgetOperator(api, {
    group: env.group,
    deploymentNamespace: env.operatorNs,
    deploymentName: 'widget-operator',
  });
  try {
    // The mistake: the operator goes first. Its Deployment is gone, so nothing finalizes widgets.
    const wrong = await helm(clusterEnv().helm4, ['uninstall', 'operator', '-n', env.operatorNs]);
    expect(wrong.exitCode).toBe(0);
    await waitFor(async () => ({ done: operator.stopped(), value: operator.stopped() }), {
      timeoutMs: 30_000,
      description: 'the operator loop to notice its Deployment is gone',
    });
    const { report, failures, outputs } = await runAction({
      mode: 'teardown',
      namespaces: env.appNs,
      'stage-timeout': '8s',
      // The old patience: the namespace is awaited, so the namespace controller has written the
      // conditions this test reads (prediction.test.ts covers the waits a prediction spares).
      'await-predicted-hangs': 'true',
    });
    expect(report.verdict).toBe('leftovers');
    expect(failures[0]).toMatch(
      /^leftovers: 2 object\(s\) still there after their stage, 1 namespace\(s\) still Terminating when the wait ended/,
    );
    const remaining = report.teardown!.stages.flatMap((s) => s.remaining);
    expect(
      remaining.map((b) => [b.kind, b.namespace, b.name, b.finalizers, Boolean(b.deletionTimestamp)]),
    ).toEqual([
      ['Widget', env.appNs, 'w1', [`${env.group}/cleanup`], true],
      ['Widget', env.appNs, 'w2', [`${env.group}/cleanup`], true],
    ]);
    const ns = report.teardown!.namespaces[0]!;
    expect(ns.status).toBe('stuck');
    const types = ns.blockingConditions.map((c) => c.type);
    expect(types).toContain('NamespaceFinalizersRemaining');
    expect(ns.blockingConditions.find((c) => c.type === 'NamespaceFinalizersRemaining')!.message).toContain(
      `${env.group}/cleanup in 2 resource instances`,
    );
    expect(outputs.get('stuck-namespaces')).toBe('1');
    expect(outputs.get('blockers')).toBe('2');
  } finally {
    await operator.stop();
    await cleanup(env);
  }
});

test('dry run: the release whose custom resources would outlive their deletion is shown skipped, and the teardown then skips it with the same words', async () => {
  const env = await installEnvironment();
  const deployment = `/apis/apps/v1/namespaces/${env.operatorNs}/deployments/widget-operator`;
  try {
    // No controller runs: the operator's Deployment is scaled to zero, so nothing will remove the
    // Widgets' finalizer.
    await api.request({
      method: 'PATCH',
      path: deployment,
      body: { spec: { replicas: 0 } },
      contentType: 'application/merge-patch+json',
    });
    await waitFor(
      async () => {
        const d = await getOrUndefined<{ status?: { availableReplicas?: number } }>(api, deployment);
        const done = !d?.status?.availableReplicas;
        return { done, value: done };
      },
      { timeoutMs: 30_000, description: 'the operator Deployment to have no available replica' },
    );
    const inputs = {
      mode: 'teardown',
      namespaces: `${env.appNs}, ${env.operatorNs}`,
      'stage-timeout': '5s',
    };
    const dry = await runAction({ ...inputs, 'dry-run': 'true' });
    expect(dry.report.verdict).toBe('planned');
    expect(schemaErrors(dry.report)).toEqual([]);
    const [appStage, operatorStage] = dry.report.dryRun!.stages;
    expect(appStage!.releases).toEqual([`${env.appNs}/app`]);
    expect(appStage!.skipped).toEqual([]);
    expect(operatorStage!.releases).toEqual([]);
    expect(operatorStage!.objects).toEqual([]);
    expect(operatorStage!.skipped).toHaveLength(1);
    const skip = operatorStage!.skipped[0]!;
    expect(skip.release).toBe(`${env.operatorNs}/operator`);
    expect(skip.reason).toBe(
      `not uninstalled: 2 widgets.${env.group} object(s) still there; its controller must stay to finalize them`,
    );
    expect(skip.instances.map((i) => [i.object.namespace, i.object.name])).toEqual([
      [env.appNs, 'w1'],
      [env.appNs, 'w2'],
    ]);
    expect(skip.instances[0]!.why).toMatch(
      new RegExp(
        `^finalizer ${env.group.replaceAll('.', '\\.')}/cleanup: no controller for it runs: its owner is Helm release ${env.operatorNs}/operator`,
      ),
    );
    // The operator's namespace is kept (Helm's record stays for a rerun), as the teardown keeps it.
    expect(dry.report.dryRun!.namespaces).toEqual([env.appNs]);
    expect(dry.summary).toContain(`\`${env.operatorNs}/operator\` (**skipped**: not uninstalled: 2 widgets.`);
    expect(dry.log).toContain(`stage 2: would skip ${env.operatorNs}/operator: ${skip.reason}`);

    // The real run decides the same, in the same words.
    const real = await runAction(inputs);
    expect(real.report.verdict).toBe('leftovers');
    expect(real.report.teardown!.stages.map((s) => s.releases.map((r) => [r.release, r.status]))).toEqual([
      [[`${env.appNs}/app`, 'uninstalled']],
      [[`${env.operatorNs}/operator`, 'skipped']],
    ]);
    expect(real.report.teardown!.stages[1]!.releases[0]!.message).toBe(skip.reason);
    expect(real.report.teardown!.namespaces.map((n) => n.name)).toEqual(dry.report.dryRun!.namespaces);
  } finally {
    await cleanup(env);
  }
});
