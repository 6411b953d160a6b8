import { renderMarkdown } from '../../../src/report/markdown.js';
import type { Report } from '../../../src/report/report.js';
import type { Finding } from '../../../src/rules/findings.js';
import { inputRef, Inputs, inputWord } from '../../../src/words/input-words.js';

const finding: Finding = {
  key: 'StuckFinalizer:x',
  code: 'StuckFinalizer',
  rule: 'stuck-finalizer',
  severity: 'error',
  object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'pr-1', name: 'held' },
  message: 'm',
  evidence: [],
  remediation: { summary: 's', commands: [] },
  scope: 'environment',
};

const namespace = (name: string, status: 'stuck' | 'not-waited') => ({
  name,
  status,
  durationMs: 1000,
  blockingConditions: [],
  finalizers: ['kubernetes'],
  metadataFinalizers: [],
});

/** A teardown that ran out of time, after `remediate: safe`, with an ignore entry and a warning in the action's words. */
const teardown: Report = {
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'teardown',
  verdict: 'leftovers',
  cluster: { server: 'https://127.0.0.1:6443', version: 'v1.37.2', context: 'c' },
  teardown: {
    stages: [],
    namespaces: [namespace('pr-1', 'stuck'), namespace('pr-2', 'not-waited')],
    hookLeftovers: [],
    errors: [
      `namespace pr-2: still Terminating when the overall timeout ran out after 5 s (raise ${inputRef(Inputs.timeout)})`,
    ],
    durationMs: 0,
    timedOut: true,
  },
  remediation: {
    mode: 'safe',
    results: [],
    skipped: [],
    counts: { done: 0, failed: 0, skipped: 0 },
    findingsBefore: 1,
  },
  findings: [finding],
  failing: [finding.key],
  suppressed: [{ entry: '{"code":"HelmLeftover"}', count: 2 }],
  warnings: [`${inputWord(Inputs.forceRemoveFinalizers)} names example.com/x, which no finding holds`],
};

const error: Report = {
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'scan',
  verdict: 'error',
  cluster: { server: '', version: '', context: '' },
  warnings: [],
  error: `${inputWord(Inputs.kubeconfig)}: no such file '/nope'; give a path to a kubeconfig file`,
};

test("the CLI's markdown names flags and the command, where the action's names inputs and the mode", () => {
  const cli = renderMarkdown(teardown, 'cli') + renderMarkdown(error, 'cli');
  for (const words of [
    'command `teardown`',
    '(the overall `--timeout` ran out)',
    'raise `--stage-timeout`',
    'raise --timeout',
    '### Remediation (--remediate safe)',
    'over --fail-on',
    'Suppressed by --ignore',
    '--force-remove-finalizers names example.com/x',
    "--kubeconfig: no such file '/nope'",
  ])
    expect(cli).toContain(words);
  expect(cli).not.toMatch(
    /input '|inputs '|remediate: safe|fail-on policy|mode `|`timeout`|`stage-timeout`|by ignore/,
  );

  const action = renderMarkdown(teardown) + renderMarkdown(error, 'action');
  for (const words of [
    'mode `teardown`',
    '(the overall `timeout` ran out)',
    'raise `stage-timeout`',
    "raise 'timeout'",
    '### Remediation (remediate: safe)',
    'over the fail-on policy',
    'Suppressed by ignore',
    "input 'force-remove-finalizers' names example.com/x",
    "input 'kubeconfig': no such file '/nope'",
  ])
    expect(action).toContain(words);
  expect(action).not.toMatch(/--[a-z]/);
});

test('for the PR comment and check run (hideServer), the API server and context are left out, also from an error', () => {
  const failed: Report = {
    ...teardown,
    cluster: { server: 'https://10.0.0.7:6443', version: 'v1.37.2', context: 'prod-admin' },
    error: 'could not reach https://10.0.0.7:6443: connect ECONNREFUSED',
  };
  const summary = renderMarkdown(failed);
  expect(summary).toContain('Cluster `https://10.0.0.7:6443` (Kubernetes v1.37.2, context `prod-admin`)');
  for (const face of ['action', 'cli'] as const) {
    const published = renderMarkdown(failed, face, { hideServer: true });
    expect(published).not.toContain('10.0.0.7');
    expect(published).not.toContain('prod-admin');
    expect(published).toContain('(the API server and context are not published here: ');
  }
  expect(renderMarkdown(failed, 'action', { hideServer: true })).toContain(
    'not published here: publish-server)',
  );
  expect(renderMarkdown(failed, 'cli', { hideServer: true })).toContain(
    'not published here: --publish-server)',
  );
});
