import type { Inventory } from '../inventory/snapshot.js';
import type { CoverageGap, FailedGroupVersion, InventoryStats } from '../inventory/types.js';

/**
 * The outcome of a run. `complete`: everything was read; `partial`: some resources could not
 * be read (see coverage) so the result is not proof of anything absent; `error`: the run could
 * not do its job (bad input, cluster unreachable). Never `complete` when anything was missed.
 */
export type Verdict = 'complete' | 'partial' | 'error';

/** JSON report of mode `inventory`, schemaVersion 1. */
export interface InventoryReport {
  readonly schemaVersion: 1;
  readonly tool: 'kube-sweep';
  readonly mode: 'inventory';
  readonly verdict: Verdict;
  readonly cluster: { readonly server: string; readonly version: string; readonly context: string };
  readonly takenAt: string;
  /** Object counts per resource ("configmaps", "widgets.example.com"), sorted by name. */
  readonly counts: Readonly<Record<string, number>>;
  readonly objectCount: number;
  readonly namespaceCount: number;
  readonly failedGroupVersions: readonly FailedGroupVersion[];
  readonly coverage: readonly CoverageGap[];
  readonly stats: InventoryStats;
  /** Set when verdict is `error`. */
  readonly error?: string;
}

/** Pure: `partial` when any coverage gap exists, else `complete`. */
export function inventoryVerdict(inventory: Inventory): Verdict {
  return inventory.coverage.length > 0 ? 'partial' : 'complete';
}

/** Pure: builds the JSON report from a snapshot. */
export function buildInventoryReport(inventory: Inventory, context: string): InventoryReport {
  const counts: Record<string, number> = {};
  for (const o of inventory.objects) {
    const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
    const key = group ? `${o.resource}.${group}` : o.resource;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const sorted = Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
  return {
    schemaVersion: 1,
    tool: 'kube-sweep',
    mode: 'inventory',
    verdict: inventoryVerdict(inventory),
    cluster: { server: inventory.server, version: inventory.serverVersion, context },
    takenAt: inventory.takenAt,
    counts: sorted,
    objectCount: inventory.objects.length,
    namespaceCount: inventory.namespaceNames.size,
    failedGroupVersions: inventory.failedGroupVersions,
    coverage: inventory.coverage,
    stats: inventory.stats,
  };
}
