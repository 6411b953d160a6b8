/**
 * What the objects held by a finalizer say about it, from their bodies read whole by the
 * inventory (inventory/held-objects.ts): who added the finalizer (`metadata.managedFields`), the
 * objects' status conditions (what a running controller reports), and whether the API server
 * accepts the removal kube-sweep prints (a dry run, `dryRun=All`). Also the remedy of a
 * finalizer whose controller runs but does not finish: read it, never restart or scale it.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { HeldBody } from '../inventory/held-objects.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { ControllerCandidate } from './finalizer-controllers.js';
import type { Remediation } from './findings.js';
import { command, getYaml, stripFinalizers, stripFinalizersWarning } from './kubectl.js';
import { fullObjectsOf, type Condition } from './kubernetes-objects.js';
import { capLines, describeObject, typeNameOf } from './snapshot-views.js';

/** Longest quoted server or controller message, in characters (the rest is cut with `…`). */
const messageLimit = 300;

/** Pure: `text` on one line (runs of white space made one space), cut at `messageLimit`. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > messageLimit ? `${flat.slice(0, messageLimit)}…` : flat;
}

function bodiesByUid(inventory: Inventory): Map<string, HeldBody> {
  return new Map((inventory.heldBodies ?? []).map((b) => [b.uid, b]));
}

/** A removal of the finalizer that the API server refused in the dry run, and its words. */
export interface RefusedRemoval {
  readonly object: ObjectMetadata;
  /** `HTTP 400: admission webhook "x" denied the request: ...`, on one line. */
  readonly message: string;
}

/**
 * Pure: the first of `objects` whose dry-run removal of `finalizer` the API server refused
 * (`RemovalCheck.outcome` refused), or undefined (accepted, unchecked or not read).
 */
export function refusedRemoval(
  inventory: Inventory,
  objects: readonly ObjectMetadata[],
  finalizer: string,
): RefusedRemoval | undefined {
  const bodies = bodiesByUid(inventory);
  for (const o of objects) {
    const check = bodies.get(o.uid)?.removalChecks?.find((c) => c.finalizer === finalizer);
    if (check?.outcome === 'refused') return { object: o, message: oneLine(check.message ?? '') };
  }
  return undefined;
}

