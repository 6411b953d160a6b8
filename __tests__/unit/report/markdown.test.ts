import { fitSummary, renderRemediation } from '../../../src/report/markdown.js';
import { renderFindings } from '../../../src/report/findings-markdown.js';
import { blockerFate, keptAfterRun } from '../../../src/report/teardown-markdown.js';
import { firstAction, rootCausesOf } from '../../../src/report/root-causes.js';
import type { Finding } from '../../../src/rules/findings.js';

const finding = (key: string, causedBy?: string[]): Finding =>
  ({
    key,
    code: 'StaleAPIService',
    rule: 'r',
    severity: 'error',
    object: { apiVersion: 'v1', kind: 'Namespace', name: `<b>${key}</b>` },
    message: 'a | b',
    evidence: ['e1'],
    ...(causedBy ? { causedBy } : {}),
    remediation: { summary: 'do it', commands: ['kubectl delete apiservice x'] },
    scope: 'cluster',
  }) as Finding;

test('findings are grouped under their root cause, cluster text is inert', () => {
  const lines = renderFindings([finding('root'), finding('child', ['root'])], new Set(['root'])).join('\n');
  expect(lines).toContain('### 1 root cause, 1 linked finding (2 findings, 1 over the fail-on policy)');
  // Only the root has a table row, saying how many findings it explains; the child is listed under it.
  expect(lines.match(/^\| 🔴 /gm)).toHaveLength(1);
  expect(lines).toMatch(
    /^\| 🔴 \| \*\*`StaleAPIService`\*\* \| .* \| root cause of 1: `StaleAPIService` \| do it \|$/m,
  );
  expect(lines).toContain('(root cause of 1)');
  expect(lines).toContain('a \\| b');
  expect(lines).not.toContain('<b>');
  expect(lines).toContain('```sh\nkubectl delete apiservice x\n```');
});

const about = (key: string, object: Finding['object'], extra: Partial<Finding> = {}): Finding =>
  ({ ...finding(key), object, ...extra }) as Finding;

test('two root findings about the same object are one entry; info roots that pass are notes', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'gone', name: 'settings' };
  const hook = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'x', name: 'hook' };
  const findings = [
    about('a', cm),
    about('b', cm, { code: 'OrphanInMissingNamespace' }),
    about('c', cm, { causedBy: ['a'] }),
    about('d', hook, { severity: 'info', code: 'HelmLeftover' }),
  ];
  const roots = rootCausesOf(findings, new Set(['a', 'b', 'c']));
  expect(
    roots.causes.map((r) => [r.finding.key, r.sameObject.map((f) => f.key), r.explains.map((f) => f.key)]),
  ).toEqual([['a', ['b'], ['c']]]);
  expect(roots.notes.map((r) => r.finding.key)).toEqual(['d']);
  expect(roots.linked).toBe(1);
  const text = renderFindings(findings, new Set(['a', 'b', 'c'])).join('\n');
  expect(text).toContain(
    '### 1 root cause, 1 linked finding, 1 note (4 findings, 3 over the fail-on policy)',
  );
  expect(text.match(/`ConfigMap gone\/settings`/g)).toHaveLength(2); // the row, and what it causes in the details
  expect(text).toContain('**`StaleAPIService`** + **`OrphanInMissingNamespace`**');
});

test('a cycle of links still shows every finding once', () => {
  const findings = [finding('x', ['y']), finding('y', ['x'])];
  const roots = rootCausesOf(findings);
  expect(roots.causes.length + roots.linked).toBe(2);
});

test('the first safe action is the whole first sentence of the remedy', () => {
  const f = (summary: string) =>
    firstAction({ ...finding('k'), remediation: { summary, commands: [] } } as Finding);
  // Never cut at a `;` or `:` inside the sentence: what follows may be the action itself.
  expect(f('Recreate namespace a.b and delete it normally, so that X; or delete it.')).toBe(
    'Recreate namespace a.b and delete it normally, so that X; or delete it.',
  );
  expect(f('Let the controller finish: reinstall operator op. Later.')).toBe(
    'Let the controller finish: reinstall operator op.',
  );
  expect(f('Run `helm status a. b` again. Then.')).toBe('Run `helm status a. b` again.');
  expect(f('Delete APIService v1.x.example.com. Then retry.')).toBe('Delete APIService v1.x.example.com.');
  expect(f('no stop')).toBe('no stop');
  expect(f('Resolve what holds them (see the findings: a, b). Then go.')).toBe(
    'Resolve what holds them (see the findings: a, b).',
  );
});

