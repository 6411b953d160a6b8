import { createSecureContext } from 'node:tls';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import {
  ClusterAccessError,
  KubernetesApiError,
  UnsafeRequestPathError,
  isTlsError,
  isUnreachableError,
} from './errors.js';
import { requestPathProblem } from '../kube/object-names.js';
import { RequestCounters, isForbidden, outagePauseMs, unreachableError } from './outage.js';
import type { HttpsCredentials } from './credentials.js';
import type { LoadedKubeconfig } from './kubeconfig.js';
import { isRetryableKubernetesError, kubernetesRetryAfterSeconds } from './retry-policy.js';
import {
  markCutAtDeadline,
  wasCutAtDeadline as wasCut,
  withRetries,
  type RetryNotice,
} from '../util/retry.js';

/** One request to the Kubernetes API. `path` starts with /api or /apis. */
export interface ApiRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Accept header; default application/json. */
  readonly accept?: string;
  readonly body?: unknown;
  /** Content-Type of `body`; default application/json (use application/merge-patch+json for patches). */
  readonly contentType?: string;
  /** Per-request timeout in ms; default the client's. */
  readonly timeoutMs?: number;
  /** Retry 409 Conflict too (writes that race a controller). */
  readonly retryConflict?: boolean;
}

/** A body as bytes with the Content-Type the server chose (`requestBytes`). */
export interface BytesAnswer {
  readonly body: Buffer;
  /** The answer's Content-Type header ('' when absent), e.g. application/vnd.kubernetes.protobuf. */
  readonly contentType: string;
}

/** A watch: a collection `path` watched from `resourceVersion`. */
export interface WatchRequest {
  readonly path: string;
  /** The resourceVersion of the list the watch continues (events after it are sent). */
  readonly resourceVersion: string;
  /** Extra query (fieldSelector, labelSelector). */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Accept header; default application/json. */
  readonly accept?: string;
  /** The server ends the watch after this many seconds (a normal end, not an error). */
  readonly timeoutSeconds: number;
  readonly signal?: AbortSignal;
}

/** One watch event (k8s.io/apimachinery/pkg/apis/meta/v1 WatchEvent). */
export interface WatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: {
    metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
    [k: string]: unknown;
  };
}

/**
 * The port every Kubernetes call goes through: JSON in, JSON out (or bytes out: `requestBytes`), retries with backoff on
 * HTTP 429, 500, 502, 503 and 504 and dropped connections honouring Retry-After (no answer at all, once the server
 * has answered before, is retried for an outage budget: see ApiClientOptions), a timeout per
 * request, and errors that carry the status code and the Status message only (never headers
 * or whole bodies).
 */
export interface ApiClient {
  /** The API server URL, e.g. https://127.0.0.1:6443. */
  readonly server: string;
  /**
   * Sends one request (retried per cluster/retry-policy.ts, with util/retry.ts) and returns the parsed JSON body.
   * @throws KubernetesApiError on a non-2xx answer, ClusterAccessError `tls`/`unreachable` on transport failure.
   */
  request<T = unknown>(req: ApiRequest): Promise<T>;
  /**
   * Sends one request like `request` (the same retries, timeout, 401 token renewal, errors and
   * request count) and returns the body as bytes with its Content-Type, unparsed: for answers
   * whose format the server chooses from `accept` (protobuf or JSON).
   * @throws as `request`.
   */
  requestBytes(req: ApiRequest): Promise<BytesAnswer>;
  /**
   * Opens one watch (`?watch=1`, newline-delimited JSON events: k8s.io/apimachinery
   * pkg/watch/json) and calls `onEvent` for each event until it returns true, the server ends
   * the stream (its `timeoutSeconds`), or `signal` aborts. Not retried: the caller falls back
   * to lists when a watch fails.
   * @throws KubernetesApiError on a non-2xx answer or an `ERROR` event (410 Gone when the
   *   resourceVersion is too old), the transport's error when the connection breaks.
   */
  watch(req: WatchRequest, onEvent: (event: WatchEvent) => boolean | void): Promise<void>;
  /** How many HTTP requests were sent, retries included. */
  readonly sentRequests: () => number;
  close(): Promise<void>;
}

