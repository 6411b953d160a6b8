import { KubernetesApiError, isTlsError, isUnreachableError } from './errors.js';

/** HTTP statuses of a Kubernetes answer that are retried: 429, 500, 502, 503 and 504. */
export const retryableStatuses: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * Whether an error from a Kubernetes request is worth another try: HTTP 429 (too many
 * requests, priority and fairness), 500, 502, 503 and 504 (a transient server or proxy
 * failure), 409 when `retryConflict`, and transport errors that got no answer (reset, refused,
 * timeout). Every other status (other 4xx, and 501, 505 and up) and TLS failures are final.
 */
export function isRetryableKubernetesError(error: unknown, retryConflict = false): boolean {
  if (error instanceof KubernetesApiError) {
    return retryableStatuses.has(error.status) || (retryConflict && error.status === 409);
  }
  if (isTlsError(error)) return false;
  if (isUnreachableError(error)) return true;
  return (error as { name?: string } | null)?.name === 'TimeoutError';
}

/** The Retry-After of a Kubernetes answer, in seconds, when it carried one. */
export function kubernetesRetryAfterSeconds(error: unknown): number | undefined {
  return error instanceof KubernetesApiError ? error.retryAfterSeconds : undefined;
}
