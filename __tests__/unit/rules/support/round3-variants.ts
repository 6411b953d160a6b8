/**
 * Variants of recorded snapshots for the round-3 rules (S24-S28), built on fixtures recorded
 * from the real control plane: an admission policy whose param is missing where a claim waits
 * (on S12's Terminating namespace and its claim held by pvc-protection), a Job quota full of
 * finished Jobs, a Pod-count quota full of terminal Pods (`podQuota`), a Helm record stored outside
 * its release's namespace, and Velero and Argo CD
 * objects held by their finalizers with their status read.
 */
import type { InventoryData } from '../../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../../src/inventory/types.js';
import { loadRecordedFixture } from './recorded-fixture.js';

type Full = Record<string, unknown[]>;

/** The data with more objects: metadata, whole bodies per resource, and extra top-level fields. */
export function withObjects(
  d: InventoryData,
  metas: readonly ObjectMetadata[],
  whole: Readonly<Record<string, readonly unknown[]>> = {},
  extra: Partial<InventoryData> = {},
): InventoryData {
  const full = { ...(d.full as unknown as Full) };
  for (const [resource, items] of Object.entries(whole))
    full[resource] = [...(full[resource] ?? []), ...items];
  return {
    ...d,
    objects: [...d.objects, ...metas],
    full: full as unknown as InventoryData['full'],
    ...extra,
  };
}

/** A metadata entry. */
export function meta(
  apiVersion: string,
  kind: string,
  resource: string,
  name: string,
  rest: Partial<ObjectMetadata> = {},
): ObjectMetadata {
  return {
    apiVersion,
    kind,
    resource,
    name,
    uid: `uid-${resource}-${rest.namespace ?? ''}-${name}`,
    ...rest,
  };
}

export const s12 = () => loadRecordedFixture('s12-pvc-protection-blocked');

/** S12's snapshot plus policy `pvc-guard` (paramKind ConfigMap, PVC CREATE/UPDATE) and its binding (param `storage-limits`, Deny). */
export function policyParamMissing(d: InventoryData, notFound: 'Deny' | 'Allow' = 'Deny'): InventoryData {
  const admission = 'admissionregistration.k8s.io/v1';
  const policy = {
    apiVersion: admission,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'pvc-guard', uid: 'uid-policy' },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['persistentvolumeclaims'],
          },
        ],
      },
    },
  };
  const binding = {
    apiVersion: admission,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'pvc-guard-binding', uid: 'uid-binding' },
    spec: {
      policyName: 'pvc-guard',
      validationActions: ['Deny'],
      paramRef: { name: 'storage-limits', parameterNotFoundAction: notFound },
    },
  };
  return withObjects(
    d,
    [
      meta(admission, 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', 'pvc-guard', {
        uid: 'uid-policy',
      }),
      meta(
        admission,
        'ValidatingAdmissionPolicyBinding',
        'validatingadmissionpolicybindings',
        'pvc-guard-binding',
        {
          uid: 'uid-binding',
        },
      ),
    ],
    { validatingadmissionpolicies: [policy], validatingadmissionpolicybindings: [binding] },
  );
}

/** A Job in `ns` that failed `minutesAgo` minutes before `takenAt`, with no TTL unless given. */
function failedJob(
  ns: string,
  name: string,
  takenAt: string,
  options: { ttl?: number; owner?: string } = {},
) {
  const at = new Date(Date.parse(takenAt) - 60_000).toISOString();
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: ns,
      uid: `uid-job-${name}`,
      ...(options.owner
        ? {
            ownerReferences: [
              { apiVersion: 'batch/v1', kind: 'CronJob', name: options.owner, uid: 'uid-cron' },
            ],
          }
        : {}),
    },
    spec: { ...(options.ttl !== undefined ? { ttlSecondsAfterFinished: options.ttl } : {}) },
    status: {
      conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', lastTransitionTime: at }],
      failed: 1,
    },
  };
}

