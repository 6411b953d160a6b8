import type { ApiClient, ApiRequest } from './api-client.js';

/**
 * An ApiClient that sends nothing once `signal` is aborted (the run was cancelled: SIGINT or
 * SIGTERM, util/cancellation.ts): every later request and watch is refused with the signal's
 * reason (a CancelledError) before anything is sent, and watches already open end. Requests
 * already sent are let to finish. `onAnswered` is told each request that got a 2xx answer, so
 * that the run can say what it did before it stopped (main.ts: the namespaces it deleted).
 * @throws the abort reason from `request`, `requestBytes` and `watch` once `signal` is aborted.
 */
export function cancellableApi(
  api: ApiClient,
  signal: AbortSignal,
  onAnswered: (req: ApiRequest) => void = () => {},
): ApiClient {
  const guarded = async <T>(req: ApiRequest, send: () => Promise<T>): Promise<T> => {
    signal.throwIfAborted();
    const answer = await send();
    onAnswered(req);
    return answer;
  };
  return {
    server: api.server,
    request: <T = unknown>(req: ApiRequest) => guarded(req, () => api.request<T>(req)),
    requestBytes: (req: ApiRequest) => guarded(req, () => api.requestBytes(req)),
    async watch(req, onEvent) {
      signal.throwIfAborted();
      await api.watch(
        { ...req, signal: req.signal ? AbortSignal.any([req.signal, signal]) : signal },
        onEvent,
      );
    },
    sentRequests: () => api.sentRequests(),
    close: () => api.close(),
  };
}
