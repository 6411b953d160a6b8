/**
 * The evidence and remedy of a stuck finalizer that the catalogue knows (finalizer-catalogue.ts):
 * what it guards on each held object and the graded risk of removing it (finalizer-guards.ts),
 * and a remedy that can work. When the controller is gone and cannot come back in place — the
 * objects' namespace is Terminating (the API server refuses every create there: 403 `unable to
 * create new content in namespace <ns> because it is being terminated`) or their CRD is
 * Terminating (405 `create not allowed while custom resource definition is terminating`) — the
 * first action is the catalogue's way that works without the controller, never "reinstall in
 * place". Removals are ordered by risk: safe ones first (terminal work, nothing left to guard),
 * the rest last, after a `# WARNING:` line that says what they leak.
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Remediation } from './findings.js';
import type { FinalizerFamily } from './finalizer-catalogue.js';
import { guardedBy, type Guarded } from './finalizer-guards.js';
import { getYaml, neverFinalizeNamespace, stripFinalizerPatches, stripFinalizersWarning } from './kubectl.js';
import { fullObjectsOf, terminatingNamespaces } from './kubernetes-objects.js';
import { capLines, describeObject } from './snapshot-views.js';

/** What a catalogued finalizer adds to a stuck-finalizer finding. */
export interface CataloguedFinalizer {
  readonly guarded: readonly Guarded[];
  readonly evidence: readonly string[];
  /** Why the controller cannot come back in place, when it cannot. */
  readonly blockedInPlace?: string;
  readonly remediation: Remediation;
}

/** Why the controller cannot be restored in place, if it cannot: the namespace or the CRD is Terminating. */
function inPlaceBlocker(inventory: Inventory, objects: readonly ObjectMetadata[]): string | undefined {
  const terminating = terminatingNamespaces(inventory);
  const ns = objects.find((o) => o.namespace !== undefined && terminating.has(o.namespace))?.namespace;
  if (ns !== undefined)
    return (
      `namespace ${ns} is Terminating, and the API server refuses to create anything in it (403 "unable to ` +
      `create new content in namespace ${ns} because it is being terminated")`
    );
  const names = new Set(objects.map((o) => `${o.resource}.${groupOf(o.apiVersion)}`));
  const crd = fullObjectsOf(inventory, 'customresourcedefinitions').find(
    (c) => names.has(c.metadata?.name ?? '') && c.metadata?.deletionTimestamp,
  );
  return crd
    ? `CRD ${crd.metadata?.name ?? ''} is Terminating, and creating its objects is refused (405 "create not ` +
        'allowed while custom resource definition is terminating"), so an install that creates it fails'
    : undefined;
}

/** A Terminating namespace marked as managed by an object of a finalizer family that lives in it. */
export interface SelfManagedNamespace {
  readonly namespace: string;
  /** The marker (annotation or label key) and its value. */
  readonly key: string;
  readonly value: string;
  /** The object the marker names (an Argo CD Application), one of the objects given. */
  readonly app: ObjectMetadata;
}

/**
 * Pure: the Terminating namespaces of `objects` that carry one of `family.managedByMarkers`
 * naming an object of `objects` that lives in them (Argo CD: an Application managing the
 * namespace it lives in, S24), one per namespace (the first marker that matches). Empty when the
 * family has no markers.
 */
export function selfManagedNamespaces(
  inventory: Inventory,
  family: FinalizerFamily,
  objects: readonly ObjectMetadata[],
): SelfManagedNamespace[] {
  const terminating = terminatingNamespaces(inventory);
  const out: SelfManagedNamespace[] = [];
  for (const ns of fullObjectsOf(inventory, 'namespaces')) {
    const name = ns.metadata?.name ?? '';
    if (!terminating.has(name)) continue;
    const marks = { ...ns.metadata?.labels, ...ns.metadata?.annotations };
    for (const key of family.managedByMarkers ?? []) {
      const value = marks[key];
      const owner = value?.split(':')[0];
      const app = objects.find((o) => o.namespace === name && o.name === owner);
      if (value === undefined || !app) continue;
      out.push({ namespace: name, key, value, app });
      break;
    }
  }
  return out;
}

