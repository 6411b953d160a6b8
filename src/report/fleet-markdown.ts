import { codeSpan, escapeMarkdown } from './escape.js';
import { inputName, type Face } from './face.js';
import { Inputs } from '../words/input-words.js';
import type { FleetCluster, FleetSummary } from './fleet.js';
import type { Report } from './report.js';
import { firstAction, objectLabel, rootCausesOf } from './root-causes.js';

const verdictIcon: Record<string, string> = {
  clean: '✅',
  leftovers: '❌',
  partial: '⚠️',
  error: '❌',
  planned: '📋',
  complete: '✅',
};

/** Pure: the worst root cause of a cluster as a table cell: code, object and its first action. */
function worstCell(c: FleetCluster): string {
  const f = c.findings.find((x) => x.key === c.worstRootCause);
  if (!f) return c.error ? `run stopped: ${escapeMarkdown(c.error)}` : '—';
  return `${codeSpan(f.code)} ${codeSpan(objectLabel(f.object))}: ${escapeMarkdown(firstAction(f))}`;
}

const severityIcon: Record<string, string> = { error: '🔴', warning: '🟠', info: '🔵' };

/**
 * Pure: one cluster's root causes, one row each (the cluster's own report has the evidence and
 * the whole remedy): severity, code (bold when over fail-on), object, how many findings it
 * explains, first safe action.
 */
function clusterRootCauses(c: FleetCluster, face: Face): string[] {
  const failing = new Set(c.failing);
  const roots = rootCausesOf(c.findings, failing);
  if (roots.causes.length === 0) return [`${c.findings.length} finding(s), all informational notes.`];
  const policy = inputName(face, Inputs.failOn);
  return [
    `${roots.causes.length} root cause(s) of ${c.findings.length} finding(s), ${c.failing.length} over ${policy}:`,
    '',
    '| | code | object | explains | first safe action |',
    '| --- | --- | --- | --- | --- |',
    ...roots.causes.map((r) => {
      const code = failing.has(r.finding.key) ? `**${codeSpan(r.finding.code)}**` : codeSpan(r.finding.code);
      const isNew = (r.finding as { baseline?: string }).baseline === 'new' ? ' (new)' : '';
      return `| ${severityIcon[r.finding.severity]} | ${code}${isNew} | ${codeSpan(objectLabel(r.finding.object))} | ${r.explains.length} | ${escapeMarkdown(firstAction(r.finding))} |`;
    }),
  ];
}

/** Pure: the fleet's headline. */
function fleetHeadline(report: Report, fleet: FleetSummary): string {
  const dirty = fleet.clusters.filter((c) => c.failing.length > 0).length;
  const n = fleet.clusters.length;
  if (report.verdict === 'leftovers')
    return `## ❌ kube-sweep fleet: findings over fail-on in ${dirty} of ${n} cluster(s)`;
  if (report.verdict === 'partial')
    return `## ⚠️ kube-sweep fleet: ${n} cluster(s), not all of it could be read`;
  return `## ✅ kube-sweep fleet: ${n} cluster(s) clean`;
}

/**
 * Pure: the fleet summary of `mode: merge`: a headline, the reports that could not be read (each
 * named with its reason), one table row per cluster (verdict, counts, new since its baseline,
 * worst root cause), then each cluster's root causes.
 */
export function renderFleet(report: Report, fleet: FleetSummary, face: Face = 'action'): string {
  const out = [fleetHeadline(report, fleet), ''];
  if (fleet.unreadable.length) {
    out.push(`### ${fleet.unreadable.length} report(s) could not be read`, '');
    for (const u of fleet.unreadable) out.push(`- ${codeSpan(u.file)}: ${escapeMarkdown(u.problem)}`);
    out.push('');
  }
  out.push(
    '| cluster | verdict | over fail-on | errors | warnings | info | new since baseline | worst root cause |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const c of fleet.clusters)
    out.push(
      `| ${codeSpan(c.name)} | ${verdictIcon[c.verdict] ?? ''} ${c.verdict} | ${c.failing.length} | ${c.counts.error} | ${c.counts.warning} | ${c.counts.info} | ${c.new === undefined ? '—' : `${c.new} new, ${c.resolved ?? 0} resolved`} | ${worstCell(c)} |`,
    );
  out.push('');
  for (const c of fleet.clusters) {
    if (c.findings.length === 0 && !c.error) continue;
    const when = c.generatedAt ? `, ${escapeMarkdown(c.generatedAt)}` : '';
    const version = c.toolVersion ? `, kube-sweep ${escapeMarkdown(c.toolVersion)}` : '';
    out.push(
      `### ${escapeMarkdown(c.name)} (context ${codeSpan(c.context)}, ${c.mode}${when}${version})`,
      '',
    );
    if (c.error) out.push(escapeMarkdown(c.error), '');
    out.push(...clusterRootCauses(c, face), '');
  }
  return out.join('\n');
}

/** Pure: the fleet for a terminal: a line per unreadable report, a line per cluster. */
export function textFleet(fleet: FleetSummary): string[] {
  return [
    ...fleet.unreadable.map((u) => `could not read ${u.file}: ${u.problem}`),
    ...fleet.clusters.map((c) => {
      const worst = c.findings.find((f) => f.key === c.worstRootCause);
      const since = c.new === undefined ? '' : `, ${c.new} new, ${c.resolved ?? 0} resolved`;
      return (
        `cluster ${c.name}: ${c.verdict}, ${c.failing.length} over --fail-on (${c.counts.error} error, ${c.counts.warning} warning, ${c.counts.info} info${since})` +
        (worst ? `; worst: ${worst.code} ${objectLabel(worst.object)}` : '') +
        (c.error ? `; ${c.error}` : '')
      );
    }),
  ];
}
