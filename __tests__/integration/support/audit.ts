import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterEnv } from './cluster.js';

/** One API server audit event (audit.k8s.io/v1 Event, level Metadata). */
export interface AuditEvent {
  readonly verb: string;
  readonly requestURI: string;
  readonly userAgent?: string;
  /** The authenticated user (a client certificate's CN, a service account, ...). */
  readonly user?: { readonly username?: string };
  readonly stage: string;
  readonly requestReceivedTimestamp: string;
  readonly responseStatus?: { code?: number };
}

/** Byte offset of the end of the audit log now: events after it are "since" this call. */
export function auditMark(): number {
  try {
    return readFileSync(join(clusterEnv().clusterDir, 'audit.log')).length;
  } catch {
    return 0;
  }
}

/** Every audit event written after `mark` (ResponseComplete stage), from any client. */
export function auditEventsSince(mark: number): AuditEvent[] {
  const log = readFileSync(join(clusterEnv().clusterDir, 'audit.log'));
  // A mark taken while the API server was writing a line falls inside it: that line (an event of
  // before the mark) is skipped, up to its newline.
  const start = mark > 0 && log[mark - 1] !== 0x0a ? log.indexOf(0x0a, mark) + 1 || log.length : mark;
  const text = log.subarray(start).toString('utf8');
  // The API server may be writing the last line: only whole lines (ending in a newline) are read.
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.stage === 'ResponseComplete');
}

/** Audit events written after `mark` (ResponseComplete stage), sent by kube-sweep's own client. */
export function kubeSweepRequestsSince(mark: number): AuditEvent[] {
  return auditEventsSince(mark).filter((e) => (e.userAgent ?? '').startsWith('kube-sweep'));
}

export const mutatingVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * Whether a request was a dry run (`dryRun=All` in its query): the API server runs admission
 * and stores nothing, so it changes nothing (the scan's remedy checks, inventory/held-objects.ts).
 */
export const isDryRun = (e: AuditEvent) => /[?&]dryRun=All(&|$)/.test(e.requestURI);

/** Whether kube-sweep (user agent `kube-sweep`) or the helm it runs (`Helm/<version>`) sent it. */
export const fromKubeSweepOrHelm = (e: AuditEvent) => /^(kube-sweep|Helm\/)/.test(e.userAgent ?? '');

/**
 * Mutating requests sent by kube-sweep or by the helm it runs (user agents `kube-sweep` and
 * `Helm/<version>`), dry runs left out (`isDryRun`), written after `mark` and received at or after `since` (an event of a
 * request sent just before the mark can be written just after it). Other clients that share
 * the admin identity (kwok) are left out; the tests' own client also says `kube-sweep`, so
 * nothing else may run between the mark and the check (jest runs in band).
 */
export function toolMutationsSince(mark: number, since: Date): AuditEvent[] {
  return auditEventsSince(mark).filter(
    (e) =>
      fromKubeSweepOrHelm(e) &&
      mutatingVerbs.has(e.verb) &&
      !isDryRun(e) &&
      Date.parse(e.requestReceivedTimestamp) >= since.getTime(),
  );
}

/** Every audit event written after `mark` (ResponseComplete stage) of requests by user `name`. */
export function requestsOfUserSince(mark: number, name: string): AuditEvent[] {
  return auditEventsSince(mark).filter((e) => e.user?.username === name);
}
