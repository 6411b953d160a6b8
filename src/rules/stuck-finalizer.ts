import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { attacherHolds, goneDrivers } from './csi-driver-gone.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import {
  builtInFinalizers,
  controllerOrigin,
  describeCandidates,
  describeControllerSearch,
  findFinalizerControllers,
  type ControllerOrigin,
  type ControllerSearch,
} from './finalizer-controllers.js';
import {
  heldEvidence,
  refusedRemoval,
  runningControllerRemediation,
  withRefusal,
} from './finalizer-evidence.js';
import { cataloguedFinalizer } from './catalogued-finalizer.js';
import { familyOf } from './finalizer-catalogue.js';
import { foregroundFinalizer, foregroundWait } from './foreground-deletion.js';
import { getYaml, stripFinalizers } from './kubectl.js';
import { terminatingNamespaces } from './kubernetes-objects.js';
import { pvcProtectionFinalizer } from './pvc-protection-blocked.js';
import type { Rule, RuleContext } from './rule.js';
import {
  ageSeconds,
  capLines,
  describeObject,
  formatDuration,
  refOf,
  stuckDeletionAge,
} from './snapshot-views.js';

const rule = 'stuck-finalizer';

/**
 * The key subject of the finding for `finalizer` on objects of `namespace` (undefined:
 * cluster-scoped objects). The linker builds the same subject to find it.
 */
export function finalizerGroupSubject(namespace: string | undefined, finalizer: string): string {
  return `finalizer ${finalizer} in ${namespace !== undefined ? `namespace ${namespace}` : 'cluster-scoped objects'}`;
}

/** Finalizers that another rule reports with more context, per resource. */
function reportedElsewhere(o: ObjectMetadata, finalizer: string): boolean {
  const group = groupOf(o.apiVersion);
  if (group === '' && o.resource === 'namespaces') return true; // namespace-stuck
  if (group === '' && o.resource === 'persistentvolumeclaims' && finalizer === pvcProtectionFinalizer)
    return true; // pvc-protection-blocked
  return (
    group === 'apiextensions.k8s.io' &&
    o.resource === 'customresourcedefinitions' &&
    finalizer === 'customresourcecleanup.apiextensions.k8s.io'
  ); // crd-stuck
}

/**
 * The first safe action for a finalizer no built-in controller removes: bring its controller
 * back, naming the Deployment or the Helm release that shipped the objects' CRD when known.
 */
function restoreController(
  finalizer: string,
  origin: ControllerOrigin | undefined,
  search?: ControllerSearch,
): string {
  const how = search?.result === 'none' ? search.how : undefined;
  if (how?.startsWith('its namespace '))
    return (
      `Its controller cannot come back in place (${how}): install it in another namespace if it must finish its ` +
      `cleanup, or remove finalizer ${finalizer} as below.`
    );
  const release = origin?.release ? `Helm release ${origin.release.namespace}/${origin.release.name}` : '';
  const deployment = origin?.deployments[0];
  if (deployment && origin && how?.startsWith('scaled to zero'))
    return (
      `Scale Deployment ${deployment.namespace}/${deployment.name} of ${release} back up (it shipped CRD ${origin.crd}; ${how}) ` +
      `and let it remove finalizer ${finalizer} after its cleanup.`
    );
  if (deployment && origin)
    return (
      `Bring back Deployment ${deployment.namespace}/${deployment.name} of ${release} (it shipped CRD ${origin.crd}): ` +
      `scale it up or fix what stops it, and let it remove finalizer ${finalizer} after its cleanup.`
    );
  if (release && origin)
    return (
      `Run the controller of ${release} again (the release shipped CRD ${origin.crd}) and let it remove finalizer ` +
      `${finalizer} after its cleanup` +
      (origin.crdDeleting
        ? `; CRD ${origin.crd} is being deleted, so a \`helm install\` that creates it fails: apply only the controller (its Deployment, ServiceAccount and RBAC).`
        : '.')
    );
  return `Reinstall or scale up the operator that owns finalizer ${finalizer} and let it finish its cleanup.`;
}

