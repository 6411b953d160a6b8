import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inFlagTerms, text, usage } from '../../../src/cli/index.js';
import { byFace, inputEmpty, inputRef, Inputs, inputSet, inputWord } from '../../../src/words/input-words.js';
import { inFaceTerms } from '../../../src/report/face.js';
import type { Finding } from '../../../src/rules/findings.js';
import type { Report } from '../../../src/report/report.js';
import { cli } from '../support/cli.js';

test('a missing kubeconfig is named as the --kubeconfig flag, with the fallbacks it tried', async () => {
  const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
  const home = mkdtempSync(join(tmpdir(), 'kube-sweep-home-'));
  delete process.env.KUBECONFIG;
  process.env.HOME = home;
  let r;
  try {
    r = await cli(['scan']);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  expect(r.code).toBe(2);
  expect(r.out).toContain(
    `error: --kubeconfig is not given, $KUBECONFIG is unset and ${join(home, '.kube', 'config')} does not exist; ` +
      'set --kubeconfig to a path, the kubeconfig YAML or its base64, or use --cluster kind',
  );
  expect(r.out + r.err).not.toMatch(/input '|'cluster: kind'/);
});

test('the faces render the words a message carries; prose that merely looks like an input is left alone', () => {
  const message = `${inputWord(Inputs.helm)} is 'helm'; ${inputSet(Inputs.cluster, 'kind')} and ${inputRef(Inputs.kubeconfig)}; install it ${byFace('in an earlier step', 'first')}; set ${inputSet(Inputs.deleteNamespaces, 'false')}; ${inputEmpty(Inputs.context)}`;
  expect(inFlagTerms(message)).toBe(
    "--helm is 'helm'; --cluster kind and --kubeconfig; install it first; set --delete-namespaces false; --context is not given",
  );
  expect(inFaceTerms('action', message)).toBe(
    "input 'helm' is 'helm'; 'cluster: kind' and 'kubeconfig'; install it in an earlier step; set 'delete-namespaces: false'; input 'context' is empty",
  );
  // Not a regular expression over prose: words that were not written as an input stay as they are.
  expect(inFlagTerms("input 'helm' is 'timeout'; set delete-namespaces: false")).toBe(
    "input 'helm' is 'timeout'; set delete-namespaces: false",
  );
});

test('the help is aligned in columns and says where the kubeconfig comes from', () => {
  const options = usage.split('\n').filter((l) => /^ {2}--/.test(l) && / {2,}\S/.test(l.slice(4)));
  expect(options.length).toBeGreaterThan(30);
  const column = new Set(options.map((l) => l.search(/ {2,}\S/) + l.slice(l.search(/ {2,}\S/)).search(/\S/)));
  expect(column.size).toBe(1);
  expect(usage).toMatch(
    /--kubeconfig <value> +A kubeconfig: a file path, the YAML itself, or base64 of\s+either\.\n +default: \$KUBECONFIG \(its files merged\), then ~\/\.kube\/config\n/,
  );
  expect(usage).toContain('--output <format>');
});

test('text output is plain: no markdown escapes, root causes before the teardown', () => {
  const f = (key: string, code: string, extra: Partial<Finding> = {}): Finding =>
    ({
      key,
      code,
      rule: 'r',
      severity: 'error',
      object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'n', name: 'settings (old)' },
      message: 'stored in namespace n (gone)',
      evidence: [],
      remediation: { summary: 'Recreate namespace n (then delete it). Or else.', commands: [] },
      scope: 'environment',
      ...extra,
    }) as Finding;
  const report = {
    verdict: 'leftovers',
    warnings: [`${inputWord(Inputs.stageTimeout)} capped`],
    findings: [f('a', 'OrphanInMissingNamespace'), f('b', 'OperatorGoneFinalizer', { causedBy: ['a'] })],
    failing: ['a', 'b'],
    teardown: {
      stages: [],
      hookLeftovers: [],
      errors: [],
      namespaces: [{ name: 'n', status: 'deleted', metadataFinalizers: [], blockingConditions: [] }],
    },
  } as unknown as Report;
  const out = text(report);
  expect(out).not.toMatch(/\\[()|_*]/);
  const lines = out.split('\n');
  expect(lines.slice(0, 5)).toEqual([
    'verdict: leftovers',
    '1 root cause(s), 1 linked finding(s) (2 finding(s), 2 over --fail-on)',
    'ERROR   OrphanInMissingNamespace ConfigMap n/settings (old): root cause of 1 (OperatorGoneFinalizer)',
    '        stored in namespace n (gone)',
    '        first: Recreate namespace n (then delete it).',
  ]);
  expect(out).toContain('warning: --stage-timeout capped');
  expect(lines.indexOf('  namespace n: deleted')).toBeGreaterThan(4);
});

test('text output names a group of orphans in one missing namespace by its count and names', () => {
  const orphan = (name: string): Finding =>
    ({
      key: name,
      code: 'OrphanInMissingNamespace',
      rule: 'orphan-in-missing-namespace',
      severity: 'error',
      object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'gone', name },
      message: 'stored in namespace gone, which does not exist',
      evidence: [],
      remediation: { summary: 'Recreate namespace gone (then delete it).', commands: [] },
      scope: 'environment',
    }) as Finding;
  const report = {
    verdict: 'leftovers',
    warnings: [],
    findings: ['a', 'b', 'c', 'd'].map(orphan),
    failing: ['a', 'b', 'c', 'd'],
  } as unknown as Report;
  const lines = text(report).split('\n');
  expect(lines[2]).toBe(
    'ERROR   OrphanInMissingNamespace 4 objects in missing namespace gone (ConfigMap gone/a, ConfigMap gone/b, ConfigMap gone/c and 1 more)',
  );
});
