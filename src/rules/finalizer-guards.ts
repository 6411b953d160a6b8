/**
 * What a catalogued finalizer guards on one held object, read from the object's status
 * (`inventory.heldBodies`, read whole by the inventory) along the catalogue's paths
 * (finalizer-catalogue.ts), and how risky removing it is: `safe` when the work is finished (a
 * terminal phase) or nothing is left to guard (every managed object gone, nothing external
 * recorded, or a read status that records no managed objects); `unsafe` when work is in flight, a managed object still exists, or something outside
 * the cluster is recorded (it would leak); `unknown` when the body was not read or records none
 * of the paths.
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { FinalizerFamily, GuardedPath } from './finalizer-catalogue.js';
import { describeObject } from './snapshot-views.js';

/** Risk of removing a finalizer from one object. */
export type RemovalRisk = 'safe' | 'unsafe' | 'unknown';

/** What one held object's finalizer guards. */
export interface Guarded {
  readonly o: ObjectMetadata;
  readonly risk: RemovalRisk;
  /** Why, in words: `phase Completed (terminal)`, `2 managed resources still exist`. */
  readonly reason: string;
  /** Evidence lines: each guarded thing, with whether it still exists. */
  readonly lines: readonly string[];
}

/** The values at a dotted path (`a.b[]` spreads a list); annotation paths read the metadata. */
function valuesAt(o: ObjectMetadata, body: unknown, path: string): unknown[] {
  if (path.startsWith('metadata.annotations.')) {
    const key = path.slice('metadata.annotations.'.length).replace(/\\\./g, '.');
    const value = o.annotations?.[key];
    return value !== undefined ? [value] : [];
  }
  let current: unknown[] = [body];
  for (const part of path.split('.')) {
    const spread = part.endsWith('[]');
    const key = spread ? part.slice(0, -2) : part;
    current = current.flatMap((c) => {
      const v = c !== null && typeof c === 'object' ? (c as Record<string, unknown>)[key] : undefined;
      if (v === undefined || v === null) return [];
      return spread && Array.isArray(v) ? v : [v];
    });
  }
  return current;
}

/** A managed object reference read from a status entry (Argo CD's fields, or Flux's `<ns>_<name>_<group>_<kind>` id). */
function managedRef(
  v: unknown,
): { group: string; kind: string; namespace?: string; name: string } | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const e = v as Record<string, unknown>;
  if (typeof e.id === 'string') {
    const [namespace, name, group, kind] = e.id.split('_');
    return name && kind ? { group: group ?? '', kind, ...(namespace ? { namespace } : {}), name } : undefined;
  }
  if (typeof e.kind !== 'string' || typeof e.name !== 'string') return undefined;
  return {
    group: typeof e.group === 'string' ? e.group : '',
    kind: e.kind,
    ...(typeof e.namespace === 'string' && e.namespace ? { namespace: e.namespace } : {}),
    name: e.name,
  };
}

/** `10.0.0.1`, `lb-1.example.com`, or the JSON of anything else. */
function describeValue(v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  const e = (v ?? {}) as Record<string, unknown>;
  if (typeof e.hostname === 'string') return e.hostname;
  if (typeof e.ip === 'string') return e.ip;
  return JSON.stringify(v);
}

interface PathReading {
  readonly lines: readonly string[];
  /** Managed objects that still exist, external things recorded, in-flight phase, terminal phase. */
  readonly existing: number;
  readonly managed: number;
  readonly external: number;
  readonly phase?: { value: string; terminal: boolean };
}

function readPath(
  inventory: Inventory,
  o: ObjectMetadata,
  body: unknown,
  p: GuardedPath,
  family: FinalizerFamily,
): PathReading {
  const values = valuesAt(o, body, p.path);
  const out: PathReading = { lines: [], existing: 0, managed: 0, external: 0 };
  if (p.kind === 'objects') {
    const refs = values.map(managedRef).filter((r) => r !== undefined);
    const found = refs.map((ref) =>
      inventory.objects.some(
        (x) =>
          x.kind === ref.kind &&
          x.name === ref.name &&
          x.namespace === ref.namespace &&
          groupOf(x.apiVersion) === ref.group,
      ),
    );
    return {
      ...out,
      managed: refs.length,
      existing: found.filter(Boolean).length,
      lines: refs.map(
        (ref, i) =>
          `${describeObject(o)} guards ${p.what} ${ref.group ? `${ref.group}/` : ''}${ref.kind} ` +
          `${ref.namespace ? `${ref.namespace}/` : ''}${ref.name} (${p.path}): ${found[i] ? 'still exists' : 'gone'}`,
      ),
    };
  }
  if (p.kind === 'external') {
    const recorded = values.filter((v) => v !== false && v !== '');
    return {
      ...out,
      external: recorded.length,
      lines: recorded.map(
        (v) => `${describeObject(o)} guards ${p.what} ${describeValue(v)} (${p.path}), outside the cluster`,
      ),
    };
  }
  const value = values.find((v) => typeof v === 'string') as string | undefined;
  if (value === undefined) return out;
  const terminal = (family.terminalPhases ?? []).includes(value);
  return {
    ...out,
    phase: { value, terminal },
    lines: [
      `${describeObject(o)}: ${p.what} ${value} (${terminal ? 'terminal: nothing left to do' : 'work in flight'})`,
    ],
  };
}

/** Pure: what `family`'s finalizer guards on `o`, and the risk of removing it (see the module comment). */
export function guardedBy(inventory: Inventory, o: ObjectMetadata, family: FinalizerFamily): Guarded {
  const body = (inventory.heldBodies ?? []).find((b) => b.uid === o.uid);
  const readings = family.paths.map((p) => readPath(inventory, o, body ?? {}, p, family));
  const lines = readings.flatMap((r) => r.lines);
  const existing = readings.reduce((n, r) => n + r.existing, 0);
  const managed = readings.reduce((n, r) => n + r.managed, 0);
  const external = readings.reduce((n, r) => n + r.external, 0);
  const phase = readings.find((r) => r.phase)?.phase;
  const risk = (r: RemovalRisk, reason: string): Guarded => ({ o, risk: r, reason, lines });
  if (phase && !phase.terminal) return risk('unsafe', `${phase.value}: work in flight`);
  if (existing) return risk('unsafe', `${existing} of ${managed} guarded objects still exist`);
  if (external && !phase?.terminal)
    return risk('unsafe', `${external} thing${external === 1 ? '' : 's'} outside the cluster recorded`);
  if (phase?.terminal) return risk('safe', `${phase.value}: terminal, nothing left to do`);
  if (managed) return risk('safe', `all ${managed} guarded objects are gone`);
  if (body && family.paths.some((p) => p.kind === 'objects') && !family.paths.some((p) => p.kind === 'phase'))
    return risk('safe', 'its status records no managed objects');
  return risk('unknown', body ? 'its status records nothing the catalogue reads' : 'its status was not read');
}