/**
 * The remedy of a finalizer the catalogue does not know (or a built-in one): resolve what the
 * foreground deletion waits for, let the built-in controller finish, or restore the controller;
 * removing the finalizer from exactly these objects comes last, after its warning.
 */
function genericRemediation(
  finalizer: string,
  objects: readonly ObjectMetadata[],
  how: {
    readonly builtIn: string | undefined;
    readonly origin: ControllerOrigin | undefined;
    readonly waits: ReturnType<typeof foregroundWait> | undefined;
    readonly search: ControllerSearch | undefined;
  },
) {
  const { builtIn, origin, waits, search } = how;
  return {
    summary: waits?.dependents.length
      ? 'Resolve what holds the dependents it waits for (the findings linked to this one); the garbage ' +
        'collector then deletes them and removes foregroundDeletion.'
      : builtIn
        ? `Let ${builtIn.replace(/ \(.*$/, '')} finish: resolve what it waits for.`
        : `${restoreController(finalizer, origin, search)} ` +
          'Only if it is gone for good, remove the finalizer from exactly these objects. For the next ' +
          'teardown: delete these objects and wait until they are gone before uninstalling the operator.',
    commands: [
      ...objects.map(getYaml),
      ...(waits?.dependents ?? []).map(getYaml),
      ...(builtIn ? [] : stripFinalizers(objects, finalizer)),
    ],
  };
}

interface Group {
  readonly namespace: string | undefined;
  readonly finalizer: string;
  readonly objects: ObjectMetadata[];
}

