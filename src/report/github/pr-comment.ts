import { fitMarkdown } from '../markdown.js';
import type { GitHubContext } from './context.js';
import type { Octokit } from './octokit.js';

/**
 * GitHub's limit for an issue or pull request comment body: 65536 characters (the REST API
 * answers 422 "body is too long" past it). kube-sweep counts UTF-8 bytes, which bound
 * characters from above.
 */
export const commentLimit = 65536;

/**
 * Pure: the hidden marker that identifies kube-sweep's comment for one step of one workflow:
 * `<!-- kube-sweep:summary <stepKey> -->` (`stepKey` as context.ts builds it: a `%` or `/`
 * within a part is already `%25`, `%2F`). Every character but letters, digits, `_`, `.`, `/`,
 * space, `%` and a single `-` is written as `%XX` (its UTF-8 bytes), and so is the second `-` of
 * `--`: nothing can end the HTML comment early or break the line, and two step keys never share
 * a marker (`PR (env)` and `PR [env]` did when both became `PR _env_`). A key of only those
 * characters keeps the marker it had before.
 */
export function commentMarker(stepKey: string): string {
  const encode = (c: string) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  let key = '';
  let previous = '';
  for (const c of stepKey) {
    key += /^[A-Za-z0-9_./ %-]$/.test(c) && !(c === '-' && previous === '-') ? c : encode(c);
    previous = c;
  }
  return `<!-- kube-sweep:summary ${key} -->`;
}

/**
 * Pure: the comment body: the marker on the first line, then the markdown summary cut at a
 * block boundary (never inside a table) so that the whole stays within `commentLimit`, with a
 * note that points at the run's job summary when it was cut.
 */
export function commentBody(markdown: string, marker: string, runUrl?: string): string {
  const where = runUrl
    ? `the job summary of [the workflow run](${runUrl})`
    : "the workflow run's job summary";
  const note = `> ✂️ This comment was cut to stay under GitHub's ${commentLimit}-character limit; the whole summary is in ${where}, and the JSON report in the step output \`report-path\`.`;
  const head = `${marker}\n`;
  return head + fitMarkdown(markdown, commentLimit - Buffer.byteLength(head), note);
}

/**
 * Creates or updates the pull request's kube-sweep comment: lists the issue comments of the
 * PR page by page (GET /repos/{owner}/{repo}/issues/{n}/comments, 100 a page) and PATCHes the
 * first one that is kube-sweep's own: its body starts with `marker` and its author is a bot (what
 * GITHUB_TOKEN writes as, `github-actions[bot]`) or the token's own user (GET /user, asked only
 * when a marked comment by a user is seen; an installation token is refused there). Anyone may
 * write the marker into a comment of their own; such a comment is never taken. POSTs a new
 * comment when none is kube-sweep's (GitHub REST docs, "Issue comments", "Users").
 * @returns what was done and the comment's html_url.
 * @throws the Octokit RequestError of a failed request (status 403 when the token lacks
 *   `pull-requests: write`, e.g. on a pull request from a fork).
 */
export async function upsertComment(
  octokit: Octokit,
  ctx: GitHubContext & { pullRequest: { number: number } },
  marker: string,
  body: string,
): Promise<{ status: 'created' | 'updated'; url: string }> {
  const where = { owner: ctx.owner, repo: ctx.repo };
  let existing: number | undefined;
  let self: Promise<string | undefined> | undefined;
  const tokenUser = () =>
    (self ??= octokit.rest.users.getAuthenticated().then(
      ({ data }) => data.login,
      () => undefined,
    ));
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, {
    ...where,
    issue_number: ctx.pullRequest.number,
    per_page: 100,
  })) {
    for (const c of page.data) {
      if (!(c.body ?? '').startsWith(marker) || !c.user) continue;
      if (c.user.type === 'Bot' || c.user.login === (await tokenUser())) {
        existing = c.id;
        break;
      }
    }
    if (existing !== undefined) break;
  }
  if (existing !== undefined) {
    const { data } = await octokit.rest.issues.updateComment({ ...where, comment_id: existing, body });
    return { status: 'updated', url: data.html_url };
  }
  const { data } = await octokit.rest.issues.createComment({
    ...where,
    issue_number: ctx.pullRequest.number,
    body,
  });
  return { status: 'created', url: data.html_url };
}
