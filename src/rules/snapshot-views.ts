/**
 * Small pure helpers that every rule uses to read the snapshot: object references, kubectl
 * resource type names, ages, and whether a resource was read at all (coverage).
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata, ObjectRef } from '../inventory/types.js';

/** The ObjectRef of a listed object. */
export function refOf(o: ObjectMetadata): ObjectRef {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    name: o.name,
    ...(o.uid ? { uid: o.uid } : {}),
  };
}

/**
 * The resource type as kubectl and the namespace controller spell it: `<resource>.<group>`
 * (`widgets.example.com`), or the bare plural for the core group (`services`).
 */
export function typeName(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** `typeName` of a listed object. */
export function typeNameOf(o: ObjectMetadata): string {
  return typeName(o.resource, groupOf(o.apiVersion));
}

/** `widgets.example.com kafka-test/t1` or `clusterroles.rbac.authorization.k8s.io x`. */
export function describeObject(o: ObjectMetadata): string {
  return `${typeNameOf(o)} ${o.namespace !== undefined ? `${o.namespace}/` : ''}${o.name}`;
}

/** Whole seconds from an RFC 3339 time to `now` (ms); undefined when the time does not parse. */
export function ageSeconds(time: string | undefined, now: number): number | undefined {
  if (!time) return undefined;
  const t = Date.parse(time);
  return Number.isNaN(t) ? undefined : Math.max(0, Math.floor((now - t) / 1000));
}

/** `3d4h`, `2h5m`, `12m30s`, `42s`: the two largest units of a duration in seconds. */
export function formatDuration(seconds: number): string {
  const units = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const;
  const rest = Math.max(0, Math.floor(seconds));
  const i = units.findIndex(([, size]) => rest >= size);
  if (i < 0) return '0s';
  const [unit, size] = units[i]!;
  const first = Math.floor(rest / size);
  const next = units[i + 1];
  const second = next ? Math.floor((rest - first * size) / next[1]) : 0;
  return `${first}${unit}${next && second > 0 ? `${second}${next[0]}` : ''}`;
}

/**
 * The age of a deletion when it counts as stuck: deletionTimestamp set and at least
 * `stuckAfterSeconds` old. Undefined for objects not being deleted or deleted more recently.
 */
export function stuckDeletionAge(
  deletionTimestamp: string | undefined,
  context: { readonly now: number; readonly stuckAfterSeconds: number },
): number | undefined {
  const age = ageSeconds(deletionTimestamp, context.now);
  return age !== undefined && age >= context.stuckAfterSeconds ? age : undefined;
}

/** Whether deletion of the object was requested and finalizers still hold it. */
export function waitsForFinalizers(o: ObjectMetadata): boolean {
  return o.deletionTimestamp !== undefined && (o.finalizers?.length ?? 0) > 0;
}

/**
 * Whether the snapshot holds the complete list of a resource: it is served with the `list`
 * verb and no coverage gap names it. Rules conclude "absent" only about resources read in full.
 */
export function wasListed(inventory: Inventory, group: string, resource: string): boolean {
  const served = inventory.resources.some(
    (r) => r.group === group && r.resource === resource && r.verbs.includes('list'),
  );
  const prefix = `${typeName(resource, group)}/`;
  return served && !inventory.coverage.some((gap) => gap.resource.startsWith(prefix));
}

/** The objects of one resource (`group` '' for core), in snapshot order. */
export function objectsOf(inventory: Inventory, group: string, resource: string): ObjectMetadata[] {
  return inventory.objects.filter((o) => o.resource === resource && groupOf(o.apiVersion) === group);
}

/** At most `max` lines, the rest summed up in one last line, so evidence stays readable. */
export function capLines(lines: readonly string[], max = 25): string[] {
  if (lines.length <= max) return [...lines];
  return [...lines.slice(0, max), `… and ${lines.length - max} more`];
}

/**
 * `group/kind/namespace/name` of an object, without its version: findings name objects at the
 * version the rule read, other places at the version of a manifest.
 */
export function objectIdentity(ref: { apiVersion: string; kind: string; namespace?: string; name: string }) {
  return `${groupOf(ref.apiVersion)}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}
