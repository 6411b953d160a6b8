import { getOctokit } from '@actions/github';

/** The Octokit of @actions/github (REST endpoint methods and pagination). */
export type Octokit = ReturnType<typeof getOctokit>;

/**
 * An Octokit for `apiUrl` that sends `token` as `authorization: token <token>`. Octokit
 * errors carry the status and GitHub's message; the token is redacted from them.
 */
export function createOctokit(token: string, apiUrl: string): Octokit {
  return getOctokit(token, { baseUrl: apiUrl });
}
