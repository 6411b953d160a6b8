import type { Finding } from '../../rules/findings.js';
import type { Severity } from '../../rules/severity.js';
import { fitMarkdown } from '../markdown.js';
import { errorKind, type Report, type Verdict } from '../report.js';
import { showInvisible } from '../../util/show-invisible.js';
import type { GitHubContext } from './context.js';
import type { Octokit } from './octokit.js';

/**
 * Limits of the Checks API (GitHub REST docs, "Check runs"): at most 50 annotations per
 * request (more go in later "Update a check run" requests, which append them); `output.summary`
 * and `output.text` at most 65535 characters; an annotation's `message` and `raw_details` at
 * most 64 KB, its `title` at most 255 characters.
 */
export const checkRunLimits = {
  annotationsPerRequest: 50,
  summary: 65535,
  annotationText: 64 * 1024,
  annotationTitle: 255,
} as const;

/** One check run annotation, as the Checks API takes it. */
export interface Annotation {
  readonly path: string;
  readonly start_line: number;
  readonly end_line: number;
  readonly annotation_level: 'notice' | 'warning' | 'failure';
  readonly title: string;
  readonly message: string;
  readonly raw_details?: string;
}

/** The `output` of a check run (without annotations). */
export interface CheckRunOutput {
  readonly title: string;
  readonly summary: string;
}

/**
 * Pure: the check run's conclusion for a verdict: `success` for clean and complete,
 * `failure` for leftovers and error (the step fails too), `neutral` for planned and partial
 * (nothing was judged, or not everything could be read).
 */
export function conclusionOf(verdict: Verdict): 'success' | 'failure' | 'neutral' {
  if (verdict === 'clean' || verdict === 'complete') return 'success';
  if (verdict === 'leftovers' || verdict === 'error') return 'failure';
  return 'neutral';
}

const levels: Record<Severity, Annotation['annotation_level']> = {
  error: 'failure',
  warning: 'warning',
  info: 'notice',
};

/** Pure: `text` cut to at most `max` UTF-8 bytes, ending with '…' when it was cut. */
export function cutText(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  const bytes = Buffer.from(text).subarray(0, max - 3);
  // Drop a character split by the cut (it decodes as U+FFFD).
  return bytes.toString('utf8').replace(/\uFFFD$/, '') + '…';
}

function objectText(f: Finding): string {
  return `${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}`;
}

/**
 * Pure: one annotation per finding, on line 1 of `path` (findings are about the cluster, not
 * about a file; the workflow file is the natural anchor). Severity error → failure, warning →
 * warning, info → notice. The title and message name the code and the object; raw_details
 * carries the evidence and the remedy, a line each. They are plain text from the cluster: each
 * passes `showInvisible` (bidi, zero-width and control characters, and line breaks inside a
 * value, shown as escapes: `\u202e`, `\n`).
 */
export function annotationsOf(findings: readonly Finding[], path: string): Annotation[] {
  return findings.map((f) => {
    const details = [
      ...f.evidence,
      '',
      `Remedy: ${f.remediation.summary}`,
      ...f.remediation.commands.map((c) => `  ${c}`),
    ]
      .map((line) => showInvisible(line))
      .join('\n');
    return {
      path,
      start_line: 1,
      end_line: 1,
      annotation_level: levels[f.severity],
      title: cutText(showInvisible(`${f.code}: ${objectText(f)}`), checkRunLimits.annotationTitle),
      message: cutText(
        showInvisible(`${f.code} ${objectText(f)}: ${f.message}`),
        checkRunLimits.annotationText,
      ),
      raw_details: cutText(details, checkRunLimits.annotationText),
    };
  });
}

/** Pure: `items` in consecutive batches of at most `size` (none for an empty list). */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const verdictTitles: Record<Verdict, string> = {
  clean: 'clean',
  leftovers: 'leftovers found',
  planned: 'teardown plan, nothing was changed',
  complete: 'read the whole cluster',
  partial: 'could not read all of the cluster',
  error: 'could not run',
};

/**
 * Pure: the check run's title (verdict and finding counts) and summary (the markdown summary,
 * cut at a block boundary to the summary limit with a note pointing at the run).
 */
export function checkRunOutput(report: Report, markdown: string, runUrl?: string): CheckRunOutput {
  const findings = report.findings ?? [];
  const counts = findings.length
    ? `; ${findings.length} finding(s), ${(report.failing ?? []).length} over fail-on`
    : '';
  const where = runUrl
    ? `the job summary of [the workflow run](${runUrl})`
    : "the workflow run's job summary";
  return {
    title: `kube-sweep ${report.mode}: ${{ cancelled: 'cancelled', stopped: 'stopped before it finished', 'could-not-run': verdictTitles.error, none: verdictTitles[report.verdict] }[errorKind(report) ?? 'none']}${counts}`,
    summary: fitMarkdown(
      markdown,
      checkRunLimits.summary,
      `> ✂️ Cut to stay under GitHub's ${checkRunLimits.summary}-character limit; the whole summary is in ${where}.`,
    ),
  };
}

/** The check run's name: `kube-sweep (<mode>)`, so a teardown and a scan in one workflow differ. */
export function checkRunName(report: Report): string {
  return `kube-sweep (${report.mode})`;
}

/**
 * Creates a completed check run on `ctx.headSha` with the report's conclusion, output and the
 * first 50 annotations (POST /repos/{owner}/{repo}/check-runs), then sends the remaining
 * annotations 50 at a time (PATCH /repos/{owner}/{repo}/check-runs/{id}, which appends them).
 * @returns the check run's html_url.
 * @throws the Octokit RequestError of a failed request (403 when the token lacks
 *   `checks: write`).
 */
export async function createCheckRun(
  octokit: Octokit,
  ctx: GitHubContext,
  report: Report,
  markdown: string,
): Promise<{ status: 'created'; url: string }> {
  const output = checkRunOutput(report, markdown, ctx.runUrl);
  const [first = [], ...rest] = batches(
    annotationsOf(report.findings ?? [], ctx.workflowPath),
    checkRunLimits.annotationsPerRequest,
  );
  const where = { owner: ctx.owner, repo: ctx.repo };
  const { data } = await octokit.rest.checks.create({
    ...where,
    name: checkRunName(report),
    head_sha: ctx.headSha,
    status: 'completed',
    conclusion: conclusionOf(report.verdict),
    completed_at: new Date().toISOString(),
    ...(ctx.runUrl ? { details_url: ctx.runUrl } : {}),
    output: { ...output, ...(first.length ? { annotations: first } : {}) },
  });
  for (const annotations of rest) {
    await octokit.rest.checks.update({ ...where, check_run_id: data.id, output: { ...output, annotations } });
  }
  return { status: 'created', url: data.html_url ?? '' };
}
