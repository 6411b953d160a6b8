import pLimit from 'p-limit';
import { groupOf } from '../kube/api-version.js';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { deletionRefusalOf } from '../cluster/refusal.js';
import type { RefusedRequest } from '../kube/refusal.js';
import { collectionPath, metadataListAccept } from '../inventory/list.js';
import type { Inventory } from '../inventory/snapshot.js';
import { isProtected, nameProtectionOnly, type NamespaceProtection } from '../plan/protected-namespaces.js';
import type { KindAddress } from './resource-index.js';

/**
 * Pure: the namespaced collections in which the inventory saw objects in `namespace`, limited
 * to resources that serve `deletecollection` (discovery's verbs), sorted by path. These are the
 * collections the namespace controller will empty when the namespace is deleted
 * (pkg/controller/namespace/deletion/namespaced_resources_deleter.go, `deleteAllContent`).
 */
export function contentCollections(
  inventory: Pick<Inventory, 'byNamespace' | 'resources'>,
  namespace: string,
): KindAddress[] {
  const deletable = new Map<string, unknown>(
    inventory.resources
      .filter((r) => r.namespaced && r.verbs.includes('deletecollection'))
      .map((r) => [`${r.group}/${r.version}/${r.resource}`, r] as const),
  );
  const out = new Map<string, KindAddress>();
  for (const o of inventory.byNamespace.get(namespace) ?? []) {
    const group = groupOf(o.apiVersion);
    const version = o.apiVersion.slice(group ? group.length + 1 : 0);
    const key = `${group}/${version}/${o.resource}`;
    const served = deletable.get(key);
    if (served && !out.has(key)) out.set(key, { group, version, resource: o.resource, namespaced: true });
  }
  return [...out.values()].sort((a, b) =>
    collectionPath(a, namespace).localeCompare(collectionPath(b, namespace)),
  );
}

/** At most this many `deletecollection` requests in flight at once (all namespaces together). */
export const contentDeleteConcurrency = 8;

/**
 * Empties a namespace that was just deleted, one `deletecollection` (propagationPolicy
 * Background) per collection, without waiting for the namespace controller. The server answers
 * a deletecollection with the list of what it deleted, encoded like a list's answer
 * (k8s.io/apiserver pkg/endpoints/handlers/delete.go `DeleteCollection` ->
 * `transformResponseObject`), so it is asked for metadata only (`metadataListAccept`): the
 * server encodes and sends no Secret's data, no ConfigMap's content and no spec. The controller
 * starts a namespace's deletion only after `namespaceDeletionGracePeriod` (5 s, so that the
 * NamespaceLifecycle admission plugin's cache sees the namespace Terminating: kube-controller-
 * manager pkg/controller/namespace/namespace_controller.go) and then empties the collections one
 * after another; doing it here during that grace period leaves it nothing to do. Call it only
 * after the namespace's DELETE was accepted: objects still being created then are the
 * controller's to delete, and the namespace is never finalized here (never PUT /finalize).
 * @returns `failures`: one line per collection that could not be emptied (a 403, an admission
 *   denial, a 5xx), sorted: the namespace controller still deletes it, and the namespace wait
 *   reports what stays; `refusals`: every answer of the API server among them
 *   (`isFailedDeletion`: a 4xx refusal, a 5xx of a failing webhook), with its answer, sorted by request. Never throws for an answer of the API server.
 *   A protected namespace (`protection`) is never emptied: it gets one failure line saying so
 *   and no request.
 * @throws ClusterAccessError when the cluster stops answering
 */
export async function deleteNamespaceContent(
  api: ApiClient,
  content: ReadonlyMap<string, readonly KindAddress[]>,
  protection: NamespaceProtection = nameProtectionOnly,
): Promise<{ failures: string[]; refusals: RefusedRequest[] }> {
  const limit = pLimit(contentDeleteConcurrency);
  const failures: string[] = [];
  const refusals: RefusedRequest[] = [];
  const allowed = [...content].filter(([namespace]) => {
    if (!isProtected(namespace, protection)) return true;
    failures.push(`${namespace}: protected, not emptied`);
    return false;
  });
  await Promise.all(
    allowed.flatMap(([namespace, collections]) =>
      collections.map((address) =>
        limit(async () => {
          const path = collectionPath(address, namespace);
          try {
            await api.request({
              method: 'DELETE',
              path,
              query: { propagationPolicy: 'Background' },
              accept: metadataListAccept,
            });
          } catch (error) {
            if (error instanceof KubernetesApiError && error.status === 404) return;
            if ((error as Error)?.name === 'ClusterAccessError') throw error;
            failures.push(`${path}: ${(error as Error)?.message ?? String(error)}`);
            const refusal = deletionRefusalOf(error, {
              step: 'empty-namespace',
              object: { apiVersion: 'v1', kind: 'Namespace', name: namespace },
              environmentNamespace: namespace,
            });
            if (refusal) refusals.push(refusal);
          }
        }),
      ),
    ),
  );
  return {
    failures: failures.sort(),
    refusals: refusals.sort((a, b) => a.request.localeCompare(b.request)),
  };
}
