/**
 * Reports the engine wrote on the local control plane, read back from `report-path`, are
 * valid against schema/report.v1.schema.json: plan, teardown (leftovers, then clean), scan,
 * inventory, and an error report. The unit test __tests__/unit/report/report-schema.test.ts
 * shows the schema rejects broken reports.
 */
import { readFileSync } from 'node:fs';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { schemaErrors } from '../unit/support/report-schema.js';
import { runAction, type ActionRun } from './support/action.js';
import { adminApi, uniqueName } from './support/cluster.js';
import { clearWidgetFinalizers } from './support/operator.js';
import { installOperatorAndApp, removeOperatorAndApp } from './support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

/** The report file the run wrote (not the in-memory object: undefined fields vanish in JSON). */
function writtenReport(run: ActionRun): { verdict: string; mode: string } & Record<string, unknown> {
  return JSON.parse(readFileSync(run.outputs.get('report-path')!, 'utf8'));
}

test('plan and teardown reports (leftovers, then clean) of a real environment match the schema', async () => {
  const id = uniqueName('schema');
  const env = { group: `${id}.kube-sweep.test`, operatorNs: `${id}-operator`, appNs: `${id}-app` };
  // Widgets carry a finalizer and no operator runs: the first teardown leaves them behind.
  await installOperatorAndApp(api, env);
  try {
    const plan = writtenReport(await runAction({ mode: 'plan', namespaces: `${id}-*` }));
    expect([plan.mode, plan.verdict]).toEqual(['plan', 'planned']);
    expect(plan.plan).toBeDefined();
    expect(schemaErrors(plan)).toEqual([]);

    const stuck = writtenReport(
      await runAction({ mode: 'teardown', namespaces: `${id}-*`, 'stage-timeout': '5s' }),
    );
    expect([stuck.mode, stuck.verdict]).toEqual(['teardown', 'leftovers']);
    const stages = (stuck.teardown as { stages: { crdInstances: { remaining: unknown[] }[] }[] }).stages;
    expect(stages.flatMap((s) => s.crdInstances.flatMap((c) => c.remaining)).length).toBeGreaterThan(0);
    expect(schemaErrors(stuck)).toEqual([]);

    await clearWidgetFinalizers(api, env.group);
    const clean = writtenReport(
      await runAction({ mode: 'teardown', namespaces: `${id}-*`, 'stage-timeout': '60s' }),
    );
    expect([clean.mode, clean.verdict]).toEqual(['teardown', 'clean']);
    expect(schemaErrors(clean)).toEqual([]);
  } finally {
    await removeOperatorAndApp(api, env);
  }
});

test('scan and inventory reports of the whole cluster match the schema', async () => {
  const scan = writtenReport(await runAction({ mode: 'scan', 'fail-on': 'never' }));
  expect(scan.mode).toBe('scan');
  expect(Array.isArray(scan.findings)).toBe(true);
  expect(schemaErrors(scan)).toEqual([]);
  const inventory = writtenReport(await runAction({ mode: 'inventory' }));
  expect(['complete', 'partial']).toContain(inventory.verdict);
  expect(schemaErrors(inventory)).toEqual([]);
});

test('an error report (bad input) matches the schema', async () => {
  const run = await runAction({ mode: 'teardown', namespaces: 'pr-*', timeout: 'soon' });
  const report = writtenReport(run);
  expect(report.verdict).toBe('error');
  expect(schemaErrors(report)).toEqual([]);
});
