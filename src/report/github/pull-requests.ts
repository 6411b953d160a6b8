import type { PullRequestFacts } from '../../plan/environments.js';
import type { Octokit } from './octokit.js';

/*
 * `mode: reap` with `pr-state: closed`: the state and labels of the pull requests whose numbers
 * are environment ids. Edge module (GitHub REST through Octokit).
 */

/** The repository the pull requests belong to, and where its API is. */
export interface PullRequestSource {
  readonly owner: string;
  readonly repo: string;
  readonly octokit: Octokit;
}

const labelNames = (labels: readonly (string | { name?: string })[]) =>
  labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== '');

/**
 * Reads the pull requests `ids` name: first the open ones, paged (100 a page, following the
 * Link header), then one request per id that is not open (closed, merged, or not a pull
 * request). At most one request per pull request; the result is the run's cache. An id that is
 * not a number, a 404 or any other failure is `unknown` with the reason (never reaped on it).
 * @returns the facts per id; never throws.
 */
export async function readPullRequests(
  ids: readonly string[],
  source: PullRequestSource,
  log: (line: string) => void,
): Promise<Map<string, PullRequestFacts>> {
  const facts = new Map<string, PullRequestFacts>();
  const numeric = ids.filter((id) => /^[1-9]\d{0,9}$/.test(id));
  for (const id of ids)
    if (!numeric.includes(id))
      facts.set(id, { state: 'unknown', labels: [], problem: `'${id}' is not a pull request number` });
  if (numeric.length === 0) return facts;
  try {
    const open = await source.octokit.paginate(source.octokit.rest.pulls.list, {
      owner: source.owner,
      repo: source.repo,
      state: 'open',
      per_page: 100,
    });
    for (const pr of open)
      if (numeric.includes(String(pr.number)))
        facts.set(String(pr.number), { state: 'open', labels: labelNames(pr.labels) });
  } catch (error) {
    const problem = `listing the open pull requests of ${source.owner}/${source.repo} failed: ${statusText(error)}`;
    log(problem);
    for (const id of numeric) facts.set(id, { state: 'unknown', labels: [], problem });
    return facts;
  }
  for (const id of numeric.filter((i) => !facts.has(i))) {
    try {
      const { data } = await source.octokit.rest.pulls.get({
        owner: source.owner,
        repo: source.repo,
        pull_number: Number(id),
      });
      facts.set(id, {
        state: data.state === 'closed' ? 'closed' : 'open',
        merged: data.merged === true,
        labels: labelNames(data.labels),
      });
    } catch (error) {
      facts.set(id, {
        state: 'unknown',
        labels: [],
        problem: `reading pull request #${id} failed: ${statusText(error)}`,
      });
    }
  }
  return facts;
}

/** The status and GitHub's message of an Octokit error, never a token. */
function statusText(error: unknown): string {
  const e = error as { status?: number; response?: { data?: { message?: string } }; message?: string };
  return `${e.status ?? 'no answer'} ${e.response?.data?.message ?? e.message ?? ''}`.trim();
}
