/**
 * The status of objects held in deletion by finalizers, for the rules that say what a finalizer
 * guards (rules/finalizer-catalogue.ts: an Argo CD Application's `status.resources`, a Velero
 * DataUpload's `status.phase`, a Service's `status.loadBalancer`). The snapshot lists most kinds as
 * metadata, so the body of each object that carries a deletionTimestamp and finalizers is read
 * after the lists, one GET each, at most `heldBodyLimit` of them; kinds already kept whole and Pods
 * (pods.ts) are skipped. Only `status` and a few `spec` fields are kept. A healthy cluster holds
 * no such object, so the usual cost is zero requests.
 */
import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { fullObjectResources, type CoverageGap, type ObjectMetadata } from './types.js';

/** At most this many bodies are read per snapshot (the rest are left out, with a coverage gap). */
export const heldBodyLimit = 200;

/** What is kept of one held object's body. */
export interface HeldBody {
  readonly uid: string;
  readonly namespace?: string;
  /** Its `status`, as read. */
  readonly status?: unknown;
  /** `spec.deletionPolicy` and `spec.destination` (snapshot contents, Crossplane, Argo CD). */
  readonly spec?: { readonly deletionPolicy?: unknown; readonly destination?: unknown };
}

/** Pure: the objects whose bodies are read: held in deletion by finalizers, not kept whole already, not Pods. */
export function heldToFetch(objects: readonly ObjectMetadata[]): ObjectMetadata[] {
  const whole = new Set<string>([...fullObjectResources.map((r) => r.resource), 'pods']);
  return objects.filter(
    (o) => o.deletionTimestamp !== undefined && (o.finalizers?.length ?? 0) > 0 && !whole.has(o.resource),
  );
}

/** The path of one listed object (its apiVersion and resource plural). */
function pathOf(o: ObjectMetadata): string {
  const base = o.apiVersion.includes('/') ? `/apis/${o.apiVersion}` : `/api/${o.apiVersion}`;
  const ns = o.namespace !== undefined ? `/namespaces/${encodeURIComponent(o.namespace)}` : '';
  return `${base}${ns}/${o.resource}/${encodeURIComponent(o.name)}`;
}

/**
 * Reads the bodies of `heldToFetch(objects)`, `concurrency` at a time, up to `heldBodyLimit`. A
 * 404 (gone meanwhile) is skipped; other API errors, and the objects over the limit, become one
 * coverage gap each kind of trouble.
 */
export async function readHeldBodies(
  api: ApiClient,
  objects: readonly ObjectMetadata[],
  concurrency: number,
): Promise<{ bodies: HeldBody[]; coverage: CoverageGap[] }> {
  const wanted = heldToFetch(objects);
  const limit = pLimit(concurrency);
  const bodies: HeldBody[] = [];
  const failures: string[] = [];
  await Promise.all(
    wanted.slice(0, heldBodyLimit).map((o) =>
      limit(async () => {
        try {
          const body = await api.request<{ status?: unknown; spec?: Record<string, unknown> }>({
            path: pathOf(o),
          });
          const spec = body.spec ?? {};
          bodies.push({
            uid: o.uid,
            ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
            ...(body.status !== undefined ? { status: body.status } : {}),
            spec: { deletionPolicy: spec.deletionPolicy, destination: spec.destination },
          });
        } catch (error) {
          if (error instanceof KubernetesApiError) {
            if (error.status !== 404)
              failures.push(`${o.resource} ${o.namespace ?? ''}/${o.name}: ${error.apiMessage}`);
          } else throw error;
        }
      }),
    ),
  );
  const coverage: CoverageGap[] = [
    ...(failures.length
      ? [
          {
            resource: 'held objects (whole)',
            reason: 'failed' as const,
            message: failures.slice(0, 5).join('; '),
          },
        ]
      : []),
    ...(wanted.length > heldBodyLimit
      ? [
          {
            resource: 'held objects (whole)',
            reason: 'failed' as const,
            message: `${wanted.length - heldBodyLimit} of ${wanted.length} held objects over the limit of ${heldBodyLimit} were not read whole`,
          },
        ]
      : []),
  ];
  return { bodies, coverage };
}
