import { teardownDoneWords } from '../../../src/engine/teardown.js';
import { checkRunOutput } from '../../../src/report/github/check-run.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { errorKind, type Report } from '../../../src/report/report.js';
import type { TeardownResult } from '../../../src/model/teardown-result.js';

const none = { blockingConditions: [], finalizers: [], metadataFinalizers: [] };

/** What a teardown stopped by a fault had done: one release removed, one namespace gone, one asked. */
const partial: TeardownResult = {
  stages: [
    {
      index: 0,
      releases: [
        {
          release: 'pr-1/app',
          status: 'uninstalled',
          method: 'helm',
          helmStatusBefore: 'deployed',
          durationMs: 5,
        },
      ],
      crdInstances: [],
      remaining: [],
      kept: [],
      unservedKinds: [],
      unverifiableKinds: [],
      errors: [],
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
      durationMs: 1000,
      stepsMs: { crdInstances: 0, uninstall: 1000, wait: 0 },
    },
  ],
  namespaces: [
    { name: 'pr-1', status: 'deleted', durationMs: 10, ...none },
    {
      name: 'pr-2',
      status: 'not-waited',
      message: 'deletion requested; the run stopped before it was seen gone',
      durationMs: 0,
      ...none,
    },
    { name: 'pr-3', status: 'absent', durationMs: 0, ...none },
  ],
  hookLeftovers: [],
  errors: ['stopped: the API server did not answer'],
  durationMs: 1000,
  timedOut: false,
};

const report = (extra: Partial<Report>): Report => ({
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'teardown',
  verdict: 'error',
  error: 'x',
  cluster: { server: '', version: '', context: '' },
  warnings: [],
  ...extra,
});

test('an error report is titled by how the run ended: cancelled, stopped with what it did, or could not run', () => {
  const cancelled = report({
    cancelled: {
      signal: 'SIGINT',
      afterMs: 1,
      during: '',
      releasesRemoved: [],
      namespacesDeleted: [],
      processesStopped: [],
    },
  });
  expect(errorKind(cancelled)).toBe('cancelled');
  expect(renderMarkdown(cancelled).split('\n')[0]).toBe('## ⛔ kube-sweep: cancelled');
  expect(checkRunOutput(cancelled, '').title).toBe('kube-sweep teardown: cancelled');

  const stopped = report({ teardown: partial });
  expect(errorKind(stopped)).toBe('stopped');
  expect(renderMarkdown(stopped).split('\n')[0]).toBe(
    '## ❌ kube-sweep stopped before it finished (what it did is below)',
  );
  expect(checkRunOutput(stopped, '').title).toBe('kube-sweep teardown: stopped before it finished');
  // The namespace asked and never confirmed says so, not that the timeout ran out.
  expect(renderMarkdown(stopped)).toContain(
    '**deletion requested, not confirmed**: deletion requested; the run stopped before it was seen gone',
  );

  const bare = report({});
  expect(errorKind(bare)).toBe('could-not-run');
  expect(renderMarkdown(bare).split('\n')[0]).toBe('## ❌ kube-sweep could not run');
  expect(errorKind(report({ verdict: 'clean' }))).toBeUndefined();
});

test('what a stopped teardown did, in words', () => {
  expect(teardownDoneWords(partial)).toBe(
    '1 release(s) removed (pr-1/app); deletion of 2 namespace(s) accepted (pr-1 deleted, pr-2 not confirmed)',
  );
  expect(teardownDoneWords({ ...partial, stages: [], namespaces: [] })).toBe('nothing deleted');
});
