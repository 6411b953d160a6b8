/** A bearer token and, when its issuer says so, the moment it stops being good. */
export interface IssuedToken {
  readonly token: string;
  /** When the token expires, in ms since the epoch; undefined when the issuer does not say. */
  readonly expiresAt?: number;
}

/**
 * A bearer token that can be obtained again: from an exec credential plugin, a `tokenFile` or an
 * auth-provider. `token()` hands out the cached token until its `expiresAt` has passed, then
 * fetches a new one; `renew(rejected)` fetches a new one after the API server answered 401 to
 * `rejected` (client-go does the same: exec tokens are refreshed on expiry and on a 401, see
 * k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go, and tokenFile is re-read, see
 * k8s.io/client-go/transport/token_source.go). Concurrent callers share one fetch. Every token
 * obtained is passed to `onToken` once (to be masked in logs).
 */
export class TokenSource {
  private pending: Promise<IssuedToken> | undefined;
  private lastToken: string | undefined;

  /**
   * @param fetch obtains a new token (runs the plugin, reads the file); its errors reach the
   *   request that needed the token
   * @param onToken called with every distinct token obtained, before it is used
   * @param initial a token already obtained (the first run of the plugin), to start with
   * @param now the clock, in ms since the epoch
   */
  constructor(
    private readonly fetch: () => Promise<IssuedToken>,
    private readonly onToken: (token: string) => void,
    initial?: IssuedToken,
    private readonly now: () => number = Date.now,
  ) {
    if (initial) {
      this.note(initial);
      this.pending = Promise.resolve(initial);
    }
  }

  private note(issued: IssuedToken): void {
    if (issued.token !== this.lastToken) this.onToken(issued.token);
    this.lastToken = issued.token;
  }

  private load(): Promise<IssuedToken> {
    const loading = this.fetch().then((issued) => {
      this.note(issued);
      return issued;
    });
    this.pending = loading;
    // A failed fetch is not cached: the next request tries again.
    loading.catch(() => {
      if (this.pending === loading) this.pending = undefined;
    });
    return loading;
  }

  /** The token to send now: the cached one, or a new one when it has expired. */
  async token(): Promise<string> {
    const current = this.pending ?? this.load();
    const issued = await current;
    if (issued.expiresAt === undefined || issued.expiresAt > this.now()) return issued.token;
    return (await (this.pending === current ? this.load() : this.pending!)).token;
  }

  /**
   * The token to retry with after the server answered 401 to `rejected`: a new one, unless
   * another request has already replaced `rejected`.
   */
  async renew(rejected: string): Promise<string> {
    const current = this.pending;
    const issued = current ? await current.catch(() => undefined) : undefined;
    if (current && issued && issued.token !== rejected) return issued.token;
    return (await (this.pending === current || !this.pending ? this.load() : this.pending)).token;
  }
}
