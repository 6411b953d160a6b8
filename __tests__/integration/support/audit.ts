import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterEnv } from './cluster.js';

/** One API server audit event (audit.k8s.io/v1 Event, level Metadata). */
export interface AuditEvent {
  readonly verb: string;
  readonly requestURI: string;
  readonly userAgent?: string;
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

/** Audit events written after `mark` (ResponseComplete stage), sent by kube-sweep's own client. */
export function kubeSweepRequestsSince(mark: number): AuditEvent[] {
  const text = readFileSync(join(clusterEnv().clusterDir, 'audit.log')).subarray(mark).toString('utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEvent)
    .filter((e) => e.stage === 'ResponseComplete' && (e.userAgent ?? '').startsWith('kube-sweep'));
}

export const mutatingVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
