/**
 * `stuck-namespaces` and the step's failure message count every namespace still Terminating
 * when the wait ended: `stuck` ones and `not-waited` ones (the overall timeout cut the wait
 * short), as action.yml and the README say (issue 25).
 */
import { leftoversMessage } from '../../../src/action/main.js';
import { teardownCounts, type Report } from '../../../src/report/report.js';
import type { NamespaceOutcome } from '../../../src/model/teardown-result.js';

const namespace = (name: string, status: NamespaceOutcome['status']): NamespaceOutcome => ({
  name,
  status,
  durationMs: 1000,
  blockingConditions: [],
  finalizers: status === 'stuck' || status === 'not-waited' ? ['kubernetes'] : [],
  metadataFinalizers: [],
});

const report = (namespaces: NamespaceOutcome[]): Report => ({
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'teardown',
  verdict: 'leftovers',
  cluster: { server: '', version: '', context: '' },
  teardown: { stages: [], namespaces, hookLeftovers: [], errors: [], durationMs: 0, timedOut: true },
  findings: [],
  failing: [],
  warnings: [],
});

test('a namespace not waited for counts as still Terminating, beside the stuck ones', () => {
  const r = report([
    namespace('pr-1', 'stuck'),
    namespace('pr-2', 'not-waited'),
    namespace('pr-3', 'deleted'),
    namespace('pr-4', 'absent'),
  ]);
  expect(teardownCounts(r.teardown)).toMatchObject({ stuckNamespaces: 2, notWaitedNamespaces: 1 });
  expect(leftoversMessage(r, '/tmp/report.json')).toBe(
    "leftovers: 2 namespace(s) still Terminating when the wait ended (1 not waited for: the overall 'timeout' ran out). Details: the job summary and /tmp/report.json",
  );
});

test('only not-waited namespaces still make the failure message name them', () => {
  const r = report([namespace('pr-2', 'not-waited')]);
  expect(teardownCounts(r.teardown).stuckNamespaces).toBe(1);
  expect(leftoversMessage(r, 'r.json')).toMatch(/^leftovers: 1 namespace\(s\) still Terminating/);
});

test('a namespace whose deletion was refused is not Terminating: named on its own in the failure message', () => {
  const r = report([namespace('pr-1', 'refused'), namespace('pr-2', 'stuck')]);
  expect(teardownCounts(r.teardown)).toMatchObject({ stuckNamespaces: 1, refusedNamespaces: 1 });
  expect(leftoversMessage(r, 'r.json')).toBe(
    'leftovers: 1 namespace(s) still Terminating when the wait ended, 1 namespace(s) whose deletion the API server refused. Details: the job summary and r.json',
  );
});

test('without a teardown every count is zero', () => {
  expect(teardownCounts(undefined)).toMatchObject({ stuckNamespaces: 0, notWaitedNamespaces: 0 });
});
