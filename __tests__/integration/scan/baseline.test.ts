/**
 * `baseline` and `fail-on-new` end to end on the real control plane: three webhook
 * configurations whose backend namespace does not exist (WebhookBackendMissing, harmless: they
 * intercept a group nobody serves). A first scan writes the report; one webhook is then removed
 * and another added; the second scan, against the first report, marks one finding new, one still
 * there and one resolved, and with `fail-on-new` fails only because of the new one.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { adminApi, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { createWebhookWithoutBackend, webhookConfigurationPath } from '../support/webhooks.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

const path = webhookConfigurationPath;
const webhookWithoutBackend = (name: string) => createWebhookWithoutBackend(api, name);

test('a scan against the last report: new, still and resolved findings; fail-on-new fails on new ones only', async () => {
  const id = uniqueName('baseline');
  const [gone, kept, fresh] = [`${id}-gone`, `${id}-kept`, `${id}-fresh`];
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-baseline-'));
  const first = join(dir, 'first.json');
  const about = (name: string) => (f: { code: string; object: { name: string } }) =>
    f.code === 'WebhookBackendMissing' && f.object.name === name;
  try {
    await webhookWithoutBackend(gone);
    await webhookWithoutBackend(kept);
    const one = await runAction({ mode: 'scan', 'report-path': first, 'cluster-name': 'local-a' });
    expect(one.report.findings!.filter((f) => about(gone)(f) || about(kept)(f))).toHaveLength(2);
    expect(one.report.cluster.name).toBe('local-a');
    expect(one.report.generatedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(one.report.toolVersion).toBe('source');

    await deleteIfPresent(api, path(gone));
    await webhookWithoutBackend(fresh);
    const two = await runAction({ mode: 'scan', baseline: first, 'fail-on-new': 'true' });
    expect(schemaErrors(two.report)).toEqual([]);
    expect(two.report.findings!.find(about(kept))!.baseline).toBe('still');
    expect(two.report.findings!.find(about(fresh))!.baseline).toBe('new');
    expect(two.report.baseline!.resolved.filter(about(gone))).toHaveLength(1);
    expect(two.report.baseline!.resolved.filter(about(kept))).toEqual([]);
    // The new one fails the step, the one still there does not.
    const failing = new Set(two.report.failing);
    expect(failing.has(two.report.findings!.find(about(fresh))!.key)).toBe(true);
    expect(failing.has(two.report.findings!.find(about(kept))!.key)).toBe(false);
    expect(two.report.verdict).toBe('leftovers');
    expect(Number(two.outputs.get('new-findings'))).toBeGreaterThanOrEqual(1);
    expect(Number(two.outputs.get('resolved-findings'))).toBeGreaterThanOrEqual(1);
    expect(two.summary).toMatch(
      /^## .*\n\n### Since the baseline of \S+: \d+ new, \d+ resolved, \d+ still there/,
    );
    expect(two.summary).toContain(`\`ValidatingWebhookConfiguration ${fresh}\``);

    // Against the second report nothing of ours is new: fail-on-new lets both pass.
    const second = join(dir, 'second.json');
    writeFileSync(second, JSON.stringify(two.report));
    const three = await runAction({ mode: 'scan', baseline: second, 'fail-on-new': 'true' });
    const ours = three.report.findings!.filter((f) => about(kept)(f) || about(fresh)(f));
    expect(ours.map((f) => f.baseline)).toEqual(['still', 'still']);
    expect(ours.filter((f) => three.report.failing!.includes(f.key))).toEqual([]);
    // Without fail-on-new the same findings fail the step.
    const four = await runAction({ mode: 'scan', baseline: second });
    expect(four.report.verdict).toBe('leftovers');
    expect(ours.every((f) => four.report.failing!.includes(f.key))).toBe(true);
  } finally {
    for (const name of [gone, kept, fresh]) await deleteIfPresent(api, path(name));
  }
});

test('a baseline that is cut short stops the run before the cluster is read, naming the input', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-baseline-'));
  const cut = join(dir, 'cut.json');
  writeFileSync(cut, '{"schemaVersion": 1, "tool": "kube-sweep", "findi');
  const run = await runAction({ mode: 'scan', baseline: cut });
  expect(run.report.verdict).toBe('error');
  expect(run.report.error).toMatch(/^input 'baseline' is '.*cut\.json': not complete JSON, truncated/);
  expect(run.report.inventory).toBeUndefined();
  expect(run.failures).toHaveLength(1);
});
