import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimDefaultReportPath, defaultReportName } from '../../../src/action/main.js';
import { checkReportPath, unfinishedReportLine } from '../../../src/execute.js';
import { InputError } from '../../../src/config/settings.js';

test('defaultReportName: the step from GITHUB_ACTION, sanitised and cut; a counter after the first', () => {
  expect(defaultReportName('sweep')).toBe('kube-sweep-report-sweep.json');
  expect(defaultReportName('__self_2')).toBe('kube-sweep-report-__self_2.json');
  expect(defaultReportName('a/b c:../d')).toBe('kube-sweep-report-a_b_c_.._d.json');
  expect(defaultReportName('x'.repeat(100))).toBe(`kube-sweep-report-${'x'.repeat(64)}.json`);
  expect(defaultReportName(undefined)).toBe('kube-sweep-report.json');
  expect(defaultReportName('')).toBe('kube-sweep-report.json');
  expect(defaultReportName('sweep', 2)).toBe('kube-sweep-report-sweep-2.json');
  expect(defaultReportName(undefined, 3)).toBe('kube-sweep-report-3.json');
});

test('claimDefaultReportPath: one RUNNER_TEMP for the job, each claim its own file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-claim-'));
  writeFileSync(join(dir, 'kube-sweep-report-sweep.json'), '{}'); // an earlier step's report
  const env = { RUNNER_TEMP: dir, GITHUB_ACTION: 'sweep' };
  expect(claimDefaultReportPath(env)).toBe(join(dir, 'kube-sweep-report-sweep-2.json'));
  expect(claimDefaultReportPath(env)).toBe(join(dir, 'kube-sweep-report-sweep-3.json'));
  expect(claimDefaultReportPath({ RUNNER_TEMP: dir, GITHUB_ACTION: 'scan' })).toBe(
    join(dir, 'kube-sweep-report-scan.json'),
  );
  expect(readdirSync(dir).sort()).toEqual([
    'kube-sweep-report-scan.json',
    'kube-sweep-report-sweep-2.json',
    'kube-sweep-report-sweep-3.json',
    'kube-sweep-report-sweep.json',
  ]);
  // A folder that cannot be written: the first name, and the write reports the problem later.
  expect(claimDefaultReportPath({ RUNNER_TEMP: '/proc/kube-sweep-none', GITHUB_ACTION: 's' })).toBe(
    '/proc/kube-sweep-none/kube-sweep-report-s.json',
  );
});

test('checkReportPath refuses a file that takes no report, and leaves a line that says the run is unfinished', () => {
  // A tester's teardown deleted its namespace, then could not write --report-path /proc/self/status
  // (EINVAL) and still said clean: an empty write had passed the check.
  for (const [path, code] of <[string, string][]>[
    ['/proc/self/status', 'EINVAL'],
    ['/dev/full', 'ENOSPC'],
  ]) {
    expect(() => checkReportPath(path)).toThrow(InputError);
    expect(() => checkReportPath(path)).toThrow(
      new RegExp(`'${path}', which cannot be written \\(.*: ${code}\\)`),
    );
  }
  const path = join(mkdtempSync(join(tmpdir(), 'kube-sweep-check-')), 'r.json');
  checkReportPath(path);
  expect(readFileSync(path, 'utf8')).toBe(unfinishedReportLine);
  expect(JSON.parse(readFileSync(path, 'utf8'))).not.toHaveProperty('verdict');
});
