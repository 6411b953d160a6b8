/**
 * Whether the Service that an APIService, an admission webhook or a CRD conversion webhook
 * calls exists in the snapshot. Only Services and Namespaces are read (metadata); whether the
 * Service has ready endpoints needs whole EndpointSlices, which the snapshot does not keep.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ServiceReference } from './kubernetes-objects.js';
import { objectsOf, wasListed } from './snapshot-views.js';

/** What the snapshot says about a backend Service. */
export type BackendState =
  | { readonly state: 'present' }
  | { readonly state: 'namespace-missing' | 'service-missing'; readonly detail: string }
  /** Services or Namespaces could not be listed: nothing can be concluded. */
  | { readonly state: 'unknown' };

/** `<namespace>/<name>` of a ServiceReference. */
export function servicePath(service: ServiceReference): string {
  return `${service.namespace ?? ''}/${service.name ?? ''}`;
}

/** A lookup over the snapshot's Services, built once per rule run. */
export function serviceBackends(inventory: Inventory): (service: ServiceReference) => BackendState {
  const known = wasListed(inventory, '', 'services') && wasListed(inventory, '', 'namespaces');
  const services = new Set(objectsOf(inventory, '', 'services').map((s) => `${s.namespace}/${s.name}`));
  return (service) => {
    if (!known) return { state: 'unknown' };
    const namespace = service.namespace ?? '';
    if (!inventory.namespaceNames.has(namespace))
      return { state: 'namespace-missing', detail: `namespace ${namespace} does not exist` };
    if (!services.has(servicePath(service)))
      return {
        state: 'service-missing',
        detail: `service ${service.name ?? ''} does not exist in namespace ${namespace}`,
      };
    return { state: 'present' };
  };
}
