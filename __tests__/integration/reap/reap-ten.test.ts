/**
 * Reap at the size the issue names: ten abandoned environments at once (reap-concurrency 4), one
 * of them a Helm operator with its app whose Widgets carry the operator's finalizer and a live
 * operator that removes it, the nine others a namespace each. The whole run ends clean: the
 * operator's environment is torn down in dependency order (the app first, so the operator is
 * still there to finalize its Widgets), and the audit log shows kube-sweep changed only the ten
 * environments (their namespaces, and the operator release's own CRD and webhook configuration).
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
import {
  adminApi,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import { startWidgetOperator } from '../support/operator.js';
import { installOperatorAndApp, removeOperatorAndApp } from '../support/widgets.js';

let api: ApiClient;
const prefix = uniqueName('reapten');
const abandoned = `${prefix}-gone`;
const operatorEnv = {
  group: `${prefix}.kube-sweep.test`,
  operatorNs: `${prefix}-1-operator`,
  appNs: `${prefix}-1-app`,
};
const plain = Array.from({ length: 9 }, (_, i) => `${prefix}-${i + 2}-web`);
/** A namespace no pattern of the run names, and one of the pattern's that is not abandoned. */
const bystander = `${prefix}-other`;
const young = `${prefix}-11-web`;

beforeAll(async () => {
  api = await adminApi();
  await installOperatorAndApp(api, operatorEnv);
  for (const ns of [...plain, bystander, young]) await createNamespace(api, ns);
  for (const ns of [operatorEnv.operatorNs, operatorEnv.appNs, ...plain, bystander])
    await api.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${ns}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { [abandoned]: 'yes' } } },
    });
  for (const ns of plain)
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } },
    });
}, 300_000);

afterAll(async () => {
  await removeOperatorAndApp(api, operatorEnv);
  for (const ns of [...plain, bystander, young]) await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  await api.close();
});

test('ten abandoned environments, one with a live operator, are reaped and the run ends clean', async () => {
  const operator = startWidgetOperator(api, {
    group: operatorEnv.group,
    deploymentNamespace: operatorEnv.operatorNs,
    deploymentName: 'widget-operator',
  });
  try {
    const mark = auditMark();
    const started = new Date();
    const { report, failures, outputs } = await runAction({
      mode: 'reap',
      environments: `${prefix}-{id}-*`,
      'abandoned-label': `${abandoned}=yes`,
      'reap-concurrency': '4',
      'stage-timeout': '60s',
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');
    const ids = Array.from({ length: 10 }, (_, i) => String(i + 1));
    expect((JSON.parse(outputs.get('reaped')!) as string[]).sort()).toEqual([...ids].sort());
    expect([outputs.get('kept'), outputs.get('failed')]).toEqual(['["11"]', '[]']);
    const one = report.reap!.environments.find((e) => e.id === '1')!;
    expect(one).toMatchObject({ outcome: 'reaped', verdict: 'clean' });
    expect(one.teardown!.stages.map((s) => s.releases.map((r) => [r.release, r.status]))).toEqual([
      [[`${operatorEnv.appNs}/app`, 'uninstalled']],
      [[`${operatorEnv.operatorNs}/operator`, 'uninstalled']],
    ]);
    // The live operator finalized the app's two Widgets before it went.
    expect(operator.finalized()).toBe(2);
    for (const ns of [operatorEnv.operatorNs, operatorEnv.appNs, ...plain])
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
    for (const ns of [bystander, young])
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    // The audit log: every change kube-sweep or its helm made is in the ten environments (or the
    // operator release's own cluster-scoped CRD and webhook configuration); nothing else, and no
    // /finalize. (The test's operator loop shares the user agent; it only patches the app's Widgets.)
    const group = operatorEnv.group.replaceAll('.', '\\.');
    const names = [operatorEnv.operatorNs, operatorEnv.appNs, ...plain].join('|');
    const inScope = new RegExp(
      `/namespaces/(${names})(/|\\?|$)|` +
        `/(customresourcedefinitions/widgets\\.${group}|validatingwebhookconfigurations/operator-${group})(\\?|$)`,
    );
    const changes = toolMutationsSince(mark, started);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.filter((e) => !inScope.test(e.requestURI))).toEqual([]);
    expect(changes.some((e) => e.requestURI.includes('/finalize'))).toBe(false);
  } finally {
    await operator.stop();
  }
}, 600_000);
