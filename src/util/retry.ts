import pRetry, { AbortError } from 'p-retry';

/** What a retry looked like, for progress logs. */
export interface RetryNotice {
  readonly attempt: number;
  readonly retriesLeft: number;
  /** How long the next try waits, in ms (backoff, or the error's retry-after when that is longer). */
  readonly delayMs: number;
  readonly error: unknown;
}

/** The retry policy and backoff. The policy is the caller's: this module knows no protocol. */
export interface RetryOptions {
  /** Whether a failed try is worth another one; false ends the retries with that error. */
  readonly isRetryable: (error: Error) => boolean;
  /**
   * The least wait in seconds the error asks for before the next try (an HTTP Retry-After),
   * or undefined; capped at `maxRetryAfterSeconds`. Default: none.
   */
  readonly retryAfterSeconds?: (error: Error) => number | undefined;
  /** Retries after the first try (default 4). */
  readonly retries?: number;
  /** First backoff in ms (default 250); it doubles up to `maxDelayMs` (default 5000). */
  readonly minDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onRetry?: (notice: RetryNotice) => void;
  readonly signal?: AbortSignal;
  /**
   * When the retries must end (ms since the epoch, on `now`'s clock): a retry that would start
   * at or after it (its backoff and retry-after included) is not made, and the last error is
   * thrown marked `cutAtDeadline` (`wasCutAtDeadline`). Default: none.
   */
  readonly deadlineAt?: number;
  /** The clock of `deadlineAt` (default Date.now). */
  readonly now?: () => number;
}

const cutMark = Symbol('kube-sweep.cutAtDeadline');

/**
 * Whether `error` ended its retries because the next one would have started past their
 * `deadlineAt` (the overall `timeout`): not tried again, though it was worth it.
 */
export function wasCutAtDeadline(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[cutMark] === true;
}

/** Marks `error` as cut at the deadline (`wasCutAtDeadline`) and returns it. */
export function markCutAtDeadline<E>(error: E): E {
  if (typeof error === 'object' && error !== null)
    Object.defineProperty(error, cutMark, { value: true, enumerable: false });
  return error;
}

/** Longest retry-after that is honoured, in seconds; an error asking for more is capped. */
export const maxRetryAfterSeconds = 30;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `operation` with exponential backoff (p-retry) while `options.isRetryable` says a
 * failure is worth another try, waiting at least the error's `retryAfterSeconds` (capped at
 * 30 s) before the next one, and never starting one past `options.deadlineAt`. A thrown non-Error (another realm's error, a plain object) is
 * wrapped in an Error that keeps its `name` and `message`, with the original as `cause`.
 * @throws the last error when it is not retryable or the retries are used up; marked
 *   `wasCutAtDeadline` when the next retry would have started past `options.deadlineAt`.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, options: RetryOptions) {
  return pRetry(
    async (attempt) => {
      try {
        return await operation(attempt);
      } catch (caught) {
        // p-retry only handles Error instances of this realm; undici's transport errors and
        // the DOMException of AbortSignal.timeout can come from another (jest's vm modules), so
        // wrap those, keeping the original as cause and its name (a TimeoutError stays one).
        const error =
          caught instanceof Error
            ? caught
            : Object.assign(new Error(String((caught as Error)?.message ?? caught)), {
                cause: caught,
                ...(typeof (caught as Error)?.name === 'string' ? { name: (caught as Error).name } : {}),
              });
        if (!options.isRetryable(error)) throw new AbortError(error);
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
        const asked = options.retryAfterSeconds?.(error);
        const retryAfter = asked === undefined ? 0 : Math.min(asked, maxRetryAfterSeconds) * 1000;
        const extra = Math.max(0, retryAfter - retryDelay);
        const now = (options.now ?? Date.now)();
        if (options.deadlineAt !== undefined && now + retryDelay + extra >= options.deadlineAt)
          throw markCutAtDeadline(error);
        options.onRetry?.({ attempt: attemptNumber, retriesLeft, delayMs: retryDelay + extra, error });
        if (extra > 0) await sleep(extra);
      },
    },
  );
}
