/**
 * What the snapshot foretells about deleting an object: whether its deletion would end while a
 * teardown waits for it. A dry run reads it to show the releases the real run would skip
 * (teardown/dry-run.ts): a release whose CRDs' instances are still there after their wait is
 * not uninstalled, so its controller stays to finalize them.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { livenessReader, type Liveness } from './controller-liveness.js';
import {
  builtInFinalizers,
  controllerOrigin,
  describeControllerSearch,
  findFinalizerControllers,
  type ControllerSearch,
} from './finalizer-controllers.js';

/**
 * What deleting one object is foreseen to lead to: `hangs` (it would not end within a wait, with
 * why) or `waits` (a finalizer whose controller the snapshot shows running, named in `why`).
 */
export type DeletionOutlook =
  | { readonly outcome: 'hangs'; readonly why: string; readonly finalizer?: string }
  | { readonly outcome: 'waits'; readonly why: string };

/**
 * Pure: a function telling what deleting an object would lead to, or undefined when the
 * snapshot gives no reason to think it would not simply go. First the custom resource's own
 * controller, when the snapshot knows where it came from (`controllerOrigin`: the Helm release
 * that shipped its CRD, and that release's Deployments; `originOutlook`). Then `hangs` when it holds a finalizer
 * that Kubernetes does not remove itself and no controller for it appears to run
 * (`findFinalizerControllers` concludes `none`: the OperatorGoneFinalizer evidence, `finalizer`
 * names it), or when its deletion was requested at least `stuckAfterSeconds` before `now` (ms
 * since the epoch) and it still holds finalizers; `waits` when every such finalizer has a live
 * controller (`found`: the deletion ends when that controller has done its work). An unknown
 * controller search (a footprint kind not listed, a finalizer that names no controller)
 * foretells nothing: a forecast may say less, never something false.
 */
export function deletionOutlook(
  inventory: Inventory,
  context: { readonly now: number; readonly stuckAfterSeconds: number },
): (o: ObjectMetadata) => DeletionOutlook | undefined {
  const searches = new Map<string, ControllerSearch>();
  let reader: ((o: ObjectMetadata) => Liveness) | undefined;
  const liveness = () => (reader ??= livenessReader(inventory));
  // Structure reads the object's CRD, so the search is kept per finalizer and type.
  const searchOf = (finalizer: string, o: ObjectMetadata) => {
    const key = `${finalizer}\0${o.apiVersion}\0${o.resource}`;
    const known = searches.get(key);
    if (known) return known;
    const search = findFinalizerControllers(inventory, finalizer, [o]);
    searches.set(key, search);
    return search;
  };
  return (o) => {
    const finalizers = o.finalizers ?? [];
    if (finalizers.length === 0) return undefined;
    if (
      o.deletionTimestamp !== undefined &&
      context.now - Date.parse(o.deletionTimestamp) >= context.stuckAfterSeconds * 1000
    )
      return {
        outcome: 'hangs',
        why: `deleting since ${o.deletionTimestamp}, still held by finalizer${finalizers.length === 1 ? '' : 's'} ${finalizers.join(', ')}`,
      };
    const custom = finalizers.filter((f) => builtInFinalizers[f] === undefined);
    const origin = custom.length > 0 ? originOutlook(inventory, o, custom[0]!, liveness()) : undefined;
    if (origin) return origin;
    const waits: string[] = [];
    for (const finalizer of finalizers) {
      if (builtInFinalizers[finalizer] !== undefined) continue;
      const search = searchOf(finalizer, o);
      // A controller that is installed but down (a rollout, a crash loop) may still come back.
      if (search.result === 'none' && search.down) {
        waits.push(`finalizer ${finalizer}: ${describeControllerSearch(search, finalizer)}`);
        continue;
      }
      if (search.result === 'none')
        return {
          outcome: 'hangs',
          why: `finalizer ${finalizer}: ${describeControllerSearch(search, finalizer)}`,
          finalizer,
        };
      if (search.result === 'found')
        waits.push(`finalizer ${finalizer}: ${describeControllerSearch(search, finalizer)}`);
    }
    return waits.length > 0 ? { outcome: 'waits', why: waits.join('; ') } : undefined;
  };
}

/**
 * Pure: why deleting an object would not end within a teardown's wait, or undefined
 * (`deletionOutlook`'s `hangs`, its reason only).
 */
export function deletionForecast(
  inventory: Inventory,
  context: { readonly now: number; readonly stuckAfterSeconds: number },
): (o: ObjectMetadata) => string | undefined {
  const outlook = deletionOutlook(inventory, context);
  return (o) => {
    const x = outlook(o);
    return x?.outcome === 'hangs' ? x.why : undefined;
  };
}

/**
 * Pure: what the origin of a custom resource's controller foretells (`controllerOrigin`: the CRD,
 * whether it is being deleted, the Helm release that shipped it and that release's Deployments),
 * or undefined when the snapshot does not know it. `hangs` when its CRD is being deleted and no
 * Deployment of that release runs (controller-liveness.ts): the operator went first and nothing
 * will remove `finalizer` (scenario S02/S06); `waits` when one of those Deployments runs.
 */
function originOutlook(
  inventory: Inventory,
  o: ObjectMetadata,
  finalizer: string,
  liveness: (o: ObjectMetadata) => Liveness,
): DeletionOutlook | undefined {
  const origin = controllerOrigin(inventory, [o]);
  if (!origin?.release) return undefined;
  const release = `${origin.release.namespace}/${origin.release.name}`;
  const live = origin.deployments.filter((d) => liveness(d).live);
  if (live.length > 0)
    return {
      outcome: 'waits',
      why: `finalizer ${finalizer}: the Deployment${live.length === 1 ? '' : 's'} ${live.map((d) => `${d.namespace ?? ''}/${d.name}`).join(', ')} of release ${release}, which shipped CRD ${origin.crd}, ${live.length === 1 ? 'runs' : 'run'}`,
    };
  if (!origin.crdDeleting) return undefined;
  return {
    outcome: 'hangs',
    why:
      `finalizer ${finalizer}: CRD ${origin.crd} is being deleted, and release ${release}, which shipped it, ` +
      (origin.deployments.length
        ? `has no running Deployment (${origin.deployments.map((d) => d.name).join(', ')} not available)`
        : 'has no Deployment left'),
    finalizer,
  };
}
