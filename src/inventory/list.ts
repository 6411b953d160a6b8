import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import type { GroupVersionResource, ObjectMetadata, OwnerReference } from './types.js';

/** Accept header that asks for metav1.PartialObjectMetadataList (server-side metadata-only list). */
export const metadataListAccept =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9';

/** The collection path of a resource, across all namespaces: /api/v1/pods, /apis/apps/v1/deployments. */
export function collectionPath(gvr: GroupVersionResource, namespace?: string): string {
  const base = gvr.group ? `/apis/${gvr.group}/${gvr.version}` : `/api/${gvr.version}`;
  return namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${gvr.resource}`
    : `${base}/${gvr.resource}`;
}

interface RawMetadata {
  name?: string;
  namespace?: string;
  uid?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RawList<T> {
  metadata?: { continue?: string; resourceVersion?: string };
  items?: T[];
}

const droppedAnnotations = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

/**
 * Pure: keeps the fields rules read from one item's metadata. The apiVersion/kind are the
 * resource's own (a PartialObjectMetadataList reports items as meta.k8s.io PartialObjectMetadata).
 */
export function toObjectMetadata(
  meta: RawMetadata,
  apiVersion: string,
  kind: string,
  resource: string,
): ObjectMetadata {
  let annotations = meta.annotations;
  if (annotations && Object.keys(annotations).some((k) => droppedAnnotations.has(k))) {
    annotations = Object.fromEntries(Object.entries(annotations).filter(([k]) => !droppedAnnotations.has(k)));
  }
  return {
    apiVersion,
    kind,
    resource,
    name: meta.name ?? '',
    uid: meta.uid ?? '',
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    ...(meta.creationTimestamp ? { creationTimestamp: meta.creationTimestamp } : {}),
    ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}),
    ...(meta.finalizers?.length ? { finalizers: meta.finalizers } : {}),
    ...(meta.ownerReferences?.length ? { ownerReferences: meta.ownerReferences } : {}),
    ...(meta.labels && Object.keys(meta.labels).length ? { labels: meta.labels } : {}),
    ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
  };
}

export interface ListOptions {
  /** `limit` of one page. */
  readonly pageSize: number;
  /** Whole objects (true) or PartialObjectMetadata (false). */
  readonly full: boolean;
  readonly labelSelector?: string;
  /** List only this namespace (default: across all namespaces). */
  readonly namespace?: string;
  /** Called for every item; lets the caller keep what it needs and drop the rest (memory). */
  readonly onItem: (item: { metadata?: RawMetadata } & Record<string, unknown>) => void;
}

/**
 * Lists one resource across all namespaces (or in `options.namespace`), page by page (`limit` + `continue`). When the
 * continue token expires (410 Gone, the list took longer than etcd's compaction window), the
 * list starts again once from the beginning with items seen so far reported again.
 * @returns the number of pages read.
 * @throws KubernetesApiError (403 Forbidden and others) from the API; the caller records coverage.
 */
export async function listAll(
  api: ApiClient,
  gvr: GroupVersionResource,
  options: ListOptions,
): Promise<number> {
  const path = collectionPath(gvr, options.namespace);
  let pages = 0;
  for (let restart = 0; ; restart++) {
    let token: string | undefined;
    try {
      do {
        const page: RawList<{ metadata?: RawMetadata } & Record<string, unknown>> = await api.request({
          path,
          query: { limit: options.pageSize, continue: token, labelSelector: options.labelSelector },
          ...(options.full ? {} : { accept: metadataListAccept }),
        });
        pages++;
        for (const item of page.items ?? []) options.onItem(item);
        token = page.metadata?.continue || undefined;
      } while (token);
      return pages;
    } catch (error) {
      if (restart === 0 && error instanceof KubernetesApiError && error.status === 410) continue;
      throw error;
    }
  }
}