/**
 * Pure: the evidence that a Terminating namespace of `objects` was deleted by the family's own
 * cascade (`selfManagedNamespaces`); empty when none was.
 */
export function selfDeletion(
  inventory: Inventory,
  family: FinalizerFamily,
  objects: readonly ObjectMetadata[],
): string[] {
  return selfManagedNamespaces(inventory, family, objects).map(
    (m) =>
      `namespace ${m.namespace} carries ${m.key}=${m.value}: it is managed by ${describeObject(m.app)}, which lives in it, so ` +
      `${family.project}'s own cascade deleted the namespace ${family.project} runs in, together with the ` +
      'controller that had to finalize these objects',
  );
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** `a, b (why); c (why)` of guarded objects. */
const listed = (gs: readonly Guarded[]) => gs.map((g) => `${describeObject(g.o)} (${g.reason})`).join('; ');

/**
 * The commands: inspect, then `before` (the line that forbids force-finalizing), safe removals,
 * and the rest last, after one `# WARNING:` line: the family's leak and the generic warning
 * (`stripFinalizersWarning`), so that nothing but commands follows a warning.
 */
function orderedCommands(
  family: FinalizerFamily,
  finalizer: string,
  guarded: readonly Guarded[],
  before: readonly string[],
): string[] {
  const safe = guarded.filter((g) => g.risk === 'safe').map((g) => g.o);
  const rest = guarded.filter((g) => g.risk !== 'safe').map((g) => g.o);
  return [
    ...guarded.map((g) => getYaml(g.o)),
    ...before,
    ...(safe.length
      ? [
          `# safe: the work of these is finished or nothing is left to guard, so removing ${finalizer} skips nothing:`,
          ...stripFinalizerPatches(safe, finalizer),
        ]
      : []),
    ...(rest.length
      ? [
          `# WARNING: ${family.project}: ${family.leaks}; ${stripFinalizersWarning.replace(/^# WARNING: /, '')}`,
          ...stripFinalizerPatches(rest, finalizer),
        ]
      : []),
  ];
}

/**
 * Pure: evidence and remedy for `objects` held by catalogued `finalizer` of `family`. `gone`: no
 * controller for it runs; `restore`: the generic first action (bring the controller back), used
 * when it can come back in place.
 */
export function cataloguedFinalizer(
  inventory: Inventory,
  family: FinalizerFamily,
  finalizer: string,
  objects: readonly ObjectMetadata[],
  options: { readonly gone: boolean; readonly restore: string },
): CataloguedFinalizer {
  const guarded = objects.map((o) => guardedBy(inventory, o, family));
  const blocker = options.gone ? inPlaceBlocker(inventory, objects) : undefined;
  const safe = guarded.filter((g) => g.risk === 'safe');
  const risky = guarded.filter((g) => g.risk !== 'safe');
  const order =
    (safe.length ? ` Removing it is safe for ${listed(safe)}: remove those first.` : '') +
    (risky.length ? ` For ${listed(risky)}, removing it last means: ${family.leaks}.` : '');
  const next = blocker && family.teardownOrder ? ` Next time: ${family.teardownOrder}.` : '';
  const summary = blocker
    ? `${capital(family.withoutController)}: ${family.project} cannot come back in place, because ${blocker}.${order} ` +
      `Do not force-finalize the namespace.${next}`
    : `${options.restore} Only if it is gone for good: ${family.withoutController}.${order}`;
  return {
    guarded,
    ...(blocker ? { blockedInPlace: blocker } : {}),
    evidence: [
      `${finalizer} belongs to ${family.project}: it guards ${family.guards} (${family.sources[0]})`,
      ...capLines(guarded.flatMap((g) => g.lines)),
      ...guarded.map((g) => `removing ${finalizer} from ${describeObject(g.o)}: ${g.risk} (${g.reason})`),
      ...(blocker ? [`${family.project} cannot come back in place: ${blocker}`] : []),
      ...(blocker ? selfDeletion(inventory, family, objects) : []),
    ],
    remediation: {
      summary,
      commands: orderedCommands(family, finalizer, guarded, blocker ? [neverFinalizeNamespace] : []),
    },
  };
}
