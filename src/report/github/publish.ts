import type { Report } from '../report.js';
import { createCheckRun } from './check-run.js';
import { readGitHubContext, type GitHubContext } from './context.js';
import { createOctokit, GitHubNetworkError, type Octokit } from './octokit.js';
import { commentBody, commentMarker, upsertComment } from './pr-comment.js';
import type { GitHubPublications, Publication } from './publications.js';
import { byFace, inputEmpty, Inputs } from '../../words/input-words.js';

/** What to publish (inputs pr-comment, check-run, github-token). */
export interface PublishSettings {
  readonly prComment: boolean;
  readonly checkRun: boolean;
  /** A token for the REST API; '' when none was given. */
  readonly token: string;
  /**
   * Input publish-server: name the API server URL and kubeconfig context in the PR comment and
   * check run (default false: text posted through the API is not masked, and on a public
   * repository it is public). The job summary and the report always name them.
   */
  readonly publishServer?: boolean;
  /**
   * ms one GitHub request may take (input `request-timeout`; default 30 s); the whole
   * publication gets `publicationBudget` of it.
   */
  readonly requestTimeoutMs?: number;
}

/** ms one GitHub request may take when `requestTimeoutMs` is not given. */
export const defaultGitHubRequestTimeoutMs = 30_000;

/**
 * Pure: the budget in ms of one publication (the comment and the check run together, pages
 * and annotation batches included): four request timeouts. A GitHub that accepts connections
 * and never answers then costs at most that, not undici's 5 minutes per request.
 */
export function publicationBudget(requestTimeoutMs: number): number {
  return 4 * requestTimeoutMs;
}

/** What publishing touches besides GitHub: the runner's variables, the log, masking. */
export interface PublishPorts {
  readonly env: NodeJS.ProcessEnv;
  readonly info: (line: string) => void;
  readonly notice: (line: string) => void;
  readonly warning: (line: string) => void;
  readonly setSecret: (value: string) => void;
  /** Aborted when the run is cancelled (SIGINT/SIGTERM): the publication stops like at the end of its budget. */
  readonly signal?: AbortSignal;
}

/** The permission a GITHUB_TOKEN needs for each publication (workflow `permissions:`). */
const permissions = { prComment: 'pull-requests: write', checkRun: 'checks: write' } as const;
const names = { prComment: 'the pull request comment', checkRun: 'the check run' } as const;

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown })?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The error's status and first line, with the token removed should it appear anywhere. A
 * request that got no answer has no status (createOctokit says what happened instead).
 */
function describe(error: unknown, token: string): string {
  const status = error instanceof GitHubNetworkError ? undefined : statusOf(error);
  const message = String((error as Error)?.message ?? error).split('\n')[0]!;
  const text = status !== undefined && !message.includes(String(status)) ? `${status} ${message}` : message;
  return token ? text.split(token).join('***') : text;
}

/**
 * Publishes the summary to GitHub as asked: a sticky pull request comment (pr-comment.ts)
 * and/or a check run (check-run.ts). Never throws and never fails the step: a 403 becomes a
 * warning that names the permission to grant, any other error a warning; both are recorded
 * in the returned section of the report.
 * @param markdown the rendered summary (uncut; each publication cuts it to its own limit).
 */
export async function publishToGitHub(
  settings: PublishSettings,
  report: Report,
  markdown: string,
  ports: PublishPorts,
): Promise<GitHubPublications> {
  const wanted = (['prComment', 'checkRun'] as const).filter((k) => settings[k]);
  if (wanted.length === 0) return {};
  if (settings.token) ports.setSecret(settings.token);
  const requestMs = settings.requestTimeoutMs ?? defaultGitHubRequestTimeoutMs;
  const budgetMs = publicationBudget(requestMs);
  let ctx: GitHubContext;
  let octokit: Octokit;
  try {
    if (!settings.token) {
      throw new Error(
        `no token: ${inputEmpty(Inputs.githubToken)} (${byFace('its default is ${{ github.token }}', 'or set GITHUB_TOKEN')})`,
      );
    }
    ctx = readGitHubContext(ports.env);
    ports.info(
      `publishing to GitHub (${ctx.apiUrl}): each request at most ${requestMs / 1000} s, all of it at most ${budgetMs / 1000} s`,
    );
    octokit = createOctokit(settings.token, ctx.apiUrl, {
      requestMs,
      budgetMs,
      budget: ports.signal
        ? AbortSignal.any([AbortSignal.timeout(budgetMs), ports.signal])
        : AbortSignal.timeout(budgetMs),
    });
  } catch (error) {
    const message = describe(error, settings.token);
    ports.warning(`could not publish to GitHub: ${message}`);
    return Object.fromEntries(wanted.map((k) => [k, { status: 'failed', message }]));
  }
  const out: { prComment?: Publication; checkRun?: Publication } = {};
  for (const kind of wanted) {
    try {
      if (kind === 'prComment') {
        if (!ctx.pullRequest) {
          const message = `not a pull request event (GITHUB_EVENT_NAME is '${ctx.eventName}'); no comment was written`;
          ports.notice(`pr-comment: ${message}`);
          out.prComment = { status: 'skipped', message };
          continue;
        }
        const marker = commentMarker(ctx.stepKey);
        const result = await upsertComment(
          octokit,
          { ...ctx, pullRequest: ctx.pullRequest },
          marker,
          commentBody(markdown, marker, ctx.runUrl),
        );
        ports.info(`pull request #${ctx.pullRequest.number}: comment ${result.status} (${result.url})`);
        out.prComment = result;
      } else {
        const result = await createCheckRun(octokit, ctx, report, markdown);
        ports.info(`check run created (${result.url})`);
        out.checkRun = result;
      }
    } catch (error) {
      const message = describe(error, settings.token);
      if (statusOf(error) === 403) {
        ports.warning(
          `could not write ${names[kind]}: GitHub answered ${message}. Grant the job \`permissions: ${permissions[kind]}\`; on pull requests from forks the token is read-only, so nothing can be written (the sweep's verdict is unchanged)`,
        );
        out[kind] = { status: 'forbidden', message };
      } else {
        ports.warning(`could not write ${names[kind]}: ${message} (the sweep's verdict is unchanged)`);
        out[kind] = { status: 'failed', message };
      }
    }
  }
  return out;
}