export interface ApiClientOptions {
  /** Timeout of one request in ms. */
  readonly timeoutMs: number;
  /** Retries after the first try while the server has never answered (default 4). */
  readonly retries?: number;
  /**
   * Once the server has answered one request, how long in ms a request that gets no answer
   * at all (refused, reset, timed out) keeps being retried, in rounds of `retries` with a 2 s
   * pause between rounds, before it fails (default 60 s): a server that answered before is
   * restarting or waiting on etcd, not misconfigured. HTTP answers (429, 500, 502, 503, 504) keep the plain
   * `retries` policy: a webhook or aggregated API that fails is not an outage.
   */
  readonly outageBudgetMs?: number;
  /** The User-Agent header (default `kube-sweep`; the benchmarks tell their own requests apart with it). */
  readonly userAgent?: string;
  /** Connections kept open to the server (default 16). */
  readonly connections?: number;
  readonly onRetry?: (req: ApiRequest, notice: RetryNotice) => void;
  /** Called when a request's retries ran out with no answer and it waits out an outage (ms so far). */
  readonly onOutage?: (req: ApiRequest, waitedMs: number) => void;
  /**
   * When the run's overall `timeout` ends (ms since the epoch): no retry starts at or after it
   * (Retry-After and backoff included), and no outage is waited out past it; a request sent
   * after it gets one try. What it cuts is thrown marked `wasCutAtDeadline` (util/retry.ts).
   * Default: none.
   */
  readonly deadlineAt?: number;
  /** Called when a request that was worth another try is not tried again: `deadlineAt` has come. */
  readonly onDeadline?: (req: ApiRequest, error: unknown) => void;
  /**
   * Called with every credential obtained from the kubeconfig's exec plugin, tokenFile or
   * auth-provider, at the start and whenever a token is renewed (core.setSecret in the action).
   */
  readonly onSecret?: (value: string) => void;
  /** Called when the server answered 401 and the request is sent once more with a new token. */
  readonly onTokenRenewed?: (req: ApiRequest) => void;
}

/**
 * Pure: the URL of one request: the server, `path` and the query.
 * @throws UnsafeRequestPathError when `path` is unsafe (object-names.ts `requestPathProblem`):
 *   no request is sent for it, whatever name put it there.
 */
