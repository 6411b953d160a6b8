import { withRetries } from '../../../src/util/retry.js';

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
