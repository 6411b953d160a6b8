/**
 * The summary (GitHub-flavoured markdown) of any report: `renderMarkdown` puts the sections in
 * the order a reader needs them (findings-markdown.ts, plan-markdown.ts, teardown-markdown.ts,
 * prediction-markdown.ts, and the sections of a baseline, a reap and a fleet); this file keeps
 * the headline, the cluster line, the notes, remediation, the inventory and the size limits.
 */
import { codeSpan, escapeMarkdown } from './escape.js';
import {
  errorKind,
  goneWithNamespace,
  passedWith,
  type InventorySummary,
  type Report,
  type Verdict,
} from './report.js';
import type { RemediationReport } from '../remediate/actions.js';
import { objectIdentity } from '../rules/link.js';
import { rootCausesOf, type RootCause } from './root-causes.js';
import { inFaceTerms, inputName, inputSetting, type Face } from './face.js';
import { renderBaseline } from './baseline-markdown.js';
import { renderFleet } from './fleet-markdown.js';
import { renderReap } from './reap-markdown.js';
import { renderPrediction } from './prediction-markdown.js';
import {
  objectName,
  renderRootCauseDetails,
  renderRootCauses,
  rootCauseLine,
  severityIcon,
} from './findings-markdown.js';
import { renderBlastRadius, renderPlan } from './plan-markdown.js';
import { keptAfterRun, renderDryRun, renderTeardown, type LeftoverWhy } from './teardown-markdown.js';

const headlines: Record<Verdict, string> = {
  clean: '✅ kube-sweep: clean',
  leftovers: '❌ kube-sweep: leftovers found',
  planned: '📋 kube-sweep: teardown plan (nothing was changed)',
  complete: '✅ kube-sweep read the whole cluster',
  partial: '⚠️ kube-sweep could not read all of the cluster',
  error: '❌ kube-sweep could not run',
};

/**
 * Pure: the "why" of a leftover from the report's diagnosis (`report.leftovers`): its root-cause
 * findings (code and object), or, when no finding explains it, the diagnosis's reason. Empty
 * when the report has no diagnosis for the object.
 */
function leftoverWhyOf(report: Report): LeftoverWhy {
  const byKey = new Map((report.findings ?? []).map((f) => [f.key, f]));
  return (o) => {
    const d = report.leftovers?.find((x) => objectIdentity(x.object) === objectIdentity(o));
    if (!d) return '';
    const causes = d.rootCauses.flatMap((k) => {
      const f = byKey.get(k);
      return f ? [`${codeSpan(f.code)} on ${objectName(f.object)}`] : [];
    });
    return causes.length ? causes.join('; ') : escapeMarkdown(d.reason);
  };
}

/**
 * Pure: the job summary (GitHub-flavoured markdown) of any report, also the body of the PR
 * comment and the check run's text. Cluster text is escaped. The order is what a reader needs
 * first: the verdict, then one line per root cause with the first safe action (within the first
 * screen, about 15 lines), then expected notes (warnings, kept objects, informational findings),
 * then the plan, the teardown, remediation, each root cause's evidence and remedy, and the
 * inventory. `face`: whose words name the inputs and settings (action inputs, or the CLI's
 * flags; src/report/face.ts), as the CLI's text output does. `options.hideServer`: leave the
 * API server URL and the kubeconfig context out (the PR comment and the check run, which are
 * posted through the API where the runner's masking does not apply; input publish-server), also
 * where the server URL appears inside an error or warning.
 */
export function renderMarkdown(
  report: Report,
  face: Face = 'action',
  options: { readonly hideServer?: boolean } = {},
): string {
  const markdown = report.fleet
    ? renderFleet(report, report.fleet, face)
    : renderFull(report, face, options.hideServer === true);
  return options.hideServer ? withoutServer(markdown, report.cluster.server) : markdown;
}

/** Stands in for the API server URL where it is not published. */
const serverNotPublished = '(API server not published)';

/** Pure: `markdown` with every occurrence of `server` (as written raw and as escaped) replaced. */
function withoutServer(markdown: string, server: string): string {
  if (!server) return markdown;
  return [server, escapeMarkdown(server)].reduce(
    (text, s) => text.split(s).join(serverNotPublished),
    markdown,
  );
}

