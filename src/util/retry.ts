import pRetry, { AbortError } from 'p-retry';
import { KubernetesApiError, isTlsError, isUnreachableError } from '../cluster/errors.js';

/** What a retry looked like, for progress logs. */
export interface RetryNotice {
  readonly attempt: number;
  readonly retriesLeft: number;
  /** How long the next try waits, in ms (backoff, or Retry-After when that is longer). */
  readonly delayMs: number;
  readonly error: unknown;
}

export interface RetryOptions {
  /** Retries after the first try (default 4). */
  readonly retries?: number;
  /** First backoff in ms (default 250); it doubles up to `maxDelayMs` (default 5000). */
  readonly minDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Whether HTTP 409 Conflict is worth another try (true for writes that race a controller). */
  readonly retryConflict?: boolean;
  readonly onRetry?: (notice: RetryNotice) => void;
  readonly signal?: AbortSignal;
}

/** Longest Retry-After that is honoured, in seconds; a server asking for more is capped. */
export const maxRetryAfterSeconds = 30;

/**
 * Whether an error from a Kubernetes request is worth another try: 429 and 5xx (as client-go's
 * `IsRetryableError`/`WithRetry` policy), 409 when `retryConflict`, and transport errors that
 * got no answer (reset, refused, timeout). TLS failures and other 4xx are final.
 */
export function isRetryable(error: unknown, retryConflict = false): boolean {
  if (error instanceof KubernetesApiError) {
    return (
      error.status === 429 ||
      error.status === 500 ||
      error.status === 502 ||
      error.status === 503 ||
      error.status === 504 ||
      (retryConflict && error.status === 409)
    );
  }
  if (isTlsError(error)) return false;
  if (isUnreachableError(error)) return true;
  return (error as { name?: string } | null)?.name === 'TimeoutError';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `operation` with exponential backoff (p-retry) under the policy of `isRetryable`,
 * waiting at least the server's Retry-After (capped at 30 s) before the next try.
 * @throws the last error when it is not retryable or the retries are used up.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions = {}) {
  return pRetry(
    async (attempt) => {
      try {
        return await operation(attempt);
      } catch (caught) {
        // p-retry only handles Error instances of this realm; undici's transport errors and
        // the DOMException of AbortSignal.timeout can come from another (jest's vm modules), so
        // wrap those, keeping the original as cause and its name (TimeoutError is retryable).
        const error =
          caught instanceof Error
            ? caught
            : Object.assign(new Error(String((caught as Error)?.message ?? caught)), {
                cause: caught,
                ...(typeof (caught as Error)?.name === 'string' ? { name: (caught as Error).name } : {}),
              });
        if (!isRetryable(error, options.retryConflict)) throw new AbortError(error);
        throw error;
      }
    },
    {
      retries: options.retries ?? 4,
      minTimeout: options.minDelayMs ?? 250,
      maxTimeout: options.maxDelayMs ?? 5000,
      factor: 2,
      randomize: true,
      ...(options.signal ? { signal: options.signal } : {}),
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft, retryDelay }) => {
        if (retriesLeft <= 0) return;
        const retryAfter =
          error instanceof KubernetesApiError && error.retryAfterSeconds !== undefined
            ? Math.min(error.retryAfterSeconds, maxRetryAfterSeconds) * 1000
            : 0;
        const extra = Math.max(0, retryAfter - retryDelay);
        options.onRetry?.({ attempt: attemptNumber, retriesLeft, delayMs: retryDelay + extra, error });
        if (extra > 0) await sleep(extra);
      },
    },
  );
}
