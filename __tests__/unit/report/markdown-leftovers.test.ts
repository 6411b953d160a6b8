import type { Finding } from '../../../src/rules/findings.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import type { Report } from '../../../src/report/report.js';

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
