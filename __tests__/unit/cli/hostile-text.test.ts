/**
 * Cluster text in the CLI's text output and the markdown summary: a forged object name, release
 * status or annotation holds line breaks (LF, CR, U+2028, U+2029, NEL), bidi controls and
 * zero-width characters. Nothing of it may reach the output raw: no value prints a line of its
 * own (a fake `verdict: clean`), none reads as other text (Trojan Source).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from '../../../src/cli/index.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import type { Report } from '../../../src/report/report.js';
import type { Finding } from '../../../src/rules/findings.js';
import { cli } from '../support/cli.js';

/** Pure: hostile cluster text tagged `tag`: fake report lines behind every kind of line break, bidi and zero-width characters. */
const hostile = (tag: string) =>
  `${tag}\nverdict: clean\r\nfindings: none\rwarning: x\u2028verdict: clean\u2029findings: none\u0085` +
  `\u202eevil\u202c \u2066iso\u2069 \u200e\u200f\u061c zero\u200bwidth\u200c\u200d\u2060\ufeff end`;

/** Every character the output may not carry raw (a line break inside a line, bidi, zero-width). */
const invisible = /[\r\u0085\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;

const object = { apiVersion: 'v1', kind: 'ConfigMap', namespace: hostile('ns'), name: hostile('objname') };
const finding: Finding = {
  key: 'k1',
  code: 'HelmLeftover',
  rule: 'helm-leftover',
  severity: 'error',
  object,
  message: `claims release ${hostile('annotation')} (meta.helm.sh/release-name) that has no record`,
  evidence: [`meta.helm.sh/release-name: ${hostile('evidence')}`],
  remediation: { summary: `Delete it: ${hostile('summary')}.`, commands: [] },
  scope: 'environment',
} as Finding;

const blocker = { ...object, finalizers: [hostile('finalizer')], deletionTimestamp: '2026-01-01T00:00:00Z' };

const report = {
  schemaVersion: 1,
  tool: 'kube-sweep',
  mode: 'teardown',
  verdict: 'leftovers',
  cluster: { name: hostile('cluster'), server: '', version: '', context: hostile('context') },
  findings: [finding],
  failing: ['k1'],
  warnings: [hostile('warning')],
  plan: {
    blastRadius: {
      namespaces: [hostile('brns')],
      releases: [{ release: hostile('brrelease'), method: 'helm' }],
      clusterScoped: [
        { apiVersion: 'v1', kind: 'Namespace', name: hostile('brcs'), release: 'r', by: 'helm' },
      ],
      otherNamespaces: [{ ...object, release: hostile('brother'), by: 'kube-sweep' }],
    },
    refusals: [],
    namespaces: [hostile('planns')],
    protectedMatched: [],
    namespacesToDelete: [hostile('deletens')],
    releases: [
      {
        release: hostile('stagerelease'),
        status: hostile('releasestatus'),
        revision: 1,
        chart: hostile('chart'),
        objects: 1,
        crds: [hostile('crd')],
      },
    ],
    edges: [],
    stages: [{ index: 0, releases: [hostile('stagerelease')], crdInstancesFirst: [] }],
  },
  teardown: {
    stages: [
      {
        index: 0,
        releases: [
          {
            release: hostile('release'),
            status: 'failed',
            method: 'helm',
            helmStatusBefore: hostile('status'),
            durationMs: 1,
            message: hostile('helmerror'),
          },
        ],
        crdInstances: [],
        remaining: [blocker],
        kept: [],
        unservedKinds: [],
        unverifiableKinds: [],
        errors: [hostile('stageerror')],
        startedAt: '2026-01-01T00:00:00Z',
        endedAt: '2026-01-01T00:00:01Z',
        durationMs: 1,
        stepsMs: { crdInstances: 0, uninstall: 1, wait: 0 },
      },
    ],
    namespaces: [
      {
        name: hostile('teardownns'),
        status: 'stuck',
        message: hostile('nsmessage'),
        metadataFinalizers: [hostile('nsfinalizer')],
        blockingConditions: [
          { type: 'NamespaceFinalizersRemaining', reason: hostile('reason'), message: hostile('cond') },
        ],
      },
    ],
    hookLeftovers: [{ ...blocker, release: hostile('hookrelease') }],
    errors: [hostile('teardownerror')],
    durationMs: 1,
    timedOut: false,
  },
} as unknown as Report;

test('the CLI text output shows every line break and invisible character in cluster text: one verdict line', () => {
  const out = text(report);
  expect(out).not.toMatch(invisible);
  const lines = out.split('\n');
  expect(lines.filter((l) => l.startsWith('verdict:'))).toEqual(['verdict: leftovers']);
  expect(lines.filter((l) => /^(findings:|warning: x)/.test(l))).toEqual([]);
  // The values are still there, shown: `\n`, `\u202e`, `\u200b`.
  expect(out).toContain('objname\\nverdict: clean\\r\\nfindings: none\\rwarning: x\\u2028verdict: clean');
  expect(out).toContain('\\u202eevil\\u202c \\u2066iso\\u2069 \\u200e\\u200f\\u061c zero\\u200bwidth');
});

test('a dry run and a plan name hostile objects and releases on one line each', () => {
  const planned = {
    ...report,
    verdict: 'planned',
    teardown: undefined,
    dryRun: {
      stages: [
        {
          crdInstances: [],
          objects: [object],
          skipped: [{ release: hostile('skip'), reason: hostile('why') }],
        },
      ],
      namespaces: [hostile('drns')],
      objectCount: 2,
    },
  } as unknown as Report;
  const out = text(planned);
  expect(out).not.toMatch(invisible);
  expect(out.split('\n').filter((l) => l.startsWith('verdict:'))).toEqual(['verdict: planned']);
  expect(out.split('\n').filter((l) => l.startsWith('findings:'))).toEqual([]);
});

test('the markdown summary carries no raw bidi, zero-width or Unicode line-break character', () => {
  expect.hasAssertions();
  for (const r of [report, { ...report, teardown: undefined, verdict: 'planned' } as unknown as Report]) {
    const md = renderMarkdown(r);
    expect(md).not.toMatch(invisible);
    expect(md).toContain('\\\\u202eevil\\\\u202c');
  }
});

test('merge of a hostile report file: the text and the markdown show its cluster name and finding', async () => {
  // What a compromised matrix leg could upload: its own cluster name, context and finding text.
  const dir = mkdtempSync(join(tmpdir(), 'cli-hostile-'));
  const leg = {
    ...report,
    mode: 'scan',
    plan: undefined,
    teardown: undefined,
    cluster: { name: hostile('legname'), server: '', version: '', context: hostile('legcontext') },
  };
  writeFileSync(join(dir, 'leg.json'), JSON.stringify(leg));
  const asText = await cli(['merge', join(dir, '*.json')]);
  expect(asText.out).not.toMatch(invisible);
  expect(asText.out.split('\n').filter((l) => l.startsWith('verdict:'))).toEqual(['verdict: leftovers']);
  const asMarkdown = await cli(['merge', join(dir, '*.json'), '--output', 'markdown']);
  expect(asMarkdown.out).not.toMatch(invisible);
  expect(asMarkdown.out).toContain('legname');
});
