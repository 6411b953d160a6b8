import { inFaceTerms } from '../../../src/report/face.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareWithBaseline, findingIdentity, type Baseline } from '../../../src/report/baseline.js';
import { renderBaseline, textBaseline } from '../../../src/report/baseline-markdown.js';
import { parseReport, readBaseline } from '../../../src/report/read-report.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import { findingKey, type Finding } from '../../../src/rules/findings.js';
import type { Report } from '../../../src/report/report.js';
import { schemaErrors } from '../support/report-schema.js';

const finding = (code: string, object: Finding['object'], extra: Partial<Finding> = {}): Finding =>
  ({
    key: findingKey(code as Finding['code'], object),
    code,
    rule: 'r',
    severity: 'error',
    object,
    message: `${code} about ${object.name}`,
    evidence: [],
    remediation: { summary: 's', commands: [] },
    scope: 'cluster',
    ...extra,
  }) as Finding;

const cm = (name: string, uid?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace: 'gone',
  name,
  ...(uid ? { uid } : {}),
});

describe('findingIdentity', () => {
  test('is the code and the UID when the object has one, whatever its apiVersion or name', () => {
    const a = finding('OrphanInMissingNamespace', cm('a', 'u-1'));
    const b = finding('OrphanInMissingNamespace', { ...cm('renamed', 'u-1'), apiVersion: 'v2' });
    expect(findingIdentity(a)).toBe(findingIdentity(b));
    expect(findingIdentity(a)).not.toBe(findingIdentity(finding('HelmLeftover', cm('a', 'u-1'))));
  });

  test('falls back to kind, namespace and name (not apiVersion) without a UID', () => {
    const a = finding('StuckFinalizer', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      namespace: 'n',
      name: 'w',
    });
    const b = finding('StuckFinalizer', {
      apiVersion: 'example.com/v2',
      kind: 'Widget',
      namespace: 'n',
      name: 'w',
    });
    const c = finding('StuckFinalizer', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      namespace: 'm',
      name: 'w',
    });
    expect(findingIdentity(a)).toBe(findingIdentity(b));
    expect(findingIdentity(a)).not.toBe(findingIdentity(c));
  });

  test('a recreated object (same name, new UID) is another identity', () => {
    expect(findingIdentity(finding('X', cm('a', 'u-1')))).not.toBe(
      findingIdentity(finding('X', cm('a', 'u-2'))),
    );
  });

  test('a group finding is identified by its key, not its first object', () => {
    const g = finding('StuckFinalizer', cm('first', 'u-9'), { key: 'StuckFinalizer:finalizer f in gone' });
    const h = finding('StuckFinalizer', cm('other', 'u-8'), { key: 'StuckFinalizer:finalizer f in gone' });
    expect(findingIdentity(g)).toBe(findingIdentity(h));
  });
});

