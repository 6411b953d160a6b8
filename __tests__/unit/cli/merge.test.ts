/** `kube-sweep merge <glob>...` end to end (no cluster needed): files in, fleet summary out, exit code. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { usage } from '../../../src/cli/index.js';
import { cli } from '../support/cli.js';
import type { Report } from '../../../src/report/report.js';
import { findingKey } from '../../../src/rules/findings.js';

const object = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.metrics' };
const report = (name: string, severity: 'error' | 'warning' | undefined): Report => ({
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'scan',
  verdict: severity ? 'leftovers' : 'clean',
  cluster: { name, server: 'https://10.1.2.3:6443', version: 'v1.37.2', context: name },
  findings: severity
    ? [
        {
          key: findingKey('StaleAPIService', object),
          code: 'StaleAPIService',
          rule: 'apiservice-unavailable',
          severity,
          object,
          message: 'APIService v1.metrics is not available',
          evidence: [],
          remediation: { summary: 'Delete the APIService whose backend is gone.', commands: [] },
          scope: 'cluster',
        },
      ]
    : [],
  warnings: [],
});

const run = cli;

test('merge reads the globs after the command, judges with one --fail-on and exits by the fleet verdict', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-merge-'));
  mkdirSync(join(dir, 'a'));
  mkdirSync(join(dir, 'b'));
  writeFileSync(join(dir, 'a', 'dev.json'), JSON.stringify(report('dev', undefined)));
  writeFileSync(join(dir, 'b', 'staging.json'), JSON.stringify(report('staging', 'warning')));
  const strict = await run(['merge', join(dir, 'a/*.json'), join(dir, 'b/*.json'), '--fail-on', 'warning']);
  expect(strict.code).toBe(1);
  expect(strict.out).toContain('verdict: leftovers');
  expect(strict.out).toContain('cluster dev: clean, 0 over --fail-on (0 error, 0 warning, 0 info)');
  expect(strict.out).toContain(
    'cluster staging: leftovers, 1 over --fail-on (0 error, 1 warning, 0 info); worst: StaleAPIService APIService v1.metrics',
  );
  const lenient = await run(['merge', join(dir, '*/*.json')]);
  expect([lenient.code, lenient.out.split('\n')[0]]).toEqual([0, 'verdict: clean']);
  const md = await run(['merge', join(dir, '*/*.json'), '--output', 'markdown']);
  expect(md.out).toMatch(/^## ✅ kube-sweep fleet: 2 cluster\(s\) clean/);
  expect(md.out).not.toContain('10.1.2.3');
});

test('a cut-short report is named and makes the verdict partial, exit 0; no file at all is exit 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-merge-'));
  writeFileSync(join(dir, 'dev.json'), JSON.stringify(report('dev', undefined)));
  writeFileSync(join(dir, 'eu.json'), JSON.stringify(report('eu', undefined)).slice(0, 30));
  const partial = await run(['merge', join(dir, '*.json'), '--output', 'json']);
  const merged = JSON.parse(partial.out) as Report;
  expect([partial.code, merged.verdict, merged.mode]).toEqual([0, 'partial', 'merge']);
  expect(merged.fleet!.unreadable).toEqual([
    { file: join(dir, 'eu.json'), problem: expect.stringContaining('not complete JSON') },
  ]);
  const none = await run(['merge', join(dir, 'nothing/*.json')]);
  expect(none.code).toBe(2);
  expect(none.out).toMatch(/--reports \(.*nothing\/\*\.json\) matches no file/);
});

test('the help names reap, merge and the several-contexts scan', () => {
  expect(usage).toMatch(/^ {2}reap {2,}find the environments/m);
  expect(usage).toMatch(/^ {2}merge {2,}merge <glob>\.\.\.: merge the report files/m);
  expect(usage).toContain('--all-contexts');
  expect(usage).toContain('scan --context a,b');
});

test('several contexts work with scan only', async () => {
  const r = await run(['plan', '--namespaces', 'x', '--context', 'a,b']);
  expect(r.code).toBe(2);
  expect(r.err).toContain('several contexts (--context a,b or --all-contexts) work with scan only, not plan');
});