test('kept objects say what became of them after the run', () => {
  const teardown = {
    stages: [
      {
        kept: [
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'gone-ns', name: 'state' },
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'stays', name: 'cfg' },
        ],
      },
    ],
    namespaces: [
      { name: 'gone-ns', status: 'deleted' },
      { name: 'stays', status: 'stuck' },
    ],
  } as unknown as Parameters<typeof keptAfterRun>[0];
  expect(keptAfterRun(teardown).map((k) => `${k.object.name}: ${k.fate}`)).toEqual([
    'state: then deleted with its namespace',
    'cfg: still there',
  ]);
  // The same holds for objects left after their stage's wait.
  const deleted = new Set(['gone-ns']);
  expect(blockerFate({ namespace: 'gone-ns' }, deleted)).toBe('gone later, with its namespace');
  expect(blockerFate({ namespace: 'stays' }, deleted)).toBe('still there when its stage ended');
  expect(blockerFate({}, deleted)).toBe('still there when its stage ended');
});

test('a summary over the limit is cut at a block boundary, fences and details closed, with a note', () => {
  const table = [
    '| a | b |',
    '| --- | --- |',
    ...Array.from({ length: 200 }, (_, i) => `| row ${i} | ${'x'.repeat(50)} |`),
  ].join('\n');
  const details = [
    '<details><summary>s</summary>',
    '',
    '```sh',
    ...Array.from({ length: 200 }, () => 'y'.repeat(60)),
    '```',
    '',
    '</details>',
  ].join('\n');
  const markdown = ['## head', '', table, '', details, '', table].join('\n');
  const cut = fitSummary(markdown, '/tmp/report.json', 20_000);
  expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(20_000);
  expect(cut).toContain('The summary was cut');
  expect(cut).toContain('/tmp/report.json');
  expect((cut.match(/^```/gm) ?? []).length % 2).toBe(0);
  expect((cut.match(/<details>/g) ?? []).length).toBe((cut.match(/<\/details>/g) ?? []).length);
  // Every table row that made it is whole.
  for (const line of cut.split('\n').filter((l) => l.startsWith('| row')))
    expect(line).toMatch(/^\| row \d+ \| x{50} \|$/);
  expect(fitSummary('small', '/r', 20_000)).toBe('small');
});

test('remediation: each action with its request and result, what was left alone, cluster text inert', () => {
  const lines = renderRemediation({
    mode: 'safe',
    results: [
      {
        action: { type: 'delete-apiservice', name: 'v1.x.example.com', because: ['StaleAPIService:x'] },
        description: 'delete APIService v1.x.example.com (its backend is gone)',
        request: 'DELETE /apis/apiregistration.k8s.io/v1/apiservices/v1.x.example.com',
        status: 'done',
        message: 'deleted',
      },
      {
        action: { type: 'recreate-namespace', namespace: 'n', because: ['OrphanInMissingNamespace:y'] },
        description: 'create namespace n again (it is gone but still stores objects)',
        request: 'POST /api/v1/namespaces',
        status: 'failed',
        message: 'HTTP 403: <b>forbidden</b> | x',
      },
    ],
    skipped: [{ finding: 'StaleAPIService:z', reason: 'its backend is outside the scope of the inputs' }],
    counts: { done: 1, failed: 1, skipped: 1 },
    findingsBefore: 5,
  });
  const text = lines.join('\n');
  expect(text).toContain('### Remediation (remediate: safe)');
  expect(text).toContain('1 action(s) done, 1 failed, 1 finding(s) left alone; 5 finding(s) before');
  expect(text).toContain(
    '| delete APIService v1.x.example.com \\(its backend is gone\\) | `DELETE /apis/apiregistration.k8s.io/v1/apiservices/v1.x.example.com` | ✅ deleted |',
  );
  expect(text).toContain('❌ failed:');
  expect(text).not.toContain('<b>');
  expect(text).toContain('&lt;b&gt;forbidden&lt;/b&gt; \\| x |');
  expect(text).toContain('- `StaleAPIService:z`: its backend is outside the scope of the inputs');
});
