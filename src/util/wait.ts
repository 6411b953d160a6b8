/** A clock that can be replaced in tests. Times in ms. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface WaitOptions {
  /** Give up after this many ms. */
  readonly timeoutMs: number;
  /** First pause between checks in ms (default 250); grows by 1.5 up to `maxIntervalMs` (default 2000). */
  readonly intervalMs?: number;
  readonly maxIntervalMs?: number;
  readonly clock?: Clock;
  /** What is being waited for, for the timeout message ("namespace pr-12 to be gone"). */
  readonly description: string;
}

/** Thrown by `waitFor` when the predicate did not hold in time; `last` is its last value. */
export class WaitTimeoutError<T> extends Error {
  constructor(
    message: string,
    readonly last: T | undefined,
  ) {
    super(message);
    this.name = 'WaitTimeoutError';
  }
}

/**
 * Polls `check` until it returns `{ done: true }`, backing off between checks. The single
 * wait helper of the project: teardown waits and tests use it alike.
 * @returns the value of the check that was done.
 * @throws WaitTimeoutError after `timeoutMs`, carrying the last value seen; errors thrown by
 *   `check` propagate at once.
 */
export async function waitFor<T>(
  check: () => Promise<{ done: boolean; value: T }>,
  options: WaitOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + options.timeoutMs;
  let interval = options.intervalMs ?? 250;
  let last: T | undefined;
  for (;;) {
    const result = await check();
    last = result.value;
    if (result.done) return result.value;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new WaitTimeoutError(
        `timed out after ${options.timeoutMs} ms waiting for ${options.description}`,
        last,
      );
    }
    await clock.sleep(Math.min(interval, left));
    interval = Math.min(interval * 1.5, options.maxIntervalMs ?? 2000);
  }
}
