/**
 * Why the cluster could not be used. Each kind maps to one fix the user can make; the
 * message always names the input or the server involved and never contains a credential.
 */
export type ClusterAccessProblem =
  | 'no-such-file'
  | 'not-a-kubeconfig'
  | 'no-such-context'
  | 'no-server'
  | 'unreachable'
  | 'tls'
  | 'unauthorized'
  | 'forbidden'
  | 'kind';

/** Thrown when the cluster the inputs name cannot be reached or used (exit code 2 in the CLI). */
export class ClusterAccessError extends Error {
  constructor(
    readonly problem: ClusterAccessProblem,
    message: string,
  ) {
    super(message);
    this.name = 'ClusterAccessError';
  }
}

/**
 * An API request that got an HTTP answer other than 2xx. `apiMessage` is the Status
 * object's `message` (never the whole body or headers); `reason` is Status.reason
 * (e.g. NotFound, Forbidden, ServiceUnavailable).
 */
export class KubernetesApiError extends Error {
  constructor(
    readonly status: number,
    readonly method: string,
    readonly path: string,
    readonly reason: string,
    readonly apiMessage: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(
      `${method} ${path}: HTTP ${status}${reason ? ` ${reason}` : ''}${apiMessage ? `: ${apiMessage}` : ''}`,
    );
    this.name = 'KubernetesApiError';
  }
}

/**
 * A request kube-sweep refused to send because its path is unsafe (cluster/object-names.ts
 * `requestPathProblem`: an empty, `.` or `..` segment, or one holding `/` or `%`, which would
 * address another object or a whole collection). Never retried; the path is quoted as JSON.
 */
export class UnsafeRequestPathError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`not sent: the request path ${JSON.stringify(path)} is unsafe (${problem})`);
    this.name = 'UnsafeRequestPathError';
  }
}

const tlsCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);
const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'ECONNRESET',
]);

/** The Node/undici error code of a transport error, looking through `cause` chains. */
export function transportErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (tlsCodes.has(code) || unreachableCodes.has(code))) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True for a transport error that is TLS verification failing. */
export function isTlsError(error: unknown): boolean {
  const code = transportErrorCode(error);
  return code !== undefined && tlsCodes.has(code);
}

/** True for a transport error where no answer came (refused, reset, DNS, timeout). */
export function isUnreachableError(error: unknown): boolean {
  const code = transportErrorCode(error);
  return code !== undefined && unreachableCodes.has(code);
}
