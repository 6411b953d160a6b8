/**
 * `stage-timeout` is the budget of a whole stage (issue 13): a stage with several CRDs whose
 * instances never go away waits once for its budget, not once per CRD. The bound is read from
 * the report's recorded stage start and end against the configured budget.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { adminApiForSuite, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { chart, helm4, waitCrdEstablished, whenServed } from '../support/widgets.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

const kinds = ['Alpha', 'Beta', 'Gamma'];

test('a stage with three CRDs whose instances never go ends within one stage-timeout', async () => {
  const ns = uniqueName('budget');
  const group = `${ns}.kube-sweep.test`;
  const path = (kind: string, name = '') =>
    `/apis/${group}/v1/namespaces/${ns}/${kind.toLowerCase()}s${name ? `/${name}` : ''}`;
  const r = await helm4([
    'install',
    'multi',
    chart('multicrd'),
    '-n',
    ns,
    '--create-namespace',
    '--set',
    `group=${group}`,
  ]);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  try {
    for (const kind of kinds) {
      await waitCrdEstablished(api, `${kind.toLowerCase()}s.${group}`);
      // A finalizer no controller removes: the instance never goes.
      await whenServed(`${kind} to be created`, () =>
        api.request({
          method: 'POST',
          path: path(kind),
          body: {
            apiVersion: `${group}/v1`,
            kind,
            metadata: { name: 'held', finalizers: [`${group}/never`] },
          },
        }),
      );
    }
    const stageTimeoutMs = 6000;
    const { report } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      'stage-timeout': '6s',
      timeout: '5m',
      // The budget itself is under test: wait for instances the plan predicts will hang, too.
      'await-predicted-hangs': 'true',
    });
    const stages = report.teardown!.stages;
    expect(stages).toHaveLength(1);
    const stage = stages[0]!;
    // Each CRD's instance was deleted and is still there, held by its finalizer.
    expect(stage.crdInstances.map((c) => [c.crd, c.remaining.map((b) => b.finalizers)])).toEqual(
      kinds.map((k) => [`${k.toLowerCase()}s.${group}`, [[`${group}/never`]]]),
    );
    expect(stage.releases.map((x) => x.status)).toEqual(['skipped']);
    const took = Date.parse(stage.endedAt) - Date.parse(stage.startedAt);
    expect(took).toBe(stage.durationMs);
    // It waited its budget, once: three waits of a stage-timeout each would take three.
    expect(took).toBeGreaterThanOrEqual(stageTimeoutMs);
    expect(took).toBeLessThan(2 * stageTimeoutMs);
    expect(report.verdict).toBe('leftovers');
  } finally {
    for (const kind of kinds) {
      await api
        .request({
          method: 'PATCH',
          path: path(kind, 'held'),
          contentType: 'application/merge-patch+json',
          body: { metadata: { finalizers: null } },
        })
        .catch(() => {});
    }
    await helm4(['uninstall', 'multi', '-n', ns]);
    for (const kind of kinds)
      await deleteIfPresent(
        api,
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${kind.toLowerCase()}s.${group}`,
      );
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
