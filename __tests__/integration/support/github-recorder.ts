/**
 * A local HTTP server that answers the GitHub REST calls kube-sweep makes (issue comments,
 * check runs, pull requests) and the release workflow makes (a release and its asset uploads,
 * scripts/publish-release.mjs), and records every request: method, path with query, body (parsed
 * JSON, or the raw bytes of a body that is not JSON: an uploaded asset) and the authorization
 * header. GitHub itself cannot be reached from the tests; the action is pointed
 * here with GITHUB_API_URL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/repos/o/r/issues/7/comments?per_page=100`. */
  readonly path: string;
  /** Parsed JSON; a Buffer when the request's content-type is not JSON (an asset upload). */
  readonly body: unknown;
  readonly authorization: string;
}

export interface RecorderOptions {
  /** The PR's existing comments, page by page (a Link header points at the next page). */
  readonly commentPages?: readonly (readonly {
    id: number;
    body: string;
    /** The author; default the Actions bot (`github-actions[bot]`, type Bot), as GITHUB_TOKEN writes. */
    user?: { login: string; type: 'Bot' | 'User' };
  }[])[];
  /** The login `GET /user` answers; unset: 403, as for a GITHUB_TOKEN (an installation token). */
  readonly authenticatedUser?: string;
  /** Endpoints that answer 403 "Resource not accessible by integration". */
  readonly forbidden?: readonly ('comments' | 'checks')[];
  /** Endpoints that answer 500. */
  readonly broken?: readonly ('comments' | 'checks')[];
  /**
   * Pull requests the repository has (`GET /repos/o/r/pulls?state=open`, paged by `per_page`
   * with a Link header, and `GET /repos/o/r/pulls/N`); any other number answers 404.
   */
  readonly pulls?: readonly {
    number: number;
    state: 'open' | 'closed';
    merged?: boolean;
    labels?: string[];
  }[];
}

