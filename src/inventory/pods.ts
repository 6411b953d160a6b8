/**
 * Whole Pods for the rules that read pod spec and status (pod-stuck-terminating,
 * pvc-protection-blocked), fetched after the metadata lists so that the inventory never lists
 * every Pod whole. Extra requests, on top of the lists:
 * - one paged namespaced list of Pods (whole) per namespace that holds a PersistentVolumeClaim
 *   with a deletionTimestamp (which pods use the claim is only in their spec.volumes);
 * - one paged namespaced list of Pods (whole) per namespace with a ResourceQuota at its
 *   `count/pods` limit (which Pods are terminal is only in their status.phase);
 * - one GET per other Pod that carries a deletionTimestamp (404: gone meanwhile, dropped).
 * A healthy cluster has none of these, so the usual cost is zero requests.
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { listAll } from './list.js';
import type { CoverageGap, ObjectMetadata } from './types.js';

const pods = { group: '', version: 'v1', resource: 'pods' } as const;

/** What to fetch whole: namespaces whose Pods are listed whole, and single Pods to GET. */
export interface PodFetchPlan {
  /** Namespaces with a PersistentVolumeClaim being deleted or a full `count/pods` quota, sorted. */
  readonly namespaces: readonly string[];
  /** Pods with a deletionTimestamp outside those namespaces. */
  readonly pods: readonly { readonly namespace: string; readonly name: string }[];
}

/** The fields of a whole ResourceQuota read here. */
interface QuotaCounts {
  readonly metadata?: { readonly namespace?: string };
  readonly status?: {
    readonly hard?: Readonly<Record<string, string>>;
    readonly used?: Readonly<Record<string, string>>;
  };
}

/** Pure: the namespaces of the quotas whose `count/pods` is used up (used ≥ hard, whole numbers). */
export function fullPodQuotaNamespaces(quotas: readonly unknown[]): string[] {
  const count = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);
  return (quotas as readonly QuotaCounts[]).flatMap((q) => {
    const hard = count(q.status?.hard?.['count/pods']);
    const used = count(q.status?.used?.['count/pods']);
    return hard !== undefined && used !== undefined && used >= hard && q.metadata?.namespace
      ? [q.metadata.namespace]
      : [];
  });
}

/**
 * Pure: which Pods the rules need whole, from the metadata snapshot (`objects`: every listed
 * object; Pods and PersistentVolumeClaims are read from it by resource) and the whole
 * ResourceQuotas (`quotas`, as listed; anything else in them is ignored).
 */
export function podsToFetch(
  objects: readonly ObjectMetadata[],
  quotas: readonly unknown[] = [],
): PodFetchPlan {
  const core = (o: ObjectMetadata, resource: string) => o.resource === resource && o.apiVersion === 'v1';
  const namespaces = [
    ...new Set([
      ...objects
        .filter((o) => core(o, 'persistentvolumeclaims') && o.deletionTimestamp && o.namespace)
        .map((o) => o.namespace!),
      ...fullPodQuotaNamespaces(quotas),
    ]),
  ].sort();
  const listed = new Set(namespaces);
  const single = objects
    .filter((o) => core(o, 'pods') && o.deletionTimestamp && o.namespace && !listed.has(o.namespace))
    .map((o) => ({ namespace: o.namespace!, name: o.name }));
  return { namespaces, pods: single };
}

function gap(what: string, error: unknown): CoverageGap {
  const forbidden = error instanceof KubernetesApiError && error.status === 403;
  const message =
    error instanceof KubernetesApiError
      ? error.apiMessage || `HTTP ${error.status}`
      : ((error as Error)?.message ?? String(error));
  return {
    resource: `pods/v1 (whole objects: ${what})`,
    reason: forbidden ? 'forbidden' : 'failed',
    message,
    ...(forbidden ? { hint: 'apiGroups: [""], resources: ["pods"], verbs: ["get", "list"]' } : {}),
  };
}

/**
 * Fetches the Pods of `plan` whole, at most `concurrency` requests at once.
 * @returns the Pods (plain JSON, with apiVersion and kind set) and a coverage gap per request
 *   that failed (403 or other errors); a 404 on a GET means the Pod is gone and is no gap.
 * @throws ClusterAccessError when the API server cannot be reached at all.
 */
export async function fetchPods(
  api: ApiClient,
  plan: PodFetchPlan,
  options: { readonly concurrency: number; readonly pageSize: number },
): Promise<{ pods: unknown[]; coverage: CoverageGap[] }> {
  const limit = pLimit(options.concurrency);
  const out: unknown[] = [];
  const coverage: CoverageGap[] = [];
  const keep = (item: Record<string, unknown>) => out.push({ ...item, apiVersion: 'v1', kind: 'Pod' });
  const rethrowAccess = (error: unknown) => {
    if ((error as Error)?.name === 'ClusterAccessError') throw error;
  };
  await Promise.all([
    ...plan.namespaces.map((namespace) =>
      limit(async () => {
        try {
          await listAll(api, pods, { pageSize: options.pageSize, full: true, namespace, onItem: keep });
        } catch (error) {
          rethrowAccess(error);
          coverage.push(gap(`namespace ${namespace}`, error));
        }
      }),
    ),
    ...plan.pods.map((p) =>
      limit(async () => {
        try {
          keep(
            await api.request<Record<string, unknown>>({
              path: `/api/v1/namespaces/${encodeURIComponent(p.namespace)}/pods/${encodeURIComponent(p.name)}`,
            }),
          );
        } catch (error) {
          rethrowAccess(error);
          if (error instanceof KubernetesApiError && error.status === 404) return;
          coverage.push(gap(`${p.namespace}/${p.name}`, error));
        }
      }),
    ),
  ]);
  return { pods: out, coverage };
}
