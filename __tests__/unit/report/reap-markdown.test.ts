import { outcomeOf, reapVerdict } from '../../../src/reap.js';
import { renderReap, textReap } from '../../../src/report/reap-markdown.js';
import type { ReapEnvironment, Report } from '../../../src/report/report.js';
import { schemaErrors } from '../support/report-schema.js';

const entry = (id: string, extra: Partial<ReapEnvironment>): ReapEnvironment => ({
  id,
  namespaces: [`pr-${id}-api`],
  abandoned: true,
  reasons: [`pull request #${id} is closed`],
  outcome: 'reaped',
  ...extra,
});

test('the verdict of a reap: refused, failed, dry run, partial, clean', () => {
  const reaped = entry('1', { verdict: 'clean' });
  expect(reapVerdict([reaped, entry('2', { outcome: 'refused' })], 0, false)).toBe('error');
  expect(reapVerdict([reaped, entry('2', { outcome: 'failed', verdict: 'leftovers' })], 0, false)).toBe(
    'leftovers',
  );
  expect(reapVerdict([reaped], 1, false)).toBe('leftovers');
  expect(reapVerdict([entry('1', { outcome: 'would-reap', verdict: 'planned' })], 0, true)).toBe('planned');
  expect(reapVerdict([entry('1', { verdict: 'partial' })], 0, false)).toBe('partial');
  expect(reapVerdict([reaped, entry('3', { abandoned: false, outcome: 'kept' })], 0, false)).toBe('clean');
  expect(reapVerdict([], 0, false)).toBe('clean');
  expect([
    outcomeOf('clean'),
    outcomeOf('partial'),
    outcomeOf('planned'),
    outcomeOf('leftovers'),
    outcomeOf('error'),
  ]).toEqual(['reaped', 'reaped', 'would-reap', 'failed', 'failed']);
});

test('one row per environment: id, namespaces, why, outcome, duration, root cause', () => {
  const reap = {
    environments: [
      entry('12', { verdict: 'clean', durationMs: 12345 }),
      entry('13', {
        outcome: 'failed',
        verdict: 'leftovers',
        durationMs: 60000,
        rootCause: 'OperatorGoneFinalizer Widget pr-13-api/w1',
      }),
      entry('14', {
        abandoned: false,
        outcome: 'kept',
        reasons: ['pr-14-api is labelled kube-sweep.io/keep=true'],
      }),
    ],
  };
  const md = renderReap(reap).join('\n');
  expect(md).toContain('### Environments: 1 reaped, 1 failed, 1 kept');
  expect(md).toContain('| `12` | `pr-12-api` | pull request \\#12 is closed | ✅ reaped | 12.3 s | — |');
  expect(md).toContain('| ❌ failed | 60.0 s | `OperatorGoneFinalizer Widget pr-13-api/w1` |');
  expect(md).toContain(
    '| `14` | `pr-14-api` | pr-14-api is labelled kube-sweep.io/keep=true | ⏸️ kept | — | — |',
  );
  expect(textReap(reap)[0]).toBe('environment 12 (pr-12-api): reaped in 12.3 s: pull request #12 is closed');
  const report: Report = {
    schemaVersion: 1,
    tool: 'kube-sweep',
    mode: 'reap',
    verdict: 'leftovers',
    cluster: { server: '', version: '', context: '' },
    reap,
    warnings: [],
  };
  expect(schemaErrors(report)).toEqual([]);
  expect(renderReap({ environments: [] }, 'cli').join('\n')).toContain(
    'none found (--environments, --environment-label)',
  );
});
