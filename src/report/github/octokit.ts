import { getOctokit } from '@actions/github';

/** The Octokit of @actions/github (REST endpoint methods and pagination). */
export type Octokit = ReturnType<typeof getOctokit>;

/**
 * An Octokit for `apiUrl` that sends `token` as `authorization: token <token>`. Octokit errors
 * carry the status and GitHub's message; this function does not redact anything: the caller
 * (publish.ts) masks the token with setSecret and removes it from the messages it records.
 */
export function createOctokit(token: string, apiUrl: string): Octokit {
  return getOctokit(token, { baseUrl: apiUrl });
}
