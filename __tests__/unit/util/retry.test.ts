import { wasCutAtDeadline, withRetries } from '../../../src/util/retry.js';

class Busy extends Error {
  constructor(readonly waitSeconds?: number) {
    super('busy');
  }
}
const busyOnly = (error: Error) => error instanceof Busy;

test('retries while the predicate says so and waits at least the retry-after the error asks for', async () => {
  const delays: number[] = [];
  let calls = 0;
  const result = await withRetries(
    async () => {
      calls++;
      if (calls < 3) throw new Busy(1);
      return 'ok';
    },
    {
      isRetryable: busyOnly,
      retryAfterSeconds: (e) => (e instanceof Busy ? e.waitSeconds : undefined),
      minDelayMs: 1,
      maxDelayMs: 2,
      onRetry: (n) => delays.push(n.delayMs),
    },
  );
  expect(result).toBe('ok');
  expect(calls).toBe(3);
  expect(delays).toHaveLength(2);
  expect(delays.every((d) => d >= 1000)).toBe(true);
});

test('an error the predicate refuses is not retried', async () => {
  let calls = 0;
  await expect(
    withRetries(
      async () => {
        calls++;
        throw new Error('final');
      },
      { isRetryable: busyOnly },
    ),
  ).rejects.toThrow('final');
  expect(calls).toBe(1);
});

test('the last error is thrown when the retries are used up', async () => {
  let calls = 0;
  await expect(
    withRetries(
      async () => {
        calls++;
        throw new Busy();
      },
      { isRetryable: busyOnly, retries: 2, minDelayMs: 1, maxDelayMs: 1 },
    ),
  ).rejects.toThrow('busy');
  expect(calls).toBe(3);
});

test("a throw from another realm (AbortSignal.timeout's DOMException in jest's vm) keeps its name for the predicate", async () => {
  let calls = 0;
  const seen: string[] = [];
  const result = await withRetries(
    async () => {
      calls++;
      // Not an Error of this realm: the shape the request timeout takes under jest.
      if (calls === 1) throw { name: 'TimeoutError', message: 'The operation was aborted due to timeout' };
      return 'ok';
    },
    {
      isRetryable: (e) => {
        seen.push(`${e.name}: ${e.message}`);
        return e.name === 'TimeoutError';
      },
      minDelayMs: 1,
      maxDelayMs: 1,
    },
  );
  expect(result).toBe('ok');
  expect(calls).toBe(2);
  expect(seen).toEqual(['TimeoutError: The operation was aborted due to timeout']);
});

test('no retry starts at or past the deadline: the last error is thrown, marked cut at the deadline', async () => {
  // A clock that each try moves on by 4 s; the deadline is at 10 s.
  let now = 0;
  let calls = 0;
  const error = await withRetries(
    async () => {
      calls++;
      now += 4000;
      throw new Busy();
    },
    { isRetryable: busyOnly, retries: 10, minDelayMs: 1, maxDelayMs: 1, deadlineAt: 10_000, now: () => now },
  ).catch((e: unknown) => e);
  expect((error as Error).message).toBe('busy');
  // Tries at 4 s and 8 s were retried; after the one that ended at 12 s none starts.
  expect(calls).toBe(3);
  expect(wasCutAtDeadline(error)).toBe(true);
});

test('a Retry-After that would carry the next try past the deadline is not waited: one try, cut', async () => {
  let calls = 0;
  const waited: number[] = [];
  const error = await withRetries(
    async () => {
      calls++;
      throw new Busy(30);
    },
    {
      isRetryable: busyOnly,
      retryAfterSeconds: (e) => (e instanceof Busy ? e.waitSeconds : undefined),
      deadlineAt: 20_000,
      now: () => 0,
      onRetry: (n) => waited.push(n.delayMs),
    },
  ).catch((e: unknown) => e);
  expect(calls).toBe(1);
  expect(waited).toEqual([]);
  expect(wasCutAtDeadline(error)).toBe(true);
});

test('retries used up before the deadline are not marked cut at the deadline', async () => {
  const error = await withRetries(
    async () => {
      throw new Busy();
    },
    { isRetryable: busyOnly, retries: 1, minDelayMs: 1, maxDelayMs: 1, deadlineAt: Date.now() + 60_000 },
  ).catch((e: unknown) => e);
  expect(wasCutAtDeadline(error)).toBe(false);
});
