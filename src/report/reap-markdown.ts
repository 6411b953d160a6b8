import { codeSpan, escapeMarkdown } from './escape.js';
import { inputName, type Face } from './face.js';
import type { ReapSummary } from './report.js';

const outcomeIcon: Record<string, string> = {
  reaped: '✅',
  'would-reap': '📋',
  failed: '❌',
  kept: '⏸️',
  refused: '⛔',
};

/** Pure: seconds with one decimal, or a dash. */
const seconds = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);

/**
 * Pure: the reap's table, one row per environment: id, its namespaces, why abandoned (or why
 * kept), outcome, duration, and the root cause of anything its teardown left.
 */
export function renderReap(reap: ReapSummary, face: Face = 'action'): string[] {
  const count = (o: string) => reap.environments.filter((e) => e.outcome === o).length;
  const parts = ['reaped', 'would-reap', 'failed', 'kept', 'refused']
    .filter((o) => count(o) > 0)
    .map((o) => `${count(o)} ${o}`);
  if (reap.environments.length === 0)
    return [
      `### Environments: none found (${inputName(face, 'environments')}, ${inputName(face, 'environment-label')})`,
      '',
    ];
  return [
    `### Environments: ${parts.join(', ')}`,
    '',
    '| environment | namespaces | why | outcome | duration | root cause of what is left |',
    '| --- | --- | --- | --- | --- | --- |',
    ...reap.environments.map(
      (e) =>
        `| ${codeSpan(e.id)} | ${e.namespaces.map(codeSpan).join(' ')} | ${escapeMarkdown(e.reasons.join('; '))} | ${outcomeIcon[e.outcome] ?? ''} ${e.outcome}${e.error ? `: ${escapeMarkdown(e.error)}` : ''} | ${seconds(e.durationMs)} | ${e.rootCause ? codeSpan(e.rootCause) : '—'} |`,
    ),
    '',
  ];
}

/** Pure: the same for a terminal. */
export function textReap(reap: ReapSummary): string[] {
  return reap.environments.map(
    (e) =>
      `environment ${e.id} (${e.namespaces.join(', ')}): ${e.outcome}${e.durationMs !== undefined ? ` in ${seconds(e.durationMs)}` : ''}: ${e.reasons.join('; ')}${e.rootCause ? `; left: ${e.rootCause}` : ''}${e.error ? `; ${e.error}` : ''}`,
  );
}