function buildUrl(server: string, path: string, query: ApiRequest['query']): string {
  const problem = requestPathProblem(path);
  if (problem) throw new UnsafeRequestPathError(path, problem);
  const url = new URL(server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url.toString();
}

function retryAfterSeconds(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const n = Number(text);
  if (Number.isFinite(n) && n >= 0) return n;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/**
 * What every request of one client shares: the server, the connection pool, the headers sent
 * with each request (static authorization, User-Agent), the token source when the token can
 * change, the options, and the counters.
 */
interface Connection {
  readonly server: string;
  readonly agent: Agent;
  readonly baseHeaders: Readonly<Record<string, string>>;
  readonly tokenSource: HttpsCredentials['tokenSource'];
  readonly options: ApiClientOptions;
  readonly counters: RequestCounters;
}

/**
 * Creates the API client for a loaded kubeconfig: TLS material, bearer token or exec
 * credentials come from `loaded.credentials()` (src/cluster/credentials.ts); requests go through one
 * undici Agent with keep-alive. A token from an exec plugin or a tokenFile is renewed when it
 * expires and after a 401 (the request is then sent once more); each new token goes to
 * `options.onSecret`.
 * @throws ClusterAccessError `not-a-kubeconfig` when the TLS material cannot be used.
 */
export async function createApiClient(
  loaded: LoadedKubeconfig,
  options: ApiClientOptions,
): Promise<ApiClient> {
  const https = await loaded.credentials(options.onSecret ? { onSecret: options.onSecret } : {});
  checkTlsMaterial(https, loaded.context);
  const connection: Connection = {
    server: loaded.server,
    agent: createAgent(https, options.connections ?? 16),
    baseHeaders: { ...https.headers, 'user-agent': options.userAgent ?? 'kube-sweep' },
    tokenSource: https.tokenSource,
    options,
    counters: new RequestCounters(),
  };
  return {
    server: loaded.server,
    sentRequests: () => connection.counters.sent,
    watch: (req, onEvent) => watchOnce(connection, req, onEvent),
    request: <T>(req: ApiRequest) => requestWithinOutageBudget(connection, req, readJson<T>),
    requestBytes: (req: ApiRequest) => requestWithinOutageBudget(connection, req, readBytes),
    close: () => connection.agent.close(),
  };
}

/**
 * Builds the TLS context once, so bad key or certificate data fails here with a message that
 * names the kubeconfig, not later as a transport error of the first request.
 * @throws ClusterAccessError `not-a-kubeconfig` naming the context and the fields to check.
 */
function checkTlsMaterial(https: HttpsCredentials, context: string): void {
  try {
    createSecureContext({
      ...(https.ca ? { ca: https.ca } : {}),
      ...(https.cert ? { cert: https.cert } : {}),
      ...(https.key ? { key: https.key } : {}),
    });
  } catch (error) {
    throw new ClusterAccessError(
      'not-a-kubeconfig',
      `the kubeconfig's credentials for context '${context}' cannot be used (${(error as Error).message}); ` +
        'check client-certificate-data, client-key-data and certificate-authority-data',
    );
  }
}

/** The undici connection pool to one API server: `connections` kept alive for 30 s, with the kubeconfig's TLS material. */
function createAgent(https: HttpsCredentials, connections: number): Agent {
  return new Agent({
    connections,
    keepAliveTimeout: 30_000,
    connect: {
      ...(https.ca ? { ca: https.ca } : {}),
      ...(https.cert ? { cert: https.cert } : {}),
      ...(https.key ? { key: https.key } : {}),
      ...(https.servername ? { servername: https.servername } : {}),
      rejectUnauthorized: https.rejectUnauthorized,
    },
  });
}

/** Pure: the headers of one request: the client's, `accept` (default application/json), and the bearer token if any. */
function requestHeaders(
  baseHeaders: Readonly<Record<string, string>>,
  accept: string | undefined,
  token: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { ...baseHeaders, accept: accept ?? 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return headers;
}

/**
 * Pure: the error for a non-2xx answer, with the reason and message of its Status body (or the
 * body's first 200 characters when it is not JSON), never the headers or the whole body.
 */
function apiErrorOf(
  statusCode: number,
  method: string,
  path: string,
  text: string,
  retryAfter?: number,
): KubernetesApiError {
  let reason = '';
  let message = '';
  try {
    const status = JSON.parse(text) as { reason?: string; message?: string };
    reason = status.reason ?? '';
    message = status.message ?? '';
  } catch {
    message = text.slice(0, 200).trim();
  }
  return new KubernetesApiError(statusCode, method, path, reason, message, retryAfter);
}

/**
 * Sends `req` with withRetries (cluster/retry-policy.ts). When a try gets no answer at all and
 * the server has answered before, it is restarting or waiting on etcd: the retries start over,
 * after a pause, until `outageBudgetMs` (default 60 s) has passed.
 * @throws ClusterAccessError `unreachable` when the server never answered, or the budget ran out.
 */
async function requestWithinOutageBudget<T>(
  connection: Connection,
  req: ApiRequest,
  read: ReadAnswer<T>,
): Promise<T> {
  const { options } = connection;
  const hadAnswered = connection.counters.answered;
  const budgetMs = options.outageBudgetMs ?? 60_000;
  const started = Date.now();
  for (;;) {
    try {
      return await withRetries(() => sendRenewingToken(connection, req, read), {
        retries: options.retries ?? 4,
        isRetryable: (e) =>
          isRetryableKubernetesError(e, req.retryConflict ?? false) ||
          (isForbidden(e) && connection.counters.justBack()),
        retryAfterSeconds: kubernetesRetryAfterSeconds,
        onRetry: (n) => options.onRetry?.(req, n),
        ...(options.deadlineAt !== undefined ? { deadlineAt: options.deadlineAt } : {}),
      });
    } catch (error) {
      if (wasCut(error)) options.onDeadline?.(req, error);
      const noAnswer = isUnreachableError(error) || (error as Error)?.name === 'TimeoutError';
      if (!noAnswer) throw error;
      // Before any answer, no answer most likely means a wrong address: give up. After
      // one, the server is restarting or waiting on etcd: keep trying for the budget, never
      // past the overall deadline.
      const waited = Date.now() - started;
      const pastDeadline =
        options.deadlineAt !== undefined && Date.now() + outagePauseMs >= options.deadlineAt;
      if (!hadAnswered || waited >= budgetMs || pastDeadline) {
        const e = unreachableError(connection.server, req, error, hadAnswered, waited, pastDeadline);
        throw pastDeadline ? markCutAtDeadline(e) : e;
      }
      options.onOutage?.(req, waited);
      await new Promise((r) => setTimeout(r, outagePauseMs));
    }
  }
}

/**
 * One try. With a token that can change (exec plugin, tokenFile), a 401 renews the token and
 * sends the request once more: the token expired or was revoked during the run.
 */
async function sendRenewingToken<T>(
  connection: Connection,
  req: ApiRequest,
  read: ReadAnswer<T>,
): Promise<T> {
  const tokens = connection.tokenSource;
  if (!tokens) return send(connection, req, undefined, read);
  const token = await tokens.token();
  try {
    return await send(connection, req, token, read);
  } catch (error) {
    if (!(error instanceof KubernetesApiError) || error.status !== 401) throw error;
    const renewed = await tokens.renew(token);
    connection.options.onTokenRenewed?.(req);
    return send(connection, req, renewed, read);
  }
}

/** Reads a 2xx answer's body (`request`: parsed JSON; `requestBytes`: the bytes). */
type ReadAnswer<T> = (res: Dispatcher.ResponseData) => Promise<T>;

/** The answer's body parsed as JSON (undefined for an empty body). @throws SyntaxError when it is not JSON. */
async function readJson<T>(res: Dispatcher.ResponseData): Promise<T> {
  const text = await res.body.text();
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** The answer's body as bytes, with its Content-Type. */
async function readBytes(res: Dispatcher.ResponseData): Promise<BytesAnswer> {
  const body = Buffer.from(await res.body.arrayBuffer());
  const type = res.headers['content-type'];
  return { body, contentType: (Array.isArray(type) ? type[0] : type) ?? '' };
}

/**
 * Sends one HTTP request and reads a 2xx answer with `read`.
 * @throws KubernetesApiError on a non-2xx answer, ClusterAccessError `tls` when TLS
 *   verification fails, the transport's error otherwise, what `read` throws.
 */
async function send<T>(
  connection: Connection,
  req: ApiRequest,
  token: string | undefined,
  read: ReadAnswer<T>,
): Promise<T> {
  const method = req.method ?? 'GET';
  const url = buildUrl(connection.server, req.path, req.query);
  const headers = requestHeaders(connection.baseHeaders, req.accept, token);
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = req.contentType ?? 'application/json';
  }
  connection.counters.countSent();
  let res;
  try {
    res = await undiciRequest(url, {
      method,
      headers,
      body,
      dispatcher: connection.agent,
      signal: AbortSignal.timeout(req.timeoutMs ?? connection.options.timeoutMs),
    });
  } catch (error) {
    if (!isTlsError(error)) connection.counters.markNoAnswer();
    if (isTlsError(error)) {
      throw new ClusterAccessError(
        'tls',
        `TLS verification of ${connection.server} failed (${(error as Error).message}); check the cluster's ` +
          "certificate-authority-data in the kubeconfig, or that 'server' names the right host",
      );
    }
    throw error;
  }
  connection.counters.markAnswered();
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const text = await res.body.text();
    throw apiErrorOf(res.statusCode, method, req.path, text, retryAfterSeconds(res.headers['retry-after']));
  }
  return read(res);
}

/** Pure: the URL of a watch: `req.path` with watch, bookmarks, the resourceVersion and the server's timeout (whole seconds, at least 1). */
function watchUrl(server: string, req: WatchRequest): string {
  return buildUrl(server, req.path, {
    ...req.query,
    watch: 'true',
    allowWatchBookmarks: 'true',
    resourceVersion: req.resourceVersion,
    timeoutSeconds: Math.max(1, Math.ceil(req.timeoutSeconds)),
  });
}

/** The ApiClient's `watch` (see there): opens the stream, then hands each event to `onEvent`. */
async function watchOnce(
  connection: Connection,
  req: WatchRequest,
  onEvent: (event: WatchEvent) => boolean | void,
): Promise<void> {
  const url = watchUrl(connection.server, req);
  // A token that can change is read now; a 401 fails the watch, and the lists that follow renew it.
  const token = connection.tokenSource ? await connection.tokenSource.token() : undefined;
  const headers = requestHeaders(connection.baseHeaders, req.accept, token);
  connection.counters.countSent();
  // The server closes the stream after timeoutSeconds; the local timeout is a backstop.
  const backstop = AbortSignal.timeout((Math.ceil(req.timeoutSeconds) + 15) * 1000);
  const signal = req.signal ? AbortSignal.any([req.signal, backstop]) : backstop;
  const res = await undiciRequest(url, {
    method: 'GET',
    headers,
    dispatcher: connection.agent,
    signal,
    bodyTimeout: 0,
  });
  connection.counters.markAnswered();
  if (res.statusCode < 200 || res.statusCode >= 300)
    throw apiErrorOf(res.statusCode, 'GET', req.path, await res.body.text());
  try {
    await readWatchEvents(res.body, req.path, onEvent);
  } catch (error) {
    if (req.signal?.aborted) return;
    throw error;
  } finally {
    res.body.destroy();
  }
}

/**
 * Reads newline-delimited watch events (k8s.io/apimachinery pkg/watch/json) from `body` and
 * calls `onEvent` for each until it returns true or the stream ends.
 * @throws KubernetesApiError for an `ERROR` event (its Status code, default 500), SyntaxError for a line that is not JSON.
 */
async function readWatchEvents(
  body: AsyncIterable<unknown>,
  path: string,
  onEvent: (event: WatchEvent) => boolean | void,
): Promise<void> {
  let buffered = '';
  for await (const chunk of body) {
    buffered += (chunk as Buffer).toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line === '') continue;
      const event = JSON.parse(line) as WatchEvent;
      if (event.type === 'ERROR') {
        const st = event.object as { code?: number; reason?: string; message?: string };
        throw new KubernetesApiError(st.code ?? 500, 'GET', path, st.reason ?? '', st.message ?? '');
      }
      if (onEvent(event) === true) return;
    }
  }
}
