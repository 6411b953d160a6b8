import { minimatch } from 'minimatch';
import type { Inventory } from '../inventory/snapshot.js';
import { matchesLabels, type LabelRequirement } from '../plan/label-selector.js';
import type { Finding } from './findings.js';

/**
 * One `ignore` entry: a finding is suppressed when every field given matches (globs for
 * code, kind, namespace and name; a label selector against the object's labels).
 */
export interface Exclusion {
  readonly code?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly selector?: readonly LabelRequirement[];
  /** The entry as written, for the report. */
  readonly text: string;
}

function labelsOf(inventory: Inventory, f: Finding): Readonly<Record<string, string>> {
  if (f.object.uid) return inventory.byUid.get(f.object.uid)?.labels ?? {};
  const o = inventory.objects.find(
    (x) =>
      x.kind === f.object.kind &&
      x.name === f.object.name &&
      (x.namespace ?? '') === (f.object.namespace ?? ''),
  );
  return o?.labels ?? {};
}

/** Pure: whether one exclusion matches a finding. */
export function excludes(e: Exclusion, f: Finding, inventory: Inventory): boolean {
  const glob = (pattern: string | undefined, value: string) =>
    pattern === undefined || minimatch(value, pattern);
  return (
    glob(e.code, f.code) &&
    glob(e.kind, f.object.kind) &&
    glob(e.namespace, f.object.namespace ?? '') &&
    glob(e.name, f.object.name) &&
    (e.selector === undefined || matchesLabels(e.selector, labelsOf(inventory, f)))
  );
}

/**
 * Pure: applies the `ignore` entries once, centrally (rules never filter themselves).
 * @returns the findings kept and how many each entry suppressed.
 */
export function applyExclusions(
  findings: readonly Finding[],
  exclusions: readonly Exclusion[],
  inventory: Inventory,
) {
  const suppressed = new Map<string, number>();
  const kept = findings.filter((f) => {
    const hit = exclusions.find((e) => excludes(e, f, inventory));
    if (hit) suppressed.set(hit.text, (suppressed.get(hit.text) ?? 0) + 1);
    return !hit;
  });
  return { kept, suppressed: [...suppressed].map(([entry, count]) => ({ entry, count })) };
}
