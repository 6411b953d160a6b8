import { groupOf } from '../kube/api-version.js';
import type { ReleaseFacts } from './release-facts.js';
import type { OrderingEdge } from './stages.js';

/** Maps (group, kind) to the resource plural the API serves it as; undefined when not served. */
export type ResourceLookup = (group: string, kind: string) => string | undefined;

const matches = (list: readonly string[], value: string) => list.includes('*') || list.includes(value);

/**
 * Pure: the ordering edges between releases that follow from what they ship (DESIGN.md,
 * "Ordering rules"). `A before B` when
 * - A's manifest has objects of a CRD that B ships (templates or crds/): B's controller must
 *   still run while A's custom resources are finalized (the seed 000 failure is the reverse);
 * - A's objects pass through an admission webhook of B on UPDATE or DELETE (a finalizer
 *   patch or a delete would fail once B's backend is gone: scenario S04);
 * - A's objects are served by an aggregated APIService that B registers.
 * One edge per (A, B) pair, with every reason joined; sorted.
 */
export function dependencyEdges(
  releases: readonly ReleaseFacts[],
  resourceOf: ResourceLookup,
): OrderingEdge[] {
  const reasons = new Map<string, { before: string; after: string; reasons: Set<string> }>();
  const add = (before: string, after: string, reason: string) => {
    if (before === after) return;
    const key = `${before}\u0000${after}`;
    const entry = reasons.get(key) ?? { before, after, reasons: new Set<string>() };
    entry.reasons.add(reason);
    reasons.set(key, entry);
  };
  for (const consumer of releases) {
    for (const o of consumer.objects) {
      const group = groupOf(o.apiVersion);
      const version = o.apiVersion.slice(group ? group.length + 1 : 0);
      for (const provider of releases) {
        if (provider === consumer) continue;
        const crd = provider.crds.find((c) => c.group === group && c.kind === o.kind);
        if (crd)
          add(consumer.key, provider.key, `has ${o.kind} objects (CRD ${crd.name} from ${provider.key})`);
        const plural = crd?.plural ?? resourceOf(group, o.kind);
        if (plural) {
          for (const w of provider.webhooks) {
            const hit = w.rules.some(
              (r) =>
                matches(r.apiGroups, group) &&
                matches(r.resources, plural) &&
                (matches(r.operations, 'DELETE') || matches(r.operations, 'UPDATE')),
            );
            if (hit)
              add(
                consumer.key,
                provider.key,
                `${o.kind} objects pass webhook ${w.webhook} (${w.kind} ${w.configuration})`,
              );
          }
        }
        const api = provider.apiServices.find((a) => a.group === group && a.version === version);
        if (api) add(consumer.key, provider.key, `${o.kind} objects are served by APIService ${api.name}`);
      }
    }
  }
  return [...reasons.values()]
    .map((e) => ({ before: e.before, after: e.after, reason: [...e.reasons].sort().join('; ') }))
    .sort((a, b) => a.before.localeCompare(b.before) || a.after.localeCompare(b.after));
}
