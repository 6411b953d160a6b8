/**
 * What one API client knows of the server's outages: whether it has answered yet, when it last
 * did not (a restarting kube-apiserver), and the error for a request that got no answer.
 */
import { ClusterAccessError, KubernetesApiError } from './errors.js';

/**
 * How long after a request got no answer (the server restarting) a 403 is taken for the
 * restarted server's RBAC cache not yet synced, and retried (ms).
 */
const backFromOutageMs = 15_000;

/** How many requests one client sent (retries included), and whether the server has answered one yet. */
export class RequestCounters {
  sent = 0;
  answered = false;
  /** When a request last got no answer at all (refused, reset, timed out): ms since the epoch. */
  lastNoAnswerAt: number | undefined;
  /** Notes that a try got no answer (the server may be restarting). */
  markNoAnswer(): void {
    this.lastNoAnswerAt = Date.now();
  }
  /**
   * Whether the server went without answering a moment ago (`backFromOutageMs`): a kube-apiserver
   * that just started answers 403 to RBAC-bound users for 0.1–2 s, until its RBAC cache syncs.
   */
  justBack(): boolean {
    return this.lastNoAnswerAt !== undefined && Date.now() - this.lastNoAnswerAt < backFromOutageMs;
  }
  /** Counts one HTTP request about to be sent. */
  countSent(): void {
    this.sent++;
  }
  /** Notes that the server answered (any status). */
  markAnswered(): void {
    this.answered = true;
  }
}

/** Whether `error` is a 403 answer. */
export const isForbidden = (error: unknown) => error instanceof KubernetesApiError && error.status === 403;

/**
 * Pure: the error for a request that got no answer, saying whether the server had answered
 * before (and for how long, `waitedMs`, it was tried again) or never did.
 */
export function unreachableError(
  server: string,
  req: { readonly method?: string; readonly path: string },
  error: unknown,
  hadAnswered: boolean,
  waitedMs: number,
  pastDeadline = false,
): ClusterAccessError {
  return new ClusterAccessError(
    'unreachable',
    `the API server ${server} did not answer ${req.method ?? 'GET'} ${req.path} ` +
      `(${(error as Error).message || (error as { code?: string }).code}); ` +
      (!hadAnswered
        ? 'is the cluster running and the address right?'
        : pastDeadline
          ? `it had answered before, and was tried again for ${Math.round(waitedMs / 1000)} s, until the overall timeout ran out: is the control plane (API server, etcd) down?`
          : `it had answered before, and was tried again for ${Math.round(waitedMs / 1000)} s: is the control plane (API server, etcd) down?`),
  );
}

/** Pause in ms between two rounds of retries while a server that answered before does not. */
export const outagePauseMs = 2000;
