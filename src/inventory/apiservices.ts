import type { FailedGroupVersion } from './types.js';

interface APIServiceObject {
  metadata?: { name?: string };
  spec?: { group?: string; version?: string; service?: { namespace?: string; name?: string } | null };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/**
 * Pure: the group-versions served by an aggregated APIService whose `Available` condition is
 * False (reasons ServiceNotFound, MissingEndpoints, ServiceAccessError, FailedDiscoveryCheck:
 * k8s.io/kube-aggregator/pkg/controllers/status). Discovery may leave such a group-version
 * out instead of marking it stale, so the snapshot records it from the APIService too.
 * Local APIServices (no `spec.service`) are served by kube-apiserver itself and skipped.
 */
export function unavailableAPIServices(apiServices: readonly unknown[]): FailedGroupVersion[] {
  const out: FailedGroupVersion[] = [];
  for (const raw of apiServices as APIServiceObject[]) {
    if (!raw.spec?.service) continue;
    const available = raw.status?.conditions?.find((c) => c.type === 'Available');
    if (!available || available.status !== 'False') continue;
    out.push({
      groupVersion: `${raw.spec.group ?? ''}/${raw.spec.version ?? ''}`,
      message:
        `APIService ${raw.metadata?.name ?? ''} is not Available (${available.reason ?? 'unknown'}): ${available.message ?? ''}`.trim(),
    });
  }
  return out;
}