function renderFull(report: Report, face: Face, hideServer: boolean): string {
  const roots = report.findings ? rootCausesOf(report.findings, new Set(report.failing ?? [])) : undefined;
  return [
    ...renderHeadline(report, face),
    ...(report.baseline ? renderBaseline(report.baseline, report.findings ?? []) : []),
    ...(report.reap ? renderReap(report.reap, face) : []),
    ...(report.plan?.blastRadius && !report.teardown ? renderBlastRadius(report.plan.blastRadius) : []),
    ...(report.teardown ? [] : renderPrediction(report)),
    ...(report.findings && roots
      ? renderRootCauses(report.findings, roots, new Set(report.failing ?? []), face)
      : []),
    ...renderClusterLine(report, face, hideServer),
    ...renderNotes(report, roots?.notes ?? [], face),
    ...(report.plan ? renderPlan(report.plan, report.findings ?? [], report.prediction) : []),
    ...(report.dryRun ? renderDryRun(report.dryRun) : []),
    ...(report.teardown ? renderTeardown(report.teardown, leftoverWhyOf(report), face) : []),
    ...(report.teardown ? renderPrediction(report) : []),
    ...(report.remediation ? renderRemediation(report.remediation, face) : []),
    ...(roots ? renderRootCauseDetails(roots) : []),
    ...(report.suppressed ?? []).flatMap((x) => [
      `Suppressed by ${inputName(face, 'ignore')} ${codeSpan(x.entry)}: ${x.count}.`,
      '',
    ]),
    ...(report.inventory ? renderInventory(report.inventory) : []),
  ].join('\n');
}

/** The verdict, and the error when the run could not do its job. */
function renderHeadline(report: Report, face: Face): string[] {
  const passed = passedWith(
    report,
    face === 'cli' ? '--fail-on' : 'the fail-on policy',
    inputName(face, 'ignore'),
  );
  const headline = report.dryRun
    ? '📋 kube-sweep: dry run of the teardown (nothing was deleted)'
    : passed
      ? `✅ kube-sweep: passed: ${passed}`
      : {
          cancelled: '⛔ kube-sweep: cancelled',
          stopped: '❌ kube-sweep stopped before it finished (what it did is below)',
          'could-not-run': headlines[report.verdict],
          none: headlines[report.verdict],
        }[errorKind(report) ?? 'none'];
  return [
    `## ${headline}`,
    '',
    ...(report.error ? [escapeMarkdown(inFaceTerms(face, report.error)), ''] : []),
  ];
}

/**
 * Which cluster, which version, which mode (after the root causes: context, not news); without
 * the server and context when `hideServer`.
 */
function renderClusterLine(report: Report, face: Face, hideServer: boolean): string[] {
  if (!report.cluster.server) return [];
  if (hideServer)
    return [
      `Kubernetes ${escapeMarkdown(report.cluster.version)}, ${face === 'cli' ? 'command' : 'mode'} ${codeSpan(report.mode)} (the API server and context are not published here: ${inputName(face, 'publish-server')}).`,
      '',
    ];
  return [
    `Cluster ${codeSpan(report.cluster.server)} (Kubernetes ${escapeMarkdown(report.cluster.version)}, context ${codeSpan(report.cluster.context)}), ${face === 'cli' ? 'command' : 'mode'} ${codeSpan(report.mode)}.`,
    '',
  ];
}

/**
 * Expected notes, after the root causes: the run's warnings, objects kept on purpose with what
 * became of them, Helm hook objects, and informational findings that do not fail the step.
 */
function renderNotes(report: Report, notes: readonly RootCause[], face: Face): string[] {
  const kept = keptAfterRun(report.teardown);
  const hooks = report.teardown?.hookLeftovers ?? [];
  const lines = [
    ...report.warnings.map((w) => `- ⚠️ ${escapeMarkdown(inFaceTerms(face, w))}`),
    ...kept.map(
      (k) => `- Kept on purpose (\`helm.sh/resource-policy: keep\`): ${objectName(k.object)}, ${k.fate}.`,
    ),
    ...(hooks.length
      ? [
          `- Left by Helm hooks (Helm never deletes hook objects without a delete policy): ${hooks
            .map((b) => {
              const of = b.release ? [`a hook of ${codeSpan(b.release)}`] : [];
              const why = goneWithNamespace(b, report.teardown!)
                ? 'then deleted with its namespace'
                : leftoverWhyOf(report)(b);
              const said = [...of, ...(why ? [why] : [])];
              return said.length ? `${objectName(b)} (${said.join('; ')})` : objectName(b);
            })
            .join(', ')}.`,
        ]
      : []),
    ...notes.map((n) => `- ${severityIcon[n.finding.severity]} ${rootCauseLine(n)}`),
  ];
  return lines.length ? ['### Notes', '', ...lines, ''] : [];
}