describe('compareWithBaseline', () => {
  const old = finding('OrphanInMissingNamespace', cm('old', 'u-old'));
  const kept = finding('OrphanInMissingNamespace', cm('kept', 'u-kept'));
  const fresh = finding('OrphanInMissingNamespace', cm('fresh', 'u-fresh'));
  const baseline: Baseline = {
    path: 'b.json',
    generatedAt: '2026-12-01T06:00:00.000Z',
    findings: [old, kept],
  };

  test('marks new and still, lists the resolved ones, counts them', () => {
    const { findings, summary } = compareWithBaseline([kept, fresh], baseline);
    expect(findings.map((f) => [f.object.name, f.baseline])).toEqual([
      ['kept', 'still'],
      ['fresh', 'new'],
    ]);
    expect(summary).toEqual({
      path: 'b.json',
      generatedAt: '2026-12-01T06:00:00.000Z',
      new: 1,
      still: 1,
      resolved: [old],
    });
  });

  test('an empty baseline makes everything new and resolves nothing', () => {
    const { summary } = compareWithBaseline([kept, fresh], { path: 'b.json', findings: [] });
    expect([summary.new, summary.still, summary.resolved]).toEqual([2, 0, []]);
  });

  test('the summary opens with what is new and what was resolved', () => {
    const { findings, summary } = compareWithBaseline([kept, fresh], baseline);
    const md = renderBaseline(summary, findings).join('\n');
    expect(md).toMatch(
      /^### Since the baseline of 2026-12-01T06:00:00\.000Z: 1 new, 1 resolved, 1 still there/,
    );
    expect(md).toContain('New:\n\n- error `OrphanInMissingNamespace` `ConfigMap gone/fresh`');
    expect(md).toContain('Resolved:\n\n- error `OrphanInMissingNamespace` `ConfigMap gone/old`');
    expect(md).not.toContain('gone/kept');
    const report = {
      schemaVersion: 1,
      tool: 'kube-sweep',
      mode: 'scan',
      verdict: 'leftovers',
      cluster: { server: '', version: '', context: '' },
      findings,
      failing: [fresh.key],
      baseline: summary,
      warnings: [],
    } as Report;
    const whole = renderMarkdown(report);
    expect(whole.indexOf('### Since the baseline')).toBeLessThan(whole.indexOf('root cause'));
    expect(schemaErrors(report)).toEqual([]);
    expect(textBaseline(summary, findings)).toEqual([
      'since the baseline of 2026-12-01T06:00:00.000Z: 1 new, 1 resolved, 1 still there',
      '  new: OrphanInMissingNamespace ConfigMap gone/fresh',
      '  resolved: OrphanInMissingNamespace ConfigMap gone/old',
    ]);
  });

  test('long lists are cut with a count of the rest', () => {
    const many = Array.from({ length: 25 }, (_, i) => finding('X', cm(`n${i}`, `u${i}`)));
    const { findings, summary } = compareWithBaseline(many, { path: 'b', findings: [] });
    const md = renderBaseline(summary, findings).join('\n');
    expect(md.match(/^- error/gm)).toHaveLength(20);
    expect(md).toContain('- … and 5 more');
  });
});

describe('reading a report file', () => {
  const good = {
    schemaVersion: 1,
    tool: 'kube-sweep',
    mode: 'scan',
    verdict: 'clean',
    cluster: {},
    warnings: [],
    findings: [],
  };

  test.each([
    ['', /not complete JSON.*empty/],
    [JSON.stringify(good).slice(0, 40), /not complete JSON, truncated/],
    [
      JSON.stringify({ ...good, schemaVersion: 2 }),
      /schemaVersion 2, which this kube-sweep does not read \(it reads 1\)/,
    ],
    [JSON.stringify({ ...good, tool: 'other' }), /not a kube-sweep report/],
    [JSON.stringify({ ...good, verdict: undefined }), /no verdict or cluster/],
    [JSON.stringify({ ...good, findings: {} }), /`findings` is not a list/],
  ])('%s is refused with a reason', (text, reason) => {
    const parsed = parseReport(text);
    expect('problem' in parsed ? parsed.problem : '').toMatch(reason);
  });

  test('a good report is read', () => {
    expect(parseReport(JSON.stringify(good))).toEqual({ report: good });
  });

  test('readBaseline names the input and the file when it cannot be used', () => {
    const dir = mkdtempSync(join(tmpdir(), 'baseline-'));
    // Each face names the input in its own words.
    const thrown = (file: string) => {
      try {
        readBaseline(join(dir, file));
      } catch (error) {
        const m = (error as Error).message;
        return [inFaceTerms('action', m), inFaceTerms('cli', m)];
      }
      return [];
    };
    const missing = thrown('missing.json');
    expect(missing[0]).toMatch(/input 'baseline' is '.*missing.json', which cannot be read \(ENOENT\)/);
    expect(missing[1]).toMatch(
      /^--baseline is '.*missing.json', which cannot be read .* the --report-path file/,
    );
    writeFileSync(join(dir, 'cut.json'), '{"schemaVersion": 1, "tool": "kube');
    expect(thrown('cut.json')[0]).toMatch(/input 'baseline' is '.*cut.json': not complete JSON/);
    const f = finding('X', cm('a', 'u'));
    writeFileSync(
      join(dir, 'ok.json'),
      JSON.stringify({ ...good, generatedAt: '2026-12-01T06:00:00Z', findings: [f] }),
    );
    expect(readBaseline(join(dir, 'ok.json'))).toEqual({
      path: join(dir, 'ok.json'),
      generatedAt: '2026-12-01T06:00:00Z',
      findings: [f],
    });
  });
});
