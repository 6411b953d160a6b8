import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import type { FailedGroupVersion, ServedResource } from './types.js';

/**
 * Discovery result: every served resource (subresources dropped), the preferred version of
 * each group, and the group-versions that failed. Failures are data, never thrown.
 */
export interface DiscoveryResult {
  readonly resources: readonly ServedResource[];
  /** group → preferred version ('' is core → 'v1'). */
  readonly preferredVersions: ReadonlyMap<string, string>;
  readonly failed: readonly FailedGroupVersion[];
  /** Whether the server answered with aggregated discovery (apidiscovery.k8s.io/v2). */
  readonly aggregated: boolean;
}

/** Accept header for aggregated discovery, KEP-3352 (apidiscovery.k8s.io/v2, GA in 1.30). */
export const aggregatedDiscoveryAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9';

interface AggregatedResource {
  resource: string;
  responseKind?: { group?: string; version?: string; kind?: string };
  scope: 'Namespaced' | 'Cluster';
  verbs?: string[];
}
interface AggregatedList {
  kind?: string;
  items?: {
    metadata?: { name?: string };
    versions?: { version: string; resources?: AggregatedResource[]; freshness?: 'Current' | 'Stale' }[];
  }[];
}

const groupVersion = (group: string, version: string) => (group ? `${group}/${version}` : version);

/** Pure: turns the two aggregated discovery documents (/api and /apis) into a DiscoveryResult. */
export function fromAggregated(documents: readonly AggregatedList[]): DiscoveryResult {
  const resources: ServedResource[] = [];
  const preferred = new Map<string, string>();
  const failed: FailedGroupVersion[] = [];
  for (const doc of documents) {
    for (const item of doc.items ?? []) {
      const group = item.metadata?.name ?? '';
      const versions = item.versions ?? [];
      // Versions are listed in preference order (apidiscovery v2 contract).
      const firstCurrent = versions.find((v) => v.freshness !== 'Stale');
      if (firstCurrent) preferred.set(group, firstCurrent.version);
      for (const v of versions) {
        if (v.freshness === 'Stale') {
          failed.push({
            groupVersion: groupVersion(group, v.version),
            message: `stale GroupVersion discovery: ${groupVersion(group, v.version)}`,
          });
          continue;
        }
        for (const r of v.resources ?? []) {
          resources.push({
            group,
            version: v.version,
            resource: r.resource,
            kind: r.responseKind?.kind ?? '',
            namespaced: r.scope === 'Namespaced',
            verbs: r.verbs ?? [],
          });
        }
      }
    }
  }
  return { resources, preferredVersions: preferred, failed, aggregated: true };
}

interface LegacyResourceList {
  resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[];
}
interface LegacyGroupList {
  groups?: {
    name: string;
    versions: { groupVersion: string; version: string }[];
    preferredVersion?: { version: string };
  }[];
}

function messageOf(error: unknown): string {
  if (error instanceof KubernetesApiError)
    return error.apiMessage || `HTTP ${error.status} ${error.reason}`.trim();
  return (error as Error)?.message ?? String(error);
}

async function legacyDiscovery(api: ApiClient): Promise<DiscoveryResult> {
  const resources: ServedResource[] = [];
  const preferred = new Map<string, string>([['', 'v1']]);
  const failed: FailedGroupVersion[] = [];
  const targets: { group: string; version: string; path: string }[] = [
    { group: '', version: 'v1', path: '/api/v1' },
  ];
  const groups = await api.request<LegacyGroupList>({ path: '/apis' });
  for (const g of groups.groups ?? []) {
    if (g.preferredVersion) preferred.set(g.name, g.preferredVersion.version);
    for (const v of g.versions)
      targets.push({ group: g.name, version: v.version, path: `/apis/${v.groupVersion}` });
  }
  await Promise.all(
    targets.map(async (t) => {
      try {
        const list = await api.request<LegacyResourceList>({ path: t.path });
        for (const r of list.resources ?? []) {
          if (r.name.includes('/')) continue;
          resources.push({
            group: t.group,
            version: t.version,
            resource: r.name,
            kind: r.kind,
            namespaced: r.namespaced,
            verbs: r.verbs ?? [],
          });
        }
      } catch (error) {
        failed.push({ groupVersion: groupVersion(t.group, t.version), message: messageOf(error) });
      }
    }),
  );
  return { resources, preferredVersions: preferred, failed, aggregated: false };
}

/**
 * Discovers every served resource: aggregated discovery (one request each for /api and /apis)
 * where the server offers it, else the legacy walk of every group-version. A group-version
 * that is stale or fails is recorded in `failed`.
 * @throws only when /api or /apis themselves cannot be read (the cluster is unusable).
 */
export async function discover(api: ApiClient): Promise<DiscoveryResult> {
  const [core, groups] = await Promise.all([
    api.request<AggregatedList>({ path: '/api', accept: aggregatedDiscoveryAccept }),
    api.request<AggregatedList>({ path: '/apis', accept: aggregatedDiscoveryAccept }),
  ]);
  if (core?.kind === 'APIGroupDiscoveryList' && groups?.kind === 'APIGroupDiscoveryList') {
    return fromAggregated([core, groups]);
  }
  return legacyDiscovery(api);
}
