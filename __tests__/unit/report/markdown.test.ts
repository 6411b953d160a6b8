import { fitSummary, renderFindings } from '../../../src/report/markdown.js';
import type { Finding } from '../../../src/report/findings.js';

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
