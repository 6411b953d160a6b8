/**
 * The status of objects held in deletion by finalizers, for the rules that say what a finalizer
 * guards (rules/finalizer-catalogue.ts: an Argo CD Application's `status.resources`, a Velero
 * DataUpload's `status.phase`, a Service's `status.loadBalancer`). The snapshot lists most kinds as
 * metadata, so the body of each object that carries a deletionTimestamp and finalizers is read
 * after the lists, one GET each, at most `heldBodyLimit` of them; kinds already kept whole and Pods
 * (pods.ts) are skipped. Only `status`, a few `spec` fields and the managers that added each
 * finalizer (`metadata.managedFields`) are kept. For each finalizer of such an object, the patch
 * kube-sweep prints to remove it (`finalizerRemovalOps`) is sent once with `dryRun=All`: the API
 * server runs admission (webhooks, policies) and stores nothing, so a remedy the server would
 * refuse is known before it is printed. A healthy cluster holds no such object, so the usual cost
 * is zero requests.
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
  /**
   * Finalizer → the field managers that own it in `metadata.managedFields` (the entries whose
   * `fieldsV1` holds `f:metadata` → `f:finalizers` → `v:"<finalizer>"`): who added it, by the
   * server's own record (Kubernetes "Server-Side Apply", field management). Absent when none.
   */
  readonly finalizerManagers?: Readonly<Record<string, readonly string[]>>;
  /** The dry run of removing each finalizer (`finalizerRemovalOps`, `dryRun=All`), in finalizer order. */
  readonly removalChecks?: readonly RemovalCheck[];
}

/**
 * How the API server answered the dry run of one finalizer removal: `accepted` (it would
 * store it), `refused` (admission or validation denied it; `message` is the server's words,
 * e.g. `admission webhook "x" denied the request: ...`), `unchecked` (the dry run itself could
 * not be judged: forbidden to kube-sweep, a webhook that does not support dry run, a
 * transport error; `message` says which).
 */
export interface RemovalCheck {
  readonly finalizer: string;
  readonly outcome: 'accepted' | 'refused' | 'unchecked';
  readonly message?: string;
}

/**
 * Pure: the JSON patch (RFC 6902) that removes `finalizer` (default: every finalizer) from an
 * object whose finalizer list is `finalizers`: a `test` op per removed entry at the index seen,
 * then the removes from the highest index down, so that the patch fails instead of removing
 * another finalizer if the list changed. Empty when the object does not carry it.
 */
export function finalizerRemovalOps(
  finalizers: readonly string[],
  finalizer?: string,
): { op: 'test' | 'remove'; path: string; value?: string }[] {
  const named = finalizers
    .map((name, index) => ({ name, index }))
    .filter((x) => finalizer === undefined || x.name === finalizer)
    .reverse();
  const path = (i: number) => `/metadata/finalizers/${i}`;
  return [
    ...named.map((x) => ({ op: 'test' as const, path: path(x.index), value: x.name })),
    ...named.map((x) => ({ op: 'remove' as const, path: path(x.index) })),
  ];
}

interface ManagedFieldsEntry {
  manager?: unknown;
  fieldsV1?: unknown;
}

/**
 * Pure: finalizer → managers owning it, from `metadata.managedFields` as read (untrusted: every
 * shape is checked; a manager that is not a non-empty string is skipped).
 */
export function finalizerManagersOf(managedFields: unknown): Record<string, string[]> {
  const managers: Record<string, string[]> = {};
  if (!Array.isArray(managedFields)) return managers;
  for (const entry of managedFields as ManagedFieldsEntry[]) {
    const fields = entry?.fieldsV1 as Record<string, unknown> | undefined;
    const list = (fields?.['f:metadata'] as Record<string, unknown> | undefined)?.['f:finalizers'];
    if (typeof entry?.manager !== 'string' || !entry.manager || !list || typeof list !== 'object') continue;
    for (const key of Object.keys(list)) {
      if (!key.startsWith('v:')) continue;
      let name: unknown;
      try {
        name = JSON.parse(key.slice(2));
      } catch {
        continue;
      }
      if (typeof name !== 'string') continue;
      const owners = (managers[name] ??= []);
      if (!owners.includes(entry.manager)) owners.push(entry.manager);
    }
  }
  return managers;
}

/**
 * Pure: how a failed dry run reads. Refused: admission said no (a webhook or an admission policy
 * denied it, or a webhook that fails closed could not be called: the real request fails the same
 * way) or validation did (400, 409, 422). Unchecked: a webhook that does not support dry run
 * (sideEffects Unknown or Some: it rejects every dry run, which says nothing of the real request),
 * kube-sweep's own RBAC (403 without an admission message), 401, 404 and other server errors.
 */
export function removalOutcome(status: number, message: string): RemovalCheck['outcome'] {
  if (/does not support dry run/i.test(message)) return 'unchecked';
  if (/admission webhook|failed calling webhook|denied (the )?request|AdmissionPolicy/i.test(message))
    return 'refused';
  return status === 400 || status === 409 || status === 422 ? 'refused' : 'unchecked';
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
 * Sends the patch that removes `finalizer` from `o` with `dryRun=All` (one request; nothing is
 * stored). A 404 (gone meanwhile) reads as accepted: there is nothing left to refuse.
 */
async function checkRemoval(api: ApiClient, o: ObjectMetadata, finalizer: string): Promise<RemovalCheck> {
  try {
    await api.request({
      method: 'PATCH',
      path: pathOf(o),
      query: { dryRun: 'All' },
      contentType: 'application/json-patch+json',
      body: finalizerRemovalOps(o.finalizers ?? [], finalizer),
    });
    return { finalizer, outcome: 'accepted' };
  } catch (error) {
    if (!(error instanceof KubernetesApiError)) throw error;
    if (error.status === 404) return { finalizer, outcome: 'accepted' };
    const outcome = removalOutcome(error.status, error.apiMessage);
    return { finalizer, outcome, message: `HTTP ${error.status}: ${error.apiMessage}` };
  }
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
          const body = await api.request<{
            status?: unknown;
            spec?: Record<string, unknown>;
            metadata?: { managedFields?: unknown; finalizers?: unknown };
          }>({ path: pathOf(o) });
          const spec = body.spec ?? {};
          const managers = finalizerManagersOf(body.metadata?.managedFields);
          const removalChecks: RemovalCheck[] = [];
          for (const finalizer of o.finalizers ?? [])
            removalChecks.push(await checkRemoval(api, o, finalizer));
          bodies.push({
            uid: o.uid,
            ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
            ...(body.status !== undefined ? { status: body.status } : {}),
            spec: { deletionPolicy: spec.deletionPolicy, destination: spec.destination },
            ...(Object.keys(managers).length ? { finalizerManagers: managers } : {}),
            removalChecks,
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
