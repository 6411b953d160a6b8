import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { isRetryable, withRetries } from '../../../src/util/retry.js';

const apiError = (status: number, retryAfter?: number) =>
  new KubernetesApiError(status, 'GET', '/api/v1/pods', '', 'x', retryAfter);

test.each([
  [429, false, true],
  [500, false, true],
  [503, false, true],
  [409, false, false],
  [409, true, true],
  [404, false, false],
  [403, false, false],
])('HTTP %d (retryConflict %s) retryable: %s', (status, conflict, expected) => {
  expect(isRetryable(apiError(status), conflict)).toBe(expected);
});

test('transport errors: refused is retried, TLS is not', () => {
  expect(isRetryable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
  expect(isRetryable(Object.assign(new Error('x'), { cause: { code: 'SELF_SIGNED_CERT_IN_CHAIN' } }))).toBe(
    false,
  );
});

test('retries 429 and waits at least Retry-After', async () => {
  const delays: number[] = [];
  let calls = 0;
  const result = await withRetries(
    async () => {
      calls++;
      if (calls < 3) throw apiError(429, 1);
      return 'ok';
    },
    { minDelayMs: 1, maxDelayMs: 2, onRetry: (n) => delays.push(n.delayMs) },
  );
  expect(result).toBe('ok');
  expect(calls).toBe(3);
  expect(delays.every((d) => d >= 1000)).toBe(true);
});

test('a 404 is not retried', async () => {
  let calls = 0;
  await expect(
    withRetries(async () => {
      calls++;
      throw apiError(404);
    }),
  ).rejects.toThrow('HTTP 404');
  expect(calls).toBe(1);
});

test("a timeout from another realm (AbortSignal.timeout's DOMException in jest's vm) keeps its name and is retried", async () => {
  let calls = 0;
  const result = await withRetries(
    async () => {
      calls++;
      // Not an Error of this realm: the shape the request timeout takes under jest.
      if (calls === 1) throw { name: 'TimeoutError', message: 'The operation was aborted due to timeout' };
      return 'ok';
    },
    { minDelayMs: 1, maxDelayMs: 1 },
  );
  expect(result).toBe('ok');
  expect(calls).toBe(2);
});
