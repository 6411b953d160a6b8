import { getOctokit } from '@actions/github';

/** The Octokit of @actions/github (REST endpoint methods and pagination). */
export type Octokit = ReturnType<typeof getOctokit>;

/** How long GitHub may take: each request, and everything one publication run sends. */
export interface GitHubTimeouts {
  /** ms one request (one page of a list included) may take until its answer's body is read. */
  readonly requestMs: number;
  /**
   * Aborted when the whole publication's budget is used up: a request running then is cut,
   * and later ones are not sent.
   */
  readonly budget: AbortSignal;
  /** The budget in ms, for messages. */
  readonly budgetMs: number;
}

/** A request GitHub never answered (refused, reset, timed out, budget used up): no HTTP status. */
export class GitHubNetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitHubNetworkError';
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The errors inside `error` (its `cause` chain, at most 5 deep), outermost first. */
function causes(error: unknown): { name?: string; code?: string; message?: string }[] {
  const out: { name?: string; code?: string; message?: string }[] = [];
  for (let e = error as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++)
    out.push(e as { name?: string; code?: string; message?: string });
  return out;
}

/**
 * Pure: what happened to a request that got no HTTP answer, in words, or undefined when it got
 * one (an Octokit RequestError with a `response`: GitHub's status says it). Octokit reports a
 * failed fetch as status 500 (a placeholder; GitHub never said it): this names the system
 * error code instead (ECONNREFUSED, ECONNRESET, ENOTFOUND, ...), the request timeout or the
 * budget.
 * @param request e.g. `POST /repos/o/r/check-runs`
 */
export function networkFailure(
  error: unknown,
  request: string,
  timeouts: Pick<GitHubTimeouts, 'requestMs' | 'budgetMs'> & { budgetUsedUp: boolean },
): string | undefined {
  if ((error as { response?: unknown })?.response !== undefined) return undefined;
  const chain = causes(error);
  if (timeouts.budgetUsedUp)
    return `${request}: not answered within the publication budget of ${seconds(timeouts.budgetMs)} (cut short)`;
  if (chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError'))
    return `${request}: no answer from GitHub within ${seconds(timeouts.requestMs)} (the request timeout; request-timeout sets it)`;
  const coded = chain.find((e) => typeof e.code === 'string' && /^E[A-Z_]+$/.test(e.code));
  if (coded) return `${request}: no answer from GitHub (${coded.code}: ${coded.message ?? ''})`;
  if (chain.length === 0 || !(error instanceof Error)) return undefined;
  const deepest = chain[chain.length - 1]!;
  return `${request}: no answer from GitHub (${deepest.message || deepest.name || 'network error'})`;
}

/**
 * An Octokit for `apiUrl` that sends `token` as `authorization: token <token>`, bounds every
 * request by `timeouts` (a request timeout, and the publication's budget), and turns a request
 * that got no answer into a GitHubNetworkError that says what happened (`networkFailure`).
 * Octokit errors with an answer carry the status and GitHub's message; this function does not
 * redact anything: the caller (publish.ts) masks the token with setSecret and removes it from
 * the messages it records.
 */
export function createOctokit(token: string, apiUrl: string, timeouts: GitHubTimeouts): Octokit {
  const octokit = getOctokit(token, { baseUrl: apiUrl });
  octokit.hook.wrap('request', async (request, options) => {
    // `POST /repos/o/r/check-runs`: the route with its parameters, or a page's URL without origin and query.
    const path = String(options.url)
      .replace(/\{[^}]*\}/g, (m) => String(options[m.slice(1, -1)] ?? m))
      .replace(/^https?:\/\/[^/]+/, '')
      .replace(/\?.*$/, '');
    const what = `${options.method} ${path}`;
    const signal = AbortSignal.any([AbortSignal.timeout(timeouts.requestMs), timeouts.budget]);
    // In place: the hooks inside this one (the token's) were bound to this same object and
    // ignore options passed to them. `options` is this request's own; `request` may be shared.
    options.request = { ...options.request, signal };
    try {
      return await request(options);
    } catch (error) {
      const failure = networkFailure(error, what, { ...timeouts, budgetUsedUp: timeouts.budget.aborted });
      throw failure ? new GitHubNetworkError(failure) : error;
    }
  });
  return octokit;
}
