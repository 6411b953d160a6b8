import { KubernetesApiError } from '../../../src/cluster/errors.js';
import {
  isRetryableKubernetesError,
  kubernetesRetryAfterSeconds,
} from '../../../src/cluster/retry-policy.js';

const apiError = (status: number, retryAfter?: number) =>
  new KubernetesApiError(status, 'GET', '/api/v1/pods', '', 'x', retryAfter);

test.each([
  [429, false, true],
  [500, false, true],
  [501, false, false],
  [502, false, true],
  [503, false, true],
  [504, false, true],
  [505, false, false],
  [409, false, false],
  [409, true, true],
  [404, false, false],
  [403, false, false],
])('HTTP %d (retryConflict %s) retryable: %s', (status, conflict, expected) => {
  expect(isRetryableKubernetesError(apiError(status), conflict)).toBe(expected);
});

test('transport errors: refused is retried, TLS is not', () => {
  expect(isRetryableKubernetesError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
  expect(
    isRetryableKubernetesError(
      Object.assign(new Error('x'), { cause: { code: 'SELF_SIGNED_CERT_IN_CHAIN' } }),
    ),
  ).toBe(false);
});

test('a timeout is retried', () => {
  expect(isRetryableKubernetesError({ name: 'TimeoutError', message: 'aborted' })).toBe(true);
});

test('the Retry-After of an API answer is read, other errors have none', () => {
  expect(kubernetesRetryAfterSeconds(apiError(429, 3))).toBe(3);
  expect(kubernetesRetryAfterSeconds(new Error('x'))).toBeUndefined();
});