/** Pure: the status conditions of a held body, validated (untrusted JSON). */
function conditionsOf(body: HeldBody | undefined): Condition[] {
  const conditions = (body?.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.filter(
    (c): c is Condition => typeof c === 'object' && c !== null && typeof (c as Condition).type === 'string',
  );
}

/**
 * Pure: evidence lines about `finalizer` on `objects`: the field managers that added it
 * (grouped, with a count of objects), each object's status conditions (at most 5 objects), and
 * the refused dry-run removals with the server's words.
 */
export function heldEvidence(
  inventory: Inventory,
  objects: readonly ObjectMetadata[],
  finalizer: string,
): string[] {
  const bodies = bodiesByUid(inventory);
  const byManagers = new Map<string, number>();
  for (const o of objects) {
    const managers = bodies.get(o.uid)?.finalizerManagers?.[finalizer];
    if (managers?.length) {
      const key = [...managers].sort().join(', ');
      byManagers.set(key, (byManagers.get(key) ?? 0) + 1);
    }
  }
  const managerLines = [...byManagers].map(
    ([managers, count]) =>
      `finalizer ${finalizer} was added by field manager ${managers} (metadata.managedFields of ${count} of ${objects.length} object${objects.length === 1 ? '' : 's'})`,
  );
  const conditionLines = objects.slice(0, 5).flatMap((o) => {
    const conditions = conditionsOf(bodies.get(o.uid));
    if (!conditions.length) return [];
    const said = conditions.map(
      (c) =>
        `${c.type}=${String(c.status ?? '')}${c.reason ? ` (${String(c.reason)})` : ''}` +
        (c.message ? `: ${oneLine(String(c.message))}` : ''),
    );
    return [`${describeObject(o)} says (status.conditions): ${said.join('; ')}`];
  });
  const refusals = objects.flatMap((o) => {
    const check = bodies.get(o.uid)?.removalChecks?.find((c) => c.finalizer === finalizer);
    return check?.outcome === 'refused'
      ? [
          `removing finalizer ${finalizer} from ${describeObject(o)} is refused by the API server (tried with dryRun=All): ${oneLine(check.message ?? '')}`,
        ]
      : [];
  });
  return [...managerLines, ...conditionLines, ...capLines(refusals, 5)];
}

/**
 * Pure: `remediation` with the refusal said: the summary starts with what refuses the removal
 * (quoted) and the printed patches are preceded by a line marking them refused. Unchanged when
 * nothing was refused.
 */
export function withRefusal(
  remediation: Remediation,
  finalizer: string,
  refusal: RefusedRemoval | undefined,
): Remediation {
  if (!refusal) return remediation;
  const mark = `# REFUSED now: the API server denied this removal when tried with dryRun=All on ${describeObject(refusal.object)}: ${refusal.message}`;
  const at = remediation.commands.indexOf(stripFinalizersWarning);
  return {
    summary:
      `Resolve first what refuses removing finalizer ${finalizer} (the webhook, policy or quota it names): the ` +
      `API server refuses it now (tried with dryRun=All on ${describeObject(refusal.object)}: "${refusal.message}"), ` +
      `so the removal printed below fails until then. ${remediation.summary}`,
    commands:
      at >= 0
        ? [...remediation.commands.slice(0, at), mark, ...remediation.commands.slice(at)]
        : [...remediation.commands, mark],
  };
}

/**
 * Pure: the remedy when the finalizer's controller runs but has not removed it: not a restart
 * or a scale-up (it runs), but what it says and what stops it: the objects (their status), the
 * Events about them, its logs, and whether its ServiceAccount may patch these objects (RBAC: a
 * controller that cannot update them cannot remove the finalizer). Removing the finalizer stays
 * the last resort, after its warning.
 */
export function runningControllerRemediation(
  inventory: Inventory,
  finalizer: string,
  objects: readonly ObjectMetadata[],
  candidates: readonly ControllerCandidate[],
): Remediation {
  const workloads = candidates.filter((c) => c.object.resource !== 'leases').slice(0, 3);
  const accounts = new Map(
    (['deployments', 'statefulsets', 'daemonsets'] as const)
      .flatMap((r) => fullObjectsOf(inventory, r))
      .map((w) => [w.metadata?.uid ?? '', w.spec?.template?.spec?.serviceAccountName ?? 'default']),
  );
  // One RBAC check per type and namespace of the held objects (at most 3).
  const types = [
    ...new Map(
      objects.map((o) => [
        `${typeNameOf(o)}\0${o.namespace ?? ''}`,
        { type: typeNameOf(o), namespace: o.namespace },
      ]),
    ).values(),
  ].slice(0, 3);
  const kindWord = (o: ObjectMetadata) => o.kind.toLowerCase();
  return {
    summary:
      `Read why its controller has not finished, and do not reinstall or scale it: it runs (${candidates.map((c) => describeObject(c.object)).join(', ')}). ` +
      'Read what the objects say (status conditions, the Events about them), its logs, and whether its ' +
      'ServiceAccount may patch these objects (a controller that cannot update them cannot remove the finalizer). ' +
      'Only if it will never finish, remove the finalizer from exactly these objects.',
    commands: [
      ...objects.slice(0, 5).map(getYaml),
      ...objects
        .slice(0, 5)
        .map((o) =>
          command(
            'kubectl',
            'get',
            'events',
            ...(o.namespace !== undefined ? ['-n', o.namespace] : ['-A']),
            '--field-selector',
            `involvedObject.uid=${o.uid}`,
          ),
        ),
      ...workloads.map((c) =>
        command(
          'kubectl',
          'logs',
          '-n',
          c.object.namespace ?? '',
          `${kindWord(c.object)}/${c.object.name}`,
          '--all-containers',
          '--tail=200',
        ),
      ),
      ...workloads.flatMap((c) =>
        types.map((t) =>
          command(
            'kubectl',
            'auth',
            'can-i',
            'patch',
            t.type,
            ...(t.namespace !== undefined ? ['-n', t.namespace] : []),
            '--as',
            `system:serviceaccount:${c.object.namespace ?? ''}:${accounts.get(c.object.uid) ?? 'default'}`,
          ),
        ),
      ),
      ...stripFinalizers(objects, finalizer),
    ],
  };
}
