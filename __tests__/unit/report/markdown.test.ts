import { fitSummary, renderFindings, renderRemediation } from '../../../src/report/markdown.js';
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
  expect(lines).toContain('### Findings (2, 1 over the fail-on policy)');
  // Only the root has a table row; the child is listed under it.
  expect(lines.match(/^\| 🔴 /gm)).toHaveLength(1);
  expect(lines).toContain('(root cause of 1)');
  expect(lines).toContain('a \\| b');
  expect(lines).not.toContain('<b>');
  expect(lines).toContain('```sh\nkubectl delete apiservice x\n```');
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
