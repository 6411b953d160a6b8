import type { Finding } from '../../../src/rules/findings.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { teardownVerdict, type Report } from '../../../src/report/report.js';

const root: Finding = {
  key: 'OperatorGoneFinalizer:finalizer example.com/hold in cluster-scoped objects',
  code: 'OperatorGoneFinalizer',
  rule: 'stuck-finalizer',
  severity: 'error',
  object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'pr-1-reader' },
  message: 'm',
  evidence: [],
  remediation: { summary: 's', commands: [] },
  scope: 'cluster',
};

const blocker = (name: string) => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  name,
  finalizers: ['example.com/hold'],
  deletionTimestamp: '2026-11-30T20:00:00Z',
});

const report: Report = {
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'teardown',
  verdict: 'leftovers',
  cluster: { server: '', version: '', context: '' },
  teardown: {
    stages: [
      {
        index: 0,
        releases: [],
        crdInstances: [],
        remaining: [blocker('pr-1-reader'), blocker('pr-1-<b>x</b>')],
        kept: [],
        unservedKinds: [],
        unverifiableKinds: [],
        errors: [],
        durationMs: 0,
        startedAt: '2026-11-30T20:00:00.000Z',
        endedAt: '2026-11-30T20:00:00.000Z',
        stepsMs: { crdInstances: 0, uninstall: 0, wait: 0 },
      },
    ],
    namespaces: [],
    hookLeftovers: [],
    errors: [],
    durationMs: 0,
    timedOut: false,
  },
  leftovers: [
    {
      object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'pr-1-reader' },
      source: 'stage',
      findings: [root.key],
      rootCauses: [root.key],
      reason: 'deleting since 2026-11-30T20:00:00Z, held by finalizer example.com/hold',
    },
    {
      object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'pr-1-<b>x</b>' },
      source: 'stage',
      findings: [],
      rootCauses: [],
      reason: 'gone by the scan after the teardown | <b>',
    },
  ],
  findings: [root],
  failing: [root.key],
  warnings: [],
};

test("the still-there table links each leftover to its root cause's code and object, or says why not", () => {
  const md = renderMarkdown(report);
  expect(md).toContain('| object | finalizers | state | after the run | root cause (see Findings) |');
  expect(md).toContain(
    '| `ClusterRole pr-1-reader` | `example.com/hold` | deleting since 2026-11-30T20:00:00Z | still there when its stage ended | `OperatorGoneFinalizer` on `ClusterRole pr-1-reader` |',
  );
  const unexplained = md.split('\n').find((l) => l.includes('gone by the scan after the teardown'));
  expect(unexplained).toMatch(
    /^\| `ClusterRole pr-1-.*x.*` \| .* \| gone by the scan after the teardown \\\| .*\|$/,
  );
  expect(unexplained).not.toContain('<b>');
});

test('a Helm hook object in a namespace the teardown deleted is said gone with it and does not make the teardown dirty; each names its release', () => {
  const hookConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: 'pr-1-extras',
    name: 'hook-cm',
    finalizers: [],
    release: 'pr-1-extras/hooks',
  };
  const hookRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    name: 'pr-1-hook-role',
    finalizers: [],
    release: 'pr-1-extras/hooks',
  };
  const base = report.teardown!;
  const teardown = {
    ...base,
    stages: base.stages.map((s) => ({ ...s, remaining: [] })),
    namespaces: [
      {
        name: 'pr-1-extras',
        status: 'deleted' as const,
        durationMs: 1,
        blockingConditions: [],
        finalizers: [],
        metadataFinalizers: [],
      },
    ],
    hookLeftovers: [hookConfigMap],
  };
  expect(teardownVerdict(teardown)).toBe('clean');
  expect(teardownVerdict({ ...teardown, hookLeftovers: [hookConfigMap, hookRole] })).toBe('leftovers');
  const md = renderMarkdown({
    ...report,
    teardown: { ...teardown, hookLeftovers: [hookConfigMap, hookRole] },
    leftovers: [],
  });
  expect(md).toContain(
    '- Left by Helm hooks (Helm never deletes hook objects without a delete policy): `ConfigMap pr-1-extras/hook-cm` (a hook of `pr-1-extras/hooks`; then deleted with its namespace), `ClusterRole pr-1-hook-role` (a hook of `pr-1-extras/hooks`).',
  );
});
