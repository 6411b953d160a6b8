import type { BaselineSummary } from './baseline.js';
import { codeSpan, escapeMarkdown } from './escape.js';
import type { ReportFinding } from './report.js';
import { objectLabel } from './root-causes.js';

/** How many new and resolved findings the summary names before "and N more". */
export const baselineListLimit = 20;

const line = (f: { code: string; severity: string; object: ReportFinding['object']; message: string }) =>
  `- ${f.severity} ${codeSpan(f.code)} ${codeSpan(objectLabel(f.object))}: ${escapeMarkdown(f.message)}`;

/** Pure: at most `limit` lines, then how many more there are. */
function capped<T>(items: readonly T[], render: (item: T) => string, limit: number): string[] {
  return [
    ...items.slice(0, limit).map(render),
    ...(items.length > limit
      ? [`- … and ${items.length - limit} more (the JSON report lists them all)`]
      : []),
  ];
}

/**
 * Pure: what the summary opens with when a baseline was given: counts, then the new findings
 * and the resolved ones (each named, at most `baselineListLimit` of each).
 */
export function renderBaseline(
  summary: BaselineSummary,
  findings: readonly ReportFinding[],
  limit = baselineListLimit,
): string[] {
  const fresh = findings.filter((f) => f.baseline === 'new');
  const since = summary.generatedAt ? ` of ${escapeMarkdown(summary.generatedAt)}` : '';
  const out = [
    `### Since the baseline${since}: ${fresh.length} new, ${summary.resolved.length} resolved, ${summary.still} still there`,
    '',
  ];
  if (fresh.length) out.push('New:', '', ...capped(fresh, line, limit), '');
  if (summary.resolved.length) out.push('Resolved:', '', ...capped(summary.resolved, line, limit), '');
  return out;
}

/** Pure: the same for a terminal (no markdown). */
export function textBaseline(summary: BaselineSummary, findings: readonly ReportFinding[]): string[] {
  const fresh = findings.filter((f) => f.baseline === 'new');
  const label = (f: { code: string; object: ReportFinding['object'] }) =>
    `${f.code} ${objectLabel(f.object)}`;
  return [
    `since the baseline${summary.generatedAt ? ` of ${summary.generatedAt}` : ''}: ${fresh.length} new, ${summary.resolved.length} resolved, ${summary.still} still there`,
    ...fresh.map((f) => `  new: ${label(f)}`),
    ...summary.resolved.map((f) => `  resolved: ${label(f)}`),
  ];
}
