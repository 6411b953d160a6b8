/**
 * The report schema rejects what it must: these tests make sure a schema check of a real
 * report (integration/report-schema.test.ts) can fail.
 */
import { schemaErrors, reportSchema } from '../support/report-schema.js';

/** A small valid report: a scan with one finding. */
function scanReport(): Record<string, unknown> {
  return {
    schemaVersion: 1,
    tool: 'kube-sweep',
    mode: 'scan',
    verdict: 'leftovers',
    cluster: { server: 'https://127.0.0.1:6443', version: 'v1.37.2', context: 'ci' },
    inventory: {
      takenAt: '2026-11-29T20:00:00.000Z',
      counts: { configmaps: 3 },
      objectCount: 3,
      namespaceCount: 1,
      failedGroupVersions: [],
      coverage: [],
      stats: { discoveryMs: 5, listMs: 7, resourcesListed: 1, pages: 1, requests: 2 },
    },
    findings: [
      {
        key: 'StaleAPIService:apiregistration.k8s.io/v1/APIService//v1.metrics.example.com',
        code: 'StaleAPIService',
        rule: 'apiservice-unavailable',
        severity: 'error',
        object: {
          apiVersion: 'apiregistration.k8s.io/v1',
          kind: 'APIService',
          name: 'v1.metrics.example.com',
        },
        message: 'APIService is unavailable',
        evidence: ['Available=False'],
        remediation: { summary: 'delete it', commands: ['kubectl delete apiservice v1.metrics.example.com'] },
        scope: 'cluster',
      },
    ],
    failing: ['StaleAPIService:apiregistration.k8s.io/v1/APIService//v1.metrics.example.com'],
    suppressed: [],
    warnings: [],
  };
}

test('a well-formed report is valid', () => {
  expect(schemaErrors(scanReport())).toEqual([]);
});

test('a report without a required field is rejected, naming the field', () => {
  const report = scanReport();
  delete report.verdict;
  expect(schemaErrors(report)).toContain("/ must have required property 'verdict'");
  const finding = (scanReport().findings as Record<string, unknown>[])[0]!;
  delete finding.remediation;
  expect(schemaErrors({ ...scanReport(), findings: [finding] })).toContain(
    "/findings/0 must have required property 'remediation'",
  );
});

test('a field of the wrong type or value is rejected', () => {
  expect(schemaErrors({ ...scanReport(), schemaVersion: '1' })).toContain(
    '/schemaVersion must be equal to constant',
  );
  expect(schemaErrors({ ...scanReport(), verdict: 'fine' })).toContain(
    '/verdict must be equal to one of the allowed values',
  );
  const inventory = { ...(scanReport().inventory as object), objectCount: -1 };
  expect(schemaErrors({ ...scanReport(), inventory })).toContain('/inventory/objectCount must be >= 0');
  const stamped = { ...(scanReport().inventory as object), takenAt: 'yesterday' };
  expect(schemaErrors({ ...scanReport(), inventory: stamped })).toContain(
    '/inventory/takenAt must match format "date-time"',
  );
});

test('an undeclared field is rejected (the schema changes with the report)', () => {
  expect(schemaErrors({ ...scanReport(), extra: true })).toContain('/ must NOT have additional properties');
});

test('an error verdict must say what failed', () => {
  const report = { ...scanReport(), verdict: 'error' };
  expect(schemaErrors(report)).toContain("/ must have required property 'error'");
  expect(schemaErrors({ ...report, error: 'cluster unreachable' })).toEqual([]);
});

test('the schema is draft 2020-12 and pins schemaVersion 1', () => {
  expect(reportSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  expect((reportSchema.properties as { schemaVersion: unknown }).schemaVersion).toMatchObject({ const: 1 });
});
