/**
 * The findings' sections of the summary (renderMarkdown, markdown.ts): root causes first, then
 * their details. Pure renderers over the report's findings; `objectName` names an object the
 * way every section does.
 */
import { codeBlock, codeSpan, escapeMarkdown } from './escape.js';
import type { Finding } from '../rules/findings.js';
import { firstAction, rootCauseLabel, rootCausesOf, type RootCause, type RootCauses } from './root-causes.js';
import type { Face } from './face.js';

/** An object as the summary names it: `Kind namespace/name` in a code span. */
export function objectName(b: { kind: string; namespace?: string; name: string }): string {
  return codeSpan(`${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}`);
}

export const severityIcon: Record<Finding['severity'], string> = { error: '🔴', warning: '🟠', info: '🔵' };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `root cause of N: CodeA, CodeB` (each code once), or '—' when it explains nothing. */
function explainsText(r: RootCause): string {
  if (r.explains.length === 0) return '—';
  const codes = [...new Set(r.explains.map((f) => f.code))];
  return `root cause of ${r.explains.length}: ${codes.map(codeSpan).join(', ')}`;
}

/** The codes of an entry (its finding and the others about the same object), failing ones in bold. */
function codesOf(r: RootCause, failing: ReadonlySet<string>): string {
  return [r.finding, ...r.sameObject]
    .map((f) => (failing.has(f.key) ? `**${codeSpan(f.code)}**` : codeSpan(f.code)))
    .join(' + ');
}

/** One line of a note: code, object, what it explains, the message. */
export function rootCauseLine(r: RootCause): string {
  return `${codeSpan(r.finding.code)} ${objectName(r.finding.object)}: ${escapeMarkdown(r.finding.message)}`;
}

/**
 * Pure: the first screen of the findings: a heading that counts root causes and the findings
 * they explain separately, then one table row per root cause (severity, code, object, how many
 * findings it explains, the first safe action). Informational entries that do not fail the step
 * are left to the notes; evidence and remedies to `renderRootCauseDetails`.
 */
export function renderRootCauses(
  findings: readonly Finding[],
  roots: RootCauses,
  failing: ReadonlySet<string>,
  face: Face = 'action',
): string[] {
  if (findings.length === 0) return ['### Findings: none', ''];
  const policy = face === 'cli' ? '--fail-on' : 'the fail-on policy';
  const over =
    failing.size === findings.length && failing.size > 0
      ? `all ${failing.size} over ${policy}`
      : `${failing.size} over ${policy}`;
  const parts = [
    plural(roots.causes.length, 'root cause'),
    plural(roots.linked, 'linked finding'),
    ...(roots.notes.length ? [plural(roots.notes.length, 'note')] : []),
  ];
  const out = [`### ${parts.join(', ')} (${plural(findings.length, 'finding')}, ${over})`, ''];
  if (roots.causes.length === 0)
    return [...out, `No finding crosses ${policy}: they are informational notes (below).`, ''];
  out.push('| | code | object | explains | first safe action |', '| --- | --- | --- | --- | --- |');
  for (const r of roots.causes)
    out.push(
      `| ${severityIcon[r.finding.severity]} | ${codesOf(r, failing)} | ${r.group.length ? escapeMarkdown(rootCauseLabel(r)) : objectName(r.finding.object)} | ${explainsText(r)} | ${escapeMarkdown(firstAction(r.finding))} |`,
    );
  out.push(
    '',
    'Evidence and the whole remedy of each, safest first: under **Root causes in detail** below.',
    '',
  );
  return out;
}

/**
 * Pure: each root cause (and note) folded: its message and evidence, the findings it explains,
 * and its remedy as a shell block, safest first. The other findings about the same object are
 * shown in the same entry, so one object has one remedy sequence.
 */
export function renderRootCauseDetails(roots: RootCauses): string[] {
  const entries = [...roots.causes, ...roots.notes];
  if (entries.length === 0) return [];
  const out = ['### Root causes in detail', ''];
  for (const r of entries) {
    const f = r.finding;
    const title = `${severityIcon[f.severity]} ${escapeMarkdown(f.code)}: ${escapeMarkdown(rootCauseLabel(r))}${r.explains.length ? ` (root cause of ${r.explains.length})` : ''}`;
    out.push(`<details><summary>${title}</summary>`, '', escapeMarkdown(f.message), '');
    for (const e of f.evidence) out.push(`- ${escapeMarkdown(e)}`);
    if (r.group.length) {
      out.push('', 'The same remedy covers these findings too:');
      for (const g of r.group)
        out.push(`- ${codeSpan(g.code)} ${objectName(g.object)}: ${escapeMarkdown(g.message)}`);
    }
    for (const other of r.sameObject) {
      out.push('', `Also about this object: ${codeSpan(other.code)}: ${escapeMarkdown(other.message)}`, '');
      for (const e of other.evidence) out.push(`- ${escapeMarkdown(e)}`);
    }
    if (r.explains.length) {
      out.push('', 'This causes:');
      for (const c of r.explains)
        out.push(`- ${codeSpan(c.code)} ${objectName(c.object)}: ${escapeMarkdown(c.message)}`);
    }
    out.push('', `**Remedy:** ${escapeMarkdown(f.remediation.summary)}`, '');
    if (f.remediation.commands.length) out.push(...codeBlock('sh', f.remediation.commands), '');
    out.push('</details>', '');
  }
  return out;
}

/**
 * Pure: the findings section on its own (root causes, then their details): what the summary
 * shows of `findings`. `failing`: keys over the fail-on policy.
 */
export function renderFindings(findings: readonly Finding[], failing: ReadonlySet<string>): string[] {
  const roots = rootCausesOf(findings, failing);
  return [...renderRootCauses(findings, roots, failing), ...renderRootCauseDetails(roots)];
}
