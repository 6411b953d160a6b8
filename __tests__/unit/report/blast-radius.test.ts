import { text, usage } from '../../../src/cli/index.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import type { Report } from '../../../src/report/report.js';
import type { BlastRadius } from '../../../src/model/dry-run.js';

const blastRadius: BlastRadius = {
  namespaces: ['pr-12-api', 'pr-12-db'],
  releases: [
    { release: 'pr-12-api/api', method: 'namespace' },
    { release: 'pr-12-db/operator', method: 'helm' },
  ],
  clusterScoped: [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name: 'api-reader',
      release: 'pr-12-api/api',
      by: 'kube-sweep',
    },
  ],
  otherNamespaces: [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'shared',
      name: 'x',
      release: 'pr-12-db/operator',
      by: 'helm',
    },
  ],
};

const report = (verdict: Report['verdict'], error?: string): Report => ({
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'plan',
  verdict,
  ...(error ? { error } : {}),
  cluster: { server: '', version: '', context: '' },
  plan: {
    blastRadius,
    refusals: [],
    namespaces: ['pr-12-api', 'pr-12-db'],
    protectedMatched: [],
    namespacesToDelete: ['pr-12-api', 'pr-12-db'],
    releases: [],
    edges: [],
    stages: [],
  },
  findings: [],
  failing: [],
  warnings: [],
});

test('the markdown of a plan opens with the blast radius, every object named with who deletes it', () => {
  const md = renderMarkdown(
    report('error', "refusing to tear down (nothing was deleted): input 'namespaces' has '*'"),
  );
  const lines = md.split('\n');
  expect(lines.slice(0, 10)).toEqual([
    '## ❌ kube-sweep could not run',
    '',
    "refusing to tear down \\(nothing was deleted\\): input 'namespaces' has '\\*'",
    '',
    '### What a teardown deletes',
    '',
    '- Namespaces, with everything in them: `pr-12-api`, `pr-12-db`.',
    '- Helm releases: `pr-12-api/api` (with its namespace), `pr-12-db/operator` (helm uninstall).',
    '- Cluster-scoped objects: `ClusterRole api-reader` (release `pr-12-api/api`, by kube-sweep).',
    '- Objects in namespaces outside the scope: `ConfigMap shared/x` (release `pr-12-db/operator`, by Helm).',
  ]);
});

test('the CLI text of a plan names the blast radius right after the verdict', () => {
  expect(text(report('planned')).split('\n').slice(0, 5)).toEqual([
    'verdict: planned',
    'a teardown deletes: namespaces pr-12-api, pr-12-db',
    '  releases: pr-12-api/api (with its namespace), pr-12-db/operator (helm uninstall)',
    '  cluster-scoped: ClusterRole api-reader (release pr-12-api/api, by kube-sweep)',
    '  outside the scope: ConfigMap shared/x (release pr-12-db/operator, by helm)',
  ]);
});

test('the CLI help names the new flags and what is never touched', () => {
  expect(usage).toMatch(
    /--protect <value>\s+More namespaces kube-sweep must never touch: names or globs.\s+default: none;/,
  );
  expect(usage).toMatch(
    /--max-namespaces <value>\s+The most namespaces a teardown \(or plan\) may have in scope\s+\(1-100000\)\.\n\s+default: 25/,
  );
  expect(usage).toContain(
    'kube-* namespace, those --protect matches and those labelled kube-sweep.io/protected=true',
  );
});
