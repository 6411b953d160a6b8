/**
 * What the snapshot foretells about deleting an object: whether its deletion would end while a
 * teardown waits for it. A dry run reads it to show the releases the real run would skip
 * (teardown/dry-run.ts): a release whose CRDs' instances are still there after their wait is
 * not uninstalled, so its controller stays to finalize them.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import {
  builtInFinalizers,
  describeControllerSearch,
  findFinalizerControllers,
  type ControllerSearch,
} from './finalizer-controllers.js';

/**
 * Pure: a function telling why deleting an object would not end within a teardown's wait, or
 * undefined when the snapshot gives no reason to think so. An object stays when it holds a
 * finalizer that Kubernetes does not remove itself and no controller for it appears to run
 * (`findFinalizerControllers` concludes `none`: the OperatorGoneFinalizer evidence), or when its
 * deletion was requested at least `stuckAfterSeconds` before `now` (ms since the epoch) and it
 * still holds finalizers. An unknown controller search (a footprint kind not listed, a finalizer
 * that names no controller) foretells nothing: a forecast may say less, never something false.
 */
export function deletionForecast(
  inventory: Inventory,
  context: { readonly now: number; readonly stuckAfterSeconds: number },
): (o: ObjectMetadata) => string | undefined {
  const searches = new Map<string, ControllerSearch>();
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
      return `deleting since ${o.deletionTimestamp}, still held by finalizer${finalizers.length === 1 ? '' : 's'} ${finalizers.join(', ')}`;
    for (const finalizer of finalizers) {
      if (builtInFinalizers[finalizer] !== undefined) continue;
      const search = searchOf(finalizer, o);
      if (search.result === 'none')
        return `finalizer ${finalizer}: ${describeControllerSearch(search, finalizer)}`;
    }
    return undefined;
  };
}