function groupByFinalizer(inventory: Inventory, context: RuleContext): Group[] {
  const groups = new Map<string, Group>();
  // csi-driver-gone reports the attacher finalizers of drivers that no longer run.
  const csiHeld = new Set(goneDrivers(inventory).map((d) => d.finalizer));
  for (const o of inventory.objects) {
    if (!o.finalizers?.length || stuckDeletionAge(o.deletionTimestamp, context) === undefined) continue;
    for (const finalizer of o.finalizers) {
      if (reportedElsewhere(o, finalizer) || csiHeld.has(finalizer)) continue;
      const key = `${o.namespace ?? ''}\0${finalizer}`;
      const group = groups.get(key) ?? { namespace: o.namespace, finalizer, objects: [] };
      group.objects.push(o);
      groups.set(key, group);
    }
  }
  return [...groups.values()].sort(
    (a, b) => (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.finalizer.localeCompare(b.finalizer),
  );
}

/**
 * stuck-finalizer: objects whose deletionTimestamp is at least `stuckAfterSeconds` old and that
 * still carry finalizers, one finding per (finalizer, namespace). Kubernetes' own finalizers
 * (`builtInFinalizers`) give `StuckFinalizer` naming the controller that removes them. For any
 * other finalizer, `findFinalizerControllers` looks for its controller: when nothing in the
 * cluster looks like it, `OperatorGoneFinalizer` (error; scenarios S02, S03: the operator was
 * uninstalled before its objects were deleted); otherwise, or when that cannot be told,
 * `StuckFinalizer` (warning). A candidate counts only when it is live (controller-liveness.ts),
 * and the evidence names the object taken as the controller and why. Namespaces, the CRD
 * cleanup finalizer and the attacher finalizers of CSI drivers that no longer run are left to
 * namespace-stuck, crd-stuck and csi-driver-gone. For
 * `foregroundDeletion`, the message and evidence name the dependents with `blockOwnerDeletion`
 * that the owners wait for (foreground-deletion.ts); the linker links what holds them.
 */
/**
 * Pure: what a finding's message says of the finalizer's controller, in three states: gone (no
 * controller runs and none is installed, with how it went), down (installed, no available
 * replica: it may come back), or running but not removing it. Empty for a built-in finalizer.
 */
function controllerWords(search: ControllerSearch | undefined, builtIn: string | undefined): string {
  if (search?.result === 'none' && search.down)
    return `; its controller is installed but does not run now (${describeCandidates(search.down)})`;
  if (search?.result === 'none')
    return `, and no controller for it appears to run${search.how ? ` (${search.how})` : ''}`;
  return search?.result === 'found' && !builtIn ? '; its controller runs but has not removed it' : '';
}

export const stuckFinalizerRule: Rule = {
  name: rule,
  title: 'Objects waiting for a finalizer past the threshold',
  codes: ['StuckFinalizer', 'OperatorGoneFinalizer'],
  check(inventory, context) {
    const findings: Finding[] = [];
    const terminating = terminatingNamespaces(inventory);
    // An attacher finalizer names no controller: its driver's search (csi-driver-gone.ts) stands in.
    const attacherSearches = new Map(attacherHolds(inventory).map((h) => [h.finalizer, h.search]));
    for (const { namespace, finalizer, objects } of groupByFinalizer(inventory, context)) {
      const builtIn = builtInFinalizers[finalizer];
      const search = builtIn
        ? undefined
        : (attacherSearches.get(finalizer) ?? findFinalizerControllers(inventory, finalizer, objects));
      // Gone: no controller runs and none is installed to come back (a down one is not gone).
      const gone = search?.result === 'none' && !search.down;
      const refusal = refusedRemoval(inventory, objects, finalizer);
      const oldest = Math.max(...objects.map((o) => ageSeconds(o.deletionTimestamp, context.now) ?? 0));
      const where = namespace !== undefined ? `in namespace ${namespace}` : '(cluster-scoped)';
      const count = `${objects.length} object${objects.length === 1 ? '' : 's'}`;
      const inTerminatingNamespace = namespace !== undefined && terminating.has(namespace);
      // Foreground deletion: name the dependents it waits for (the linker links what holds them).
      const waits = finalizer === foregroundFinalizer ? foregroundWait(inventory, objects) : undefined;
      const origin = builtIn ? undefined : controllerOrigin(inventory, objects);
      // A finalizer the catalogue knows: what it guards, graded, and a remedy that can work.
      const family = familyOf(finalizer);
      const catalogued = family
        ? cataloguedFinalizer(inventory, family, finalizer, objects, {
            gone,
            restore: restoreController(finalizer, origin, search),
          })
        : undefined;
      findings.push(
        buildFinding(
          rule,
          gone ? 'OperatorGoneFinalizer' : 'StuckFinalizer',
          {
            object: refOf(objects[0]!),
            subject: finalizerGroupSubject(namespace, finalizer),
            message:
              `${count} ${where} ${objects.length === 1 ? 'has' : 'have'} waited up to ${formatDuration(oldest)} for finalizer ${finalizer} to be removed` +
              controllerWords(search, builtIn) +
              (waits ? `: ${waits.message}` : ''),
            evidence: [
              ...capLines(
                objects.map((o) => `${describeObject(o)} (deletionTimestamp ${o.deletionTimestamp ?? ''})`),
              ),
              builtIn ? `removed by ${builtIn}` : describeControllerSearch(search!, finalizer),
              ...(waits?.evidence ?? []),
              ...heldEvidence(inventory, objects, finalizer),
              ...(origin?.release
                ? [
                    `CRD ${origin.crd} was shipped by Helm release ${origin.release.namespace}/${origin.release.name} ` +
                      `(its meta.helm.sh annotations)${origin.deployments.length ? `, whose Deployments are ${origin.deployments.map((d) => d.name).join(', ')}` : ''}`,
                  ]
                : []),
              ...(catalogued?.evidence ?? []),
              ...(inTerminatingNamespace && !builtIn && !catalogued?.blockedInPlace
                ? [
                    `namespace ${namespace} is Terminating: if the controller for this finalizer lived in the ` +
                      'namespace being deleted, it was deleted with it (delete such objects before their namespace)',
                  ]
                : []),
            ],
            remediation: withRefusal(
              catalogued && !builtIn
                ? catalogued.remediation
                : !builtIn && search?.result === 'found'
                  ? runningControllerRemediation(inventory, finalizer, objects, search.candidates)
                  : genericRemediation(finalizer, objects, { builtIn, origin, waits, search }),
              finalizer,
              refusal,
            ),
          },
          context,
        ),
      );
    }
    return findings;
  },
};