export interface GitHubRecorder {
  /** Base URL for GITHUB_API_URL, e.g. http://127.0.0.1:PORT. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

const checkRunId = 4242;
const createdCommentId = 9001;
const releaseId = 7007;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  const type = String(req.headers['content-type'] ?? 'application/json');
  if (!type.includes('json')) return bytes;
  const text = bytes.toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** A pull request as the REST API shapes it (the fields kube-sweep reads). */
const pullOf = (p: NonNullable<RecorderOptions['pulls']>[number]) => ({
  number: p.number,
  state: p.state,
  merged: p.merged ?? false,
  labels: (p.labels ?? []).map((name) => ({ name })),
});

/** Starts the recorder on 127.0.0.1 (a free port). */
export async function startGitHubRecorder(options: RecorderOptions = {}): Promise<GitHubRecorder> {
  const requests: RecordedRequest[] = [];
  const pages = options.commentPages ?? [[]];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? '';
      const method = req.method ?? '';
      requests.push({ method, path, body, authorization: String(req.headers.authorization ?? '') });
      const url = new URL(path, base);
      const area = url.pathname.includes('/check-runs') ? 'checks' : 'comments';
      if (options.forbidden?.includes(area)) {
        return send(res, 403, {
          message: 'Resource not accessible by integration',
          documentation_url: 'https://docs.github.com/rest',
        });
      }
      if (options.broken?.includes(area)) return send(res, 500, { message: 'Server Error' });
      let m: RegExpExecArray | null;
      if (method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(url.pathname))) {
        const page = Number(url.searchParams.get('page') ?? '1');
        const bot = { login: 'github-actions[bot]', type: 'Bot' };
        const items = (pages[page - 1] ?? []).map((c) => ({
          user: bot,
          ...c,
          html_url: `${base}/comment/${c.id}`,
        }));
        const headers: Record<string, string> = {};
        if (page < pages.length) {
          const next = new URL(url);
          next.searchParams.set('page', String(page + 1));
          headers.link = `<${next.href}>; rel="next"`;
        }
        return send(res, 200, items, headers);
      }
      if (method === 'GET' && url.pathname === '/user') {
        return options.authenticatedUser
          ? send(res, 200, { login: options.authenticatedUser, type: 'User' })
          : send(res, 403, { message: 'Resource not accessible by integration' });
      }
      if (method === 'GET' && /^\/repos\/[^/]+\/[^/]+\/pulls$/.test(url.pathname)) {
        const state = url.searchParams.get('state') ?? 'open';
        const perPage = Number(url.searchParams.get('per_page') ?? '30');
        const page = Number(url.searchParams.get('page') ?? '1');
        const all = (options.pulls ?? []).filter((p) => state === 'all' || p.state === state);
        const items = all.slice((page - 1) * perPage, page * perPage).map(pullOf);
        const headers: Record<string, string> = {};
        if (page * perPage < all.length) {
          const next = new URL(url);
          next.searchParams.set('page', String(page + 1));
          headers.link = `<${next.href}>; rel="next"`;
        }
        return send(res, 200, items, headers);
      }
      if (method === 'GET' && (m = /^\/repos\/[^/]+\/[^/]+\/pulls\/(\d+)$/.exec(url.pathname))) {
        const pr = (options.pulls ?? []).find((p) => p.number === Number(m![1]));
        return pr ? send(res, 200, pullOf(pr)) : send(res, 404, { message: 'Not Found' });
      }
      if (method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/comments$/.test(url.pathname)) {
        return send(res, 201, { id: createdCommentId, html_url: `${base}/comment/${createdCommentId}` });
      }
      if (method === 'PATCH' && (m = /^\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(url.pathname))) {
        return send(res, 200, { id: Number(m[1]), html_url: `${base}/comment/${m[1]}` });
      }
      if (method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/check-runs$/.test(url.pathname)) {
        return send(res, 201, { id: checkRunId, html_url: `${base}/check/${checkRunId}` });
      }
      if (method === 'PATCH' && /^\/repos\/[^/]+\/[^/]+\/check-runs\/\d+$/.test(url.pathname)) {
        return send(res, 200, { id: checkRunId, html_url: `${base}/check/${checkRunId}` });
      }
      if (method === 'POST' && (m = /^\/repos\/([^/]+\/[^/]+)\/releases$/.exec(url.pathname))) {
        // As GitHub: the asset uploads go to upload_url (a URI template; here on loopback too).
        const tag = (body as { tag_name?: string } | undefined)?.tag_name;
        return send(res, 201, {
          id: releaseId,
          tag_name: tag,
          html_url: `${base}/${m[1]}/releases/tag/${tag}`,
          upload_url: `${base}/repos/${m[1]}/releases/${releaseId}/assets{?name,label}`,
        });
      }
      if (method === 'POST' && (m = /^\/repos\/([^/]+\/[^/]+)\/releases\/\d+\/assets$/.exec(url.pathname))) {
        const name = url.searchParams.get('name') ?? '';
        const size = Buffer.isBuffer(body) ? body.length : 0;
        return send(res, 201, {
          name,
          size,
          browser_download_url: `${base}/${m[1]}/releases/download/${name}`,
        });
      }
      return send(res, 404, { message: 'Not Found' });
    })().catch((error: unknown) => send(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The ids the recorder gives: the check run, a comment and a release it creates. */
export const recorderIds = { checkRunId, createdCommentId, releaseId } as const;

/**
 * The GITHUB_* variables a runner sets for a job, pointing the API at `apiUrl`, with an event
 * payload file written to a temporary folder (a pull_request payload when `pullRequest` is
 * given; `eventName` defaults to pull_request then, else to push).
 */
export function runnerEnv(
  apiUrl: string,
  options: { eventName?: string; pullRequest?: { number: number; headSha: string }; step?: string } = {},
): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-event-'));
  const eventPath = join(dir, 'event.json');
  const payload = options.pullRequest
    ? {
        action: 'synchronize',
        number: options.pullRequest.number,
        pull_request: { number: options.pullRequest.number, head: { sha: options.pullRequest.headSha } },
      }
    : { ref: 'refs/heads/main' };
  writeFileSync(eventPath, JSON.stringify(payload));
  return {
    GITHUB_API_URL: apiUrl,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_EVENT_NAME: options.eventName ?? (options.pullRequest ? 'pull_request' : 'push'),
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_SHA: 'f00dfeed00000000000000000000000000000000',
    GITHUB_RUN_ID: '1234',
    GITHUB_WORKFLOW: 'PR environment',
    GITHUB_WORKFLOW_REF: 'acme/shop/.github/workflows/pr-env.yml@refs/pull/7/merge',
    GITHUB_JOB: 'teardown',
    GITHUB_ACTION: options.step ?? 'sweep',
  };
}