/** What could not be read, then the object counts (folded). */
function renderInventory(inv: InventorySummary): string[] {
  const out: string[] = [];
  if (inv.coverage.length > 0) {
    out.push('### What could not be read', '', 'Results about these resources may be incomplete.', '');
    out.push('| resource | reason | message |', '| --- | --- | --- |');
    for (const gap of inv.coverage) {
      const hint = gap.hint ? ` (grant: ${codeSpan(gap.hint)})` : '';
      out.push(`| ${codeSpan(gap.resource)} | ${gap.reason} | ${escapeMarkdown(gap.message)}${hint} |`);
    }
    out.push('');
  }
  out.push(
    `<details><summary>Inventory: ${inv.objectCount} objects of ${Object.keys(inv.counts).length} resources in ${inv.namespaceCount} namespaces</summary>`,
    '',
    '| resource | objects |',
    '| --- | ---: |',
  );
  for (const [resource, count] of Object.entries(inv.counts))
    out.push(`| ${codeSpan(resource)} | ${count} |`);
  const s = inv.stats;
  out.push(
    '',
    `Discovery ${s.discoveryMs} ms; lists ${s.listMs} ms (${s.resourcesListed} resources, ${s.pages} pages, ${s.requests} requests).`,
    '',
    '</details>',
    '',
  );
  return out;
}

/** Pure: the actions of `remediate: safe` with their results, and what was left alone. */
export function renderRemediation(r: RemediationReport, face: Face = 'action'): string[] {
  const out = [
    `### Remediation (${inputSetting(face, 'remediate', 'safe')})`,
    '',
    `${r.counts.done} action(s) done, ${r.counts.failed} failed, ` +
      (r.counts.refused ? `${r.counts.refused} refused by the API server, ` : '') +
      `${r.counts.skipped} finding(s) left alone; ` +
      `${r.findingsBefore} finding(s) before, the findings below are from a scan after it.`,
    '',
  ];
  if (r.results.length > 0) {
    out.push('| action | request | result |', '| --- | --- | --- |');
    for (const x of r.results)
      out.push(
        `| ${escapeMarkdown(x.description)} | ${codeSpan(x.request)} | ${{ done: '✅', failed: '❌ failed:', refused: '⛔' }[x.status]} ${escapeMarkdown(x.message)} |`,
      );
    out.push('');
  }
  if (r.skipped.length > 0) {
    out.push('<details><summary>Left alone</summary>', '');
    for (const x of r.skipped) out.push(`- ${codeSpan(x.finding)}: ${escapeMarkdown(x.reason)}`);
    out.push('', '</details>', '');
  }
  return out;
}

/** GitHub's limit for one step's job summary is 1 MiB; stay under it with room for the note. */
export const summaryLimitBytes = 1024 * 1024 - 4096;

/**
 * Pure: cuts a rendered summary to `maxBytes` at a block boundary (a blank line: tables have
 * none inside, so a table is never cut), closes an open code fence or `<details>`, and says
 * what was cut and where the whole report is.
 */
export function fitSummary(markdown: string, reportPath: string, maxBytes = summaryLimitBytes): string {
  return fitMarkdown(
    markdown,
    maxBytes,
    `> ✂️ The summary was cut to stay under GitHub's 1 MiB limit; the whole report is in ${codeSpan(reportPath)} (output \`report-path\`).`,
  );
}

/**
 * Pure: the general form of `fitSummary`: `markdown` unchanged when it takes at most
 * `maxBytes` bytes of UTF-8, else cut at a block boundary with `note` (one markdown paragraph)
 * appended, the whole at most `maxBytes` bytes. Bytes bound characters from above, so this
 * also keeps a text under a limit counted in characters (GitHub's comment and check-run limits).
 */
export function fitMarkdown(markdown: string, maxBytes: number, note: string): string {
  if (Buffer.byteLength(markdown) <= maxBytes) return markdown;
  const tail = `\n\n${note}\n`;
  let cut = Buffer.from(markdown)
    .subarray(0, Math.max(0, maxBytes - Buffer.byteLength(tail) - 32))
    .toString('utf8');
  cut = cut.slice(0, Math.max(0, cut.lastIndexOf('\n\n')));
  if ((cut.match(/^```/gm) ?? []).length % 2 === 1) cut += '\n```';
  const open = (cut.match(/<details>/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  for (let i = 0; i < open; i++) cut += '\n\n</details>';
  return cut + tail;
}
