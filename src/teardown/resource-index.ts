import type { ServedResource } from '../inventory/types.js';

/** How to address objects of one kind: its collection path and scope. */
export interface KindAddress {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

/**
 * Pure: (group, kind) → the served resource, preferring `preferredVersion` when the kind is
 * served there. Built once from discovery; undefined for a kind that is no longer served (a
 * CRD deleted before its instances' release: scenario S09).
 */
export function resourceIndex(resources: readonly ServedResource[]) {
  const byKind = new Map<string, ServedResource[]>();
  for (const r of resources) {
    if (!r.kind || !r.verbs.includes('list')) continue;
    const key = `${r.group}\u0000${r.kind}`;
    (byKind.get(key) ?? byKind.set(key, []).get(key)!).push(r);
  }
  return (group: string, kind: string, preferredVersion?: string): KindAddress | undefined => {
    const list = byKind.get(`${group}\u0000${kind}`);
    if (!list || list.length === 0) return undefined;
    const r = list.find((x) => x.version === preferredVersion) ?? list[0]!;
    return { group: r.group, version: r.version, resource: r.resource, namespaced: r.namespaced };
  };
}

export type ResourceIndex = ReturnType<typeof resourceIndex>;
