import { inFaceTerms } from '../../../src/report/face.js';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetClusterOf, fleetVerdict, sortFleet, type FleetSummary } from '../../../src/report/fleet.js';
import { renderFleet } from '../../../src/report/fleet-markdown.js';
import { readReportFiles } from '../../../src/report/merge-files.js';
import type { Report, ReportFinding } from '../../../src/report/report.js';
import { findingKey } from '../../../src/rules/findings.js';
import { schemaErrors } from '../support/report-schema.js';

const finding = (code: string, name: string, extra: Partial<ReportFinding> = {}): ReportFinding =>
  ({
    key: findingKey(code as ReportFinding['code'], { apiVersion: 'v1', kind: 'Namespace', name }),
    code,
    rule: 'r',
    severity: 'error',
    object: { apiVersion: 'v1', kind: 'Namespace', name },
    message: 'm',
    evidence: [],
    remediation: { summary: 's', commands: [] },
    scope: 'cluster',
    ...extra,
  }) as ReportFinding;

const report = (name: string, findings: ReportFinding[], extra: Partial<Report> = {}): Report => ({
  schemaVersion: 1,
  tool: 'kube-sweep',
  toolVersion: '0.1.0',
  generatedAt: '2026-12-01T06:00:00.000Z',
  mode: 'scan',
  verdict: findings.length ? 'leftovers' : 'clean',
  cluster: { name, server: 'https://10.0.0.1:6443', version: 'v1.37.2', context: `ctx-${name}` },
  findings,
  warnings: [],
  ...extra,
});

describe('fleet', () => {
  test("the merge's own fail-on judges each cluster, not the cluster's verdict", () => {
    const warn = finding('StuckFinalizer', 'a', { severity: 'warning' });
    const strict = fleetClusterOf('a.json', report('a', [warn]), { severity: 'warning', codes: [] }, false);
    const lenient = fleetClusterOf('a.json', report('a', [warn]), { severity: 'error', codes: [] }, false);
    expect(strict.failing).toEqual([warn.key]);
    expect(lenient.failing).toEqual([]);
    expect(fleetVerdict({ clusters: [strict], unreadable: [] })).toBe('leftovers');
    expect(fleetVerdict({ clusters: [lenient], unreadable: [] })).toBe('clean');
  });

  test('fail-on-new: a finding still there from its baseline does not fail the fleet', () => {
    const still = finding('StaleAPIService', 'x', { baseline: 'still' });
    const fresh = finding('StaleAPIService', 'y', { baseline: 'new' });
    const c = fleetClusterOf('a.json', report('a', [still, fresh]), { severity: 'error', codes: [] }, true);
    expect(c.failing).toEqual([fresh.key]);
    const only = fleetClusterOf('a.json', report('a', [still]), { severity: 'error', codes: [] }, true);
    expect(fleetVerdict({ clusters: [only], unreadable: [] })).toBe('clean');
  });

  test('an unreadable report, a cluster that could not run or no report at all: partial, never clean', () => {
    const clean = fleetClusterOf('a.json', report('a', []), { severity: 'error', codes: [] }, false);
    const stopped = fleetClusterOf(
      'b.json',
      report('b', [], { verdict: 'error', error: 'unreachable' }),
      { codes: [] },
      false,
    );
    expect(fleetVerdict({ clusters: [clean], unreadable: [{ file: 'c.json', problem: 'p' }] })).toBe(
      'partial',
    );
    expect(fleetVerdict({ clusters: [clean, stopped], unreadable: [] })).toBe('partial');
    expect(fleetVerdict({ clusters: [], unreadable: [] })).toBe('partial');
    expect(fleetVerdict({ clusters: [clean], unreadable: [] })).toBe('clean');
  });

  test('the summary: a row per cluster with counts, new since baseline and the worst root cause, then each one’s root causes', () => {
    const worst = finding('StaleAPIService', 'v1.metrics', {
      object: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: 'v1.metrics' },
      remediation: { summary: 'Delete the APIService whose backend is gone.', commands: [] },
      baseline: 'new',
    });
    const b = report('staging', [worst], {
      baseline: { path: 'b.json', new: 1, still: 0, resolved: [finding('X', 'old')] },
    });
    const fleet: FleetSummary = sortFleet({
      clusters: [
        fleetClusterOf('s.json', b, { severity: 'error', codes: [] }, false),
        fleetClusterOf('d.json', report('dev', []), { severity: 'error', codes: [] }, false),
      ],
      unreadable: [{ file: 'eu.json', problem: 'schemaVersion 2, which this kube-sweep does not read' }],
    });
    expect(fleet.clusters.map((c) => c.name)).toEqual(['dev', 'staging']);
    const merged = report('', [], { mode: 'merge', verdict: fleetVerdict(fleet), fleet });
    expect(schemaErrors(merged)).toEqual([]);
    const md = renderFleet(merged, fleet);
    expect(md).toMatch(/^## ❌ kube-sweep fleet: findings over fail-on in 1 of 2 cluster\(s\)/);
    expect(md).toContain('- `eu.json`: schemaVersion 2, which this kube-sweep does not read');
    expect(md).toContain('| `dev` | ✅ clean | 0 | 0 | 0 | 0 | — | — |');
    expect(md).toMatch(
      /\| `staging` \| ❌ leftovers \| 1 \| 1 \| 0 \| 0 \| 1 new, 1 resolved \| `StaleAPIService` `APIService v1.metrics`: Delete the APIService whose backend is gone\. \|/,
    );
    expect(md).toContain(
      '### staging (context `ctx-staging`, scan, 2026-12-01T06:00:00.000Z, kube-sweep 0.1.0)',
    );
    expect(md).toContain('| 🔴 | **`StaleAPIService`** (new) | `APIService v1.metrics` | 0 |');
    expect(md).not.toContain('### dev');
    expect(md).not.toContain('10.0.0.1');
  });
});

describe('readReportFiles', () => {
  test('reads what the globs match; a cut-short file or an unknown schemaVersion is named, not thrown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-'));
    mkdirSync(join(dir, 'kube-sweep-dev'));
    mkdirSync(join(dir, 'kube-sweep-eu'));
    writeFileSync(join(dir, 'kube-sweep-dev', 'report.json'), JSON.stringify(report('dev', [])));
    writeFileSync(join(dir, 'kube-sweep-eu', 'report.json'), JSON.stringify(report('eu', [])).slice(0, 60));
    writeFileSync(
      join(dir, 'kube-sweep-eu', 'old.json'),
      JSON.stringify({ ...report('eu', []), schemaVersion: 9 }),
    );
    writeFileSync(join(dir, 'notes.txt'), 'not matched');
    const { reports, unreadable } = await readReportFiles(['kube-sweep-*/*.json'], dir);
    expect(reports.map((r) => [r.file, r.report.cluster.name])).toEqual([
      ['kube-sweep-dev/report.json', 'dev'],
    ]);
    expect(unreadable).toEqual([
      { file: 'kube-sweep-eu/old.json', problem: expect.stringContaining('schemaVersion 9') },
      { file: 'kube-sweep-eu/report.json', problem: expect.stringContaining('not complete JSON, truncated') },
    ]);
  });

  test('globs that match nothing are an error naming the input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-'));
    const error = await readReportFiles(['reports/*.json'], dir).catch((e: Error) => e);
    expect(inFaceTerms('action', (error as Error).message)).toMatch(
      /input 'reports' \(reports\/\*\.json\) matches no file/,
    );
    expect(inFaceTerms('cli', (error as Error).message)).toMatch(
      /^--reports \(reports\/\*\.json\) matches no file/,
    );
  });
});
