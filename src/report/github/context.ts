import { readFileSync } from 'node:fs';

/**
 * What kube-sweep needs to know about the workflow run to publish to GitHub, read from the
 * runner's default variables (GitHub docs, "Variables reference": GITHUB_REPOSITORY,
 * GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_SHA, GITHUB_API_URL, GITHUB_SERVER_URL,
 * GITHUB_RUN_ID, GITHUB_WORKFLOW, GITHUB_WORKFLOW_REF, GITHUB_JOB, GITHUB_ACTION).
 */
export interface GitHubContext {
  /** REST API root, e.g. https://api.github.com (GHES: https://HOST/api/v3). */
  readonly apiUrl: string;
  readonly owner: string;
  readonly repo: string;
  readonly eventName: string;
  /** Set on pull_request and pull_request_target events (from the event payload). */
  readonly pullRequest?: { readonly number: number; readonly headSha: string };
  /** The commit a check run is attached to: the PR's head commit on a PR event, else GITHUB_SHA. */
  readonly headSha: string;
  /** Repository path of the running workflow file (annotations need a path), or `.github`. */
  readonly workflowPath: string;
  /** Link to the workflow run, when GITHUB_RUN_ID is set. */
  readonly runUrl?: string;
  /** `workflow/job/step`: the same across runs of the same step, different for two steps. */
  readonly stepKey: string;
}

/** The events whose payload carries `pull_request` and whose comments kube-sweep may keep. */
export const pullRequestEvents: readonly string[] = ['pull_request', 'pull_request_target'];

/**
 * Pure: the pull request of an event payload (`pull_request.number`, `pull_request.head.sha`),
 * for pull_request / pull_request_target events only; undefined otherwise.
 */
export function pullRequestOf(
  eventName: string,
  payload: unknown,
): { number: number; headSha: string } | undefined {
  if (!pullRequestEvents.includes(eventName)) return undefined;
  const pr = (payload as { pull_request?: { number?: unknown; head?: { sha?: unknown } } } | undefined)
    ?.pull_request;
  if (typeof pr?.number !== 'number') return undefined;
  return { number: pr.number, headSha: typeof pr.head?.sha === 'string' ? pr.head.sha : '' };
}

/**
 * Pure: the workflow file's path inside the repository from GITHUB_WORKFLOW_REF
 * (`owner/repo/.github/workflows/ci.yml@refs/heads/main`); `.github` when it is not there.
 */
export function workflowPathOf(workflowRef: string | undefined, repository: string): string {
  const ref = workflowRef ?? '';
  const withoutRef = ref.includes('@') ? ref.slice(0, ref.lastIndexOf('@')) : ref;
  const prefix = `${repository}/`;
  const path = withoutRef.startsWith(prefix) ? withoutRef.slice(prefix.length) : '';
  return path.startsWith('.github/') ? path : '.github';
}

/**
 * Reads the context from the runner's variables and the event payload file.
 * @throws Error naming the variable when GITHUB_REPOSITORY is missing or not `owner/repo`, or
 *   when the event payload at GITHUB_EVENT_PATH cannot be read as JSON.
 */
export function readGitHubContext(
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): GitHubContext {
  const repository = env.GITHUB_REPOSITORY ?? '';
  const [owner, repo, extra] = repository.split('/');
  if (!owner || !repo || extra !== undefined) {
    throw new Error(
      `GITHUB_REPOSITORY is '${repository}', not owner/repo; publishing to GitHub runs inside a GitHub Actions job (or set GITHUB_REPOSITORY, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH and GITHUB_SHA)`,
    );
  }
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  let payload: unknown;
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFile(env.GITHUB_EVENT_PATH));
    } catch (error) {
      throw new Error(
        `could not read the event payload GITHUB_EVENT_PATH=${env.GITHUB_EVENT_PATH}: ${(error as Error).message}`,
      );
    }
  }
  const pullRequest = pullRequestOf(eventName, payload);
  const serverUrl = (env.GITHUB_SERVER_URL || 'https://github.com').replace(/\/+$/, '');
  return {
    apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    owner,
    repo,
    eventName,
    ...(pullRequest ? { pullRequest } : {}),
    headSha: pullRequest?.headSha || env.GITHUB_SHA || '',
    workflowPath: workflowPathOf(env.GITHUB_WORKFLOW_REF, repository),
    ...(env.GITHUB_RUN_ID ? { runUrl: `${serverUrl}/${repository}/actions/runs/${env.GITHUB_RUN_ID}` } : {}),
    // A `/` or `%` inside a name is escaped, so `a/b` + `c` and `a` + `b/c` stay two keys.
    stepKey: [env.GITHUB_WORKFLOW, env.GITHUB_JOB, env.GITHUB_ACTION]
      .map((s) => (s || '-').replace(/%/g, '%25').replace(/\//g, '%2F'))
      .join('/'),
  };
}