/** Namespace `ns` (existing in the data) with quota `jobs` (hard `hard`, used `jobs`) and `jobs` failed Jobs. */
export function fullJobQuota(
  d: InventoryData,
  ns: string,
  options: { hard: number; jobs: number; ttl?: number; cronHistory?: number },
): InventoryData {
  const jobs = Array.from({ length: options.jobs }, (_, i) =>
    failedJob(ns, `migrate-${i + 1}`, d.takenAt, {
      ...(options.ttl !== undefined ? { ttl: options.ttl } : {}),
      ...(options.cronHistory !== undefined ? { owner: 'nightly' } : {}),
    }),
  );
  const quota = {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'jobs', namespace: ns, uid: 'uid-quota' },
    spec: { hard: { 'count/jobs.batch': String(options.hard) } },
    status: {
      hard: { 'count/jobs.batch': String(options.hard) },
      used: { 'count/jobs.batch': String(options.jobs) },
    },
  };
  const cron =
    options.cronHistory !== undefined
      ? [
          {
            apiVersion: 'batch/v1',
            kind: 'CronJob',
            metadata: { name: 'nightly', namespace: ns, uid: 'uid-cron' },
            spec: {
              schedule: '* * * * *',
              failedJobsHistoryLimit: options.cronHistory,
              successfulJobsHistoryLimit: 0,
            },
          },
        ]
      : [];
  return withObjects(
    d,
    [
      meta('v1', 'ResourceQuota', 'resourcequotas', 'jobs', { namespace: ns, uid: 'uid-quota' }),
      ...jobs.map((j) =>
        meta('batch/v1', 'Job', 'jobs', j.metadata.name, { namespace: ns, uid: j.metadata.uid }),
      ),
      ...cron.map((c) =>
        meta('batch/v1', 'CronJob', 'cronjobs', c.metadata.name, { namespace: ns, uid: 'uid-cron' }),
      ),
    ],
    { resourcequotas: [quota], jobs, cronjobs: cron },
  );
}

/**
 * A Helm record Secret for release `api` of namespace `target` stored in `storage` (both given),
 * with its body read (helmRecords), and ClusterRole `<target>-api-reader` annotated with the release.
 */
export function recordStoredElsewhere(d: InventoryData, storage: string, target: string): InventoryData {
  const secret = meta('v1', 'Secret', 'secrets', 'sh.helm.release.v1.api.v1', {
    namespace: storage,
    uid: 'uid-record',
    labels: { owner: 'helm', name: 'api', status: 'deployed', version: '1' },
  });
  const role = meta('rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', `${target}-api-reader`, {
    uid: 'uid-role',
    creationTimestamp: new Date(Date.parse(d.takenAt) - 60_000).toISOString(),
    annotations: { 'meta.helm.sh/release-name': 'api', 'meta.helm.sh/release-namespace': target },
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
  });
  return withObjects(
    d,
    [secret, role],
    {},
    {
      helmRecords: [
        {
          storage: { kind: 'Secret', namespace: storage, name: secret.name, uid: secret.uid },
          release: { namespace: target, name: 'api' },
          revision: 1,
          status: 'deployed',
        },
      ],
    },
  );
}

/** An object of a custom resource held in deletion by `finalizer` in `ns`, with its status read. */
export function held(
  d: InventoryData,
  objects: readonly {
    apiVersion: string;
    kind: string;
    resource: string;
    ns: string;
    name: string;
    finalizer: string;
    status: unknown;
  }[],
): InventoryData {
  const deletionTimestamp = new Date(Date.parse(d.takenAt) - 120_000).toISOString();
  const metas = objects.map((o) =>
    meta(o.apiVersion, o.kind, o.resource, o.name, {
      namespace: o.ns,
      finalizers: [o.finalizer],
      deletionTimestamp,
    }),
  );
  return withObjects(
    d,
    metas,
    {},
    {
      heldBodies: [
        ...(d.heldBodies ?? []),
        ...objects.map((o, i) => ({ uid: metas[i]!.uid, namespace: o.ns, status: o.status })),
      ],
    },
  );
}

/** Namespace `default` with quota `pods` (count/pods: hard, used = the pods given) and those Pods. */
export function podQuota(
  d: InventoryData,
  hard: number,
  pods: readonly { name: string; phase: string; job?: string; deleting?: boolean }[],
): InventoryData {
  const quota = {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'pods', namespace: 'default', uid: 'uid-quota' },
    status: { hard: { 'count/pods': String(hard) }, used: { 'count/pods': String(pods.length) } },
  };
  const whole = pods.map((p) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: 'default',
      uid: `uid-${p.name}`,
      ...(p.deleting ? { deletionTimestamp: d.takenAt } : {}),
      ...(p.job ? { ownerReferences: [{ kind: 'Job', name: p.job }] } : {}),
    },
    status: { phase: p.phase },
  }));
  return withObjects(
    d,
    [
      meta('v1', 'ResourceQuota', 'resourcequotas', 'pods', { namespace: 'default', uid: 'uid-quota' }),
      ...pods.map((p) => meta('v1', 'Pod', 'pods', p.name, { namespace: 'default', uid: `uid-${p.name}` })),
    ],
    { resourcequotas: [quota], pods: whole },
  );
}

/** The data with `annotations` added to namespace `ns` (kept whole by the snapshot). */
export function annotateNamespace(
  d: InventoryData,
  ns: string,
  annotations: Record<string, string>,
): InventoryData {
  type Ns = { metadata?: { name?: string; annotations?: Record<string, string> } };
  const namespaces = (d.full as unknown as { namespaces: Ns[] }).namespaces.map((n) =>
    n.metadata?.name === ns
      ? { ...n, metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, ...annotations } } }
      : n,
  );
  return { ...d, full: { ...d.full, namespaces } as unknown as InventoryData['full'] };
}
