import { codeSpan, escapeMarkdown } from './escape.js';
import type { InventoryReport } from './inventory-report.js';

const headline: Record<InventoryReport['verdict'], string> = {
  complete: '✅ kube-sweep read the whole cluster',
  partial: '⚠️ kube-sweep could not read all of the cluster',
  error: '❌ kube-sweep could not run',
};

/** Pure: renders the job summary of an inventory run (GitHub-flavoured markdown). */
export function renderInventoryMarkdown(report: InventoryReport): string {
  const out: string[] = [];
  out.push(`## ${headline[report.verdict]}`, '');
  if (report.error) {
    out.push(escapeMarkdown(report.error), '');
    return out.join('\n');
  }
  out.push(
    `Cluster ${codeSpan(report.cluster.server)} (${escapeMarkdown(report.cluster.version)}, context ${codeSpan(report.cluster.context)}), ` +
      `read at ${report.takenAt}: **${report.objectCount}** objects of **${Object.keys(report.counts).length}** resources ` +
      `in **${report.namespaceCount}** namespaces.`,
    '',
  );
  if (report.coverage.length > 0) {
    out.push('### What could not be read', '', 'Findings about these resources would be incomplete.', '');
    out.push('| resource | reason | message |', '| --- | --- | --- |');
    for (const gap of report.coverage) {
      const hint = gap.hint ? ` (grant: ${codeSpan(gap.hint)})` : '';
      out.push(`| ${codeSpan(gap.resource)} | ${gap.reason} | ${escapeMarkdown(gap.message)}${hint} |`);
    }
    out.push('');
  }
  out.push('<details><summary>Objects per resource</summary>', '');
  out.push('| resource | objects |', '| --- | ---: |');
  for (const [resource, count] of Object.entries(report.counts))
    out.push(`| ${codeSpan(resource)} | ${count} |`);
  out.push('', '</details>', '');
  const s = report.stats;
  out.push(
    `Discovery ${s.discoveryMs} ms; lists ${s.listMs} ms (${s.resourcesListed} resources, ${s.pages} pages, ${s.requests} requests).`,
  );
  return out.join('\n') + '\n';
}
