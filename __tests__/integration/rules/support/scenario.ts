/**
 * Building blocks of the rule scenarios (shared/cases/scenarios.md) on the local control
 * plane: a Widget CRD per test (unique group), objects with finalizers, waits on namespace
 * conditions, the snapshot + rules run, and the fixture recorder (RECORD_FIXTURES=1).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from '../../../../src/cluster/api-client.js';
import { KubernetesApiError } from '../../../../src/cluster/errors.js';
import { collectInventory } from '../../../../src/inventory/collect.js';
import type { EtcdAccess } from '../../../../src/inventory/etcd.js';
import type { Inventory, InventoryData } from '../../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../../src/inventory/types.js';
import type { Finding } from '../../../../src/rules/findings.js';
import { runRules } from '../../../../src/rules/index.js';
import type { RuleContext } from '../../../../src/rules/rule.js';
import { waitFor } from '../../../../src/util/wait.js';
import { recordedFixturesDir, type RecordedFixture } from '../../../unit/rules/support/recorded-fixture.js';
import { createNamespace, deleteIfPresent, getOrUndefined, waitGone } from '../../support/cluster.js';

/** The finalizer of the scenarios (reference.md 0.3). */
export const cleanupFinalizer = 'example.com/cleanup';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface WithConditions {
  metadata?: { deletionTimestamp?: string };
  status?: { conditions?: Condition[] };
}

export { adminApiForSuite } from '../../support/cluster.js';

/** A namespaced CRD `<plural>.<group>` with preserve-unknown-fields schemas; by default Widget, v1 only. */
export interface CrdOptions {
  readonly group: string;
  readonly plural?: string;
  readonly kind?: string;
  /** Served versions; the last one is the storage version. */
  readonly versions?: readonly string[];
  readonly conversion?: unknown;
}

/** Creates the CRD and waits until it is Established; returns its name. */
export async function createCrd(api: ApiClient, options: CrdOptions): Promise<string> {
  const { group, plural = 'widgets', kind = 'Widget', versions = ['v1'] } = options;
  const name = `${plural}.${group}`;
  await api.request({
    method: 'POST',
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: versions.map((version, i) => ({
          name: version,
          served: true,
          storage: i === versions.length - 1,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
        ...(options.conversion ? { conversion: options.conversion } : {}),
      },
    },
  });
  await waitForCondition(
    api,
    `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    'Established',
  );
  return name;
}

/** Creates CRD `widgets.<group>` (the scenarios' fixture CRD, reference.md 0.3). */
export function createWidgetCrd(api: ApiClient, group: string): Promise<string> {
  return createCrd(api, { group });
}

/** A Deployment of one container whose pods are labelled `app: <name>`. */
export async function createDeployment(
  api: ApiClient,
  namespace: string,
  name: string,
  replicas: number,
): Promise<void> {
  await createObject(api, `/apis/apps/v1/namespaces/${namespace}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: `registry.invalid/${name}:1` }] },
      },
    },
  });
}

/** Waits until Deployment `<namespace>/<name>` has an available replica (kwok runs its pods). */
export async function waitAvailable(api: ApiClient, namespace: string, name: string): Promise<void> {
  await waitFor(
    async () => {
      const d = await api.request<{ status?: { availableReplicas?: number } }>({
        path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
      });
      return { done: (d.status?.availableReplicas ?? 0) > 0, value: d.status };
    },
    { timeoutMs: 90_000, description: `deployment ${namespace}/${name} to have an available replica` },
  );
}

/** Waits until the object at `path` has condition `type` with `status` (default True); returns all its conditions. */
export async function waitForCondition(
  api: ApiClient,
  path: string,
  type: string,
  status = 'True',
  timeoutMs = 60_000,
): Promise<Condition[]> {
  return waitFor(
    async () => {
      const o = await api.request<WithConditions>({ path });
      const conditions = o.status?.conditions ?? [];
      return { done: conditions.some((c) => c.type === type && c.status === status), value: conditions };
    },
    { timeoutMs, description: `${path} to have ${type}=${status}` },
  );
}

/** POSTs an object, retrying while a CRD created moments before is not routable yet. */
export async function createObject(api: ApiClient, collection: string, body: unknown): Promise<void> {
  await waitFor(
    async () => {
      try {
        await api.request({ method: 'POST', path: collection, body });
        return { done: true, value: collection };
      } catch (error) {
        if (error instanceof KubernetesApiError && error.status === 404)
          return { done: false, value: collection };
        throw error;
      }
    },
    { timeoutMs: 30_000, description: `POST ${collection}` },
  );
}

/** A Widget (group `<group>/v1`) with the given finalizers. */
export async function createWidget(
  api: ApiClient,
  group: string,
  namespace: string,
  name: string,
  finalizers: string[],
): Promise<void> {
  await createObject(api, `/apis/${group}/v1/namespaces/${namespace}/widgets`, {
    apiVersion: `${group}/v1`,
    kind: 'Widget',
    metadata: { name, finalizers },
  });
}

/** Sets metadata.finalizers to null (404 is fine: already gone). */
export async function removeFinalizers(api: ApiClient, path: string): Promise<void> {
  try {
    await api.request({
      method: 'PATCH',
      path,
      contentType: 'application/merge-patch+json',
      body: { metadata: { finalizers: null } },
    });
  } catch (error) {
    if (!(error instanceof KubernetesApiError && error.status === 404)) throw error;
  }
}

/** Deletes a namespace and waits until it is gone. */
export async function deleteNamespaceAndWait(api: ApiClient, namespace: string, timeoutMs = 90_000) {
  await deleteIfPresent(api, `/api/v1/namespaces/${namespace}`);
  await waitGone(api, `/api/v1/namespaces/${namespace}`, timeoutMs);
}

/** Deletes a CRD and waits until it is gone. */
export async function deleteCrdAndWait(api: ApiClient, name: string) {
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  await deleteIfPresent(api, path);
  await waitGone(api, path, 60_000);
}

/** The whole-cluster snapshot, as kube-sweep takes it (with `etcd`: its keys read too). */
export function snapshot(api: ApiClient, etcd?: EtcdAccess): Promise<Inventory> {
  return collectInventory(api, { pageSize: 500, concurrency: 4, ...(etcd ? { etcd } : {}) });
}

/** A Lease MicroTime `secondsAgo` seconds before now (RFC 3339 with microseconds). */
export const microTime = (secondsAgo: number): string =>
  new Date(Date.now() - secondsAgo * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

/** The context of a scenario: deletions count as stuck at once; `namespaces` are the environment. */
export function scenarioContext(namespaces: readonly string[]): RuleContext {
  return { now: Date.now(), stuckAfterSeconds: 0, environmentNamespaces: new Set(namespaces) };
}

/** All rules over the snapshot. */
export function findingsOf(inventory: Inventory, namespaces: readonly string[]): Finding[] {
  return runRules(inventory, scenarioContext(namespaces));
}

/** The findings about objects whose name or namespace contains one of `names` (this test's). */
export function findingsAbout(findings: readonly Finding[], names: readonly string[]): Finding[] {
  return findings.filter((f) =>
    names.some((n) => f.object.name.includes(n) || f.object.namespace?.includes(n)),
  );
}

/** The namespaces that exist in every cluster, kept in recorded fixtures. */
const systemNamespaces = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** What a recorded fixture keeps of the snapshot. */
export interface RecordSelection {
  /** Namespaces of the scenario (existing or not); their objects are kept. */
  readonly namespaces: readonly string[];
  /** Names of the scenario's cluster-scoped objects (APIServices, webhook configurations, CRDs). */
  readonly clusterObjects: readonly string[];
  /** API groups whose etcd keys are kept (a snapshot taken with etcd read); default none. */
  readonly etcdGroups?: readonly string[];
}

/** The object without metadata.managedFields (server-side apply bookkeeping no rule reads). */
function withoutManagedFields<T extends { metadata?: object }>(item: T): T {
  if (!item.metadata || !('managedFields' in item.metadata)) return item;
  const metadata: Record<string, unknown> = { ...item.metadata };
  delete metadata.managedFields;
  return { ...item, metadata };
}

interface Registration {
  metadata?: { name?: string; namespace?: string };
  spec?: { group?: string; service?: unknown };
}

/**
 * Pure: cuts a whole-cluster snapshot down to one scenario: objects in the scenario's and the
 * system namespaces, the scenario's cluster-scoped objects, Nodes, and local APIServices; no
 * Events. Served resources, failed group-versions and coverage of API groups that other tests
 * registered (CRDs and APIServices not kept) are dropped with them. Nothing is rewritten.
 */
export function cutSnapshot(inventory: Inventory, selection: RecordSelection): InventoryData {
  const namespaces = new Set([...systemNamespaces, ...selection.namespaces]);
  const registrations = [
    ...(inventory.full.customresourcedefinitions as Registration[]).map((o) => ({
      resource: 'customresourcedefinitions',
      o,
    })),
    ...(inventory.full.apiservices as Registration[]).map((o) => ({ resource: 'apiservices', o })),
  ];
  const local = new Set(
    registrations
      .filter((r) => r.resource === 'apiservices' && !r.o.spec?.service)
      .map((r) => r.o.metadata?.name),
  );
  const keepCluster = (resource: string, name: string) =>
    selection.clusterObjects.includes(name) ||
    resource === 'nodes' ||
    (resource === 'namespaces' && namespaces.has(name)) ||
    (resource === 'apiservices' && local.has(name));
  const keep = (o: ObjectMetadata) =>
    o.resource !== 'events' &&
    (o.namespace !== undefined ? namespaces.has(o.namespace) : keepCluster(o.resource, o.name));
  const full = Object.fromEntries(
    Object.entries(inventory.full).map(([resource, items]) => [
      resource,
      (items as Registration[])
        .filter((item) =>
          item.metadata?.namespace !== undefined
            ? namespaces.has(item.metadata.namespace)
            : keepCluster(resource, item.metadata?.name ?? ''),
        )
        .map(withoutManagedFields),
    ]),
  ) as unknown as InventoryData['full'];
  const kept = (r: { resource: string; o: Registration }) =>
    keepCluster(r.resource, r.o.metadata?.name ?? '');
  const keptGroups = new Set(registrations.filter(kept).map((r) => r.o.spec?.group ?? ''));
  const dropped = new Set(
    registrations
      .filter((r) => !kept(r))
      .map((r) => r.o.spec?.group ?? '')
      .filter((g) => !keptGroups.has(g)),
  );
  const groupOfGv = (gv: string) => (gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '');
  const resourceGroup = (label: string) => {
    const type = label.slice(0, label.indexOf('/') < 0 ? label.length : label.indexOf('/'));
    return type.includes('.') ? type.slice(type.indexOf('.') + 1) : groupOfGv(label);
  };
  return {
    takenAt: inventory.takenAt,
    server: inventory.server,
    serverVersion: inventory.serverVersion,
    resources: inventory.resources.filter((r) => !dropped.has(r.group)),
    failedGroupVersions: inventory.failedGroupVersions.filter((f) => !dropped.has(groupOfGv(f.groupVersion))),
    objects: inventory.objects.filter(keep),
    full,
    coverage: inventory.coverage.filter(
      (g) => !dropped.has(resourceGroup(g.resource)) && !dropped.has(groupOfGv(g.resource)),
    ),
    ...(inventory.helmRecords
      ? { helmRecords: inventory.helmRecords.filter((r) => namespaces.has(r.storage.namespace)) }
      : {}),
    ...(inventory.undecodableHelmRecords
      ? {
          undecodableHelmRecords: inventory.undecodableHelmRecords.filter((r) => namespaces.has(r.namespace)),
        }
      : {}),
    ...(inventory.etcd
      ? {
          etcd: {
            ...inventory.etcd,
            prefixes: inventory.etcd.prefixes.filter((p) => (selection.etcdGroups ?? []).includes(p.group)),
          },
        }
      : {}),
    ...(inventory.heldBodies
      ? {
          heldBodies: inventory.heldBodies.filter((b) =>
            b.namespace !== undefined ? namespaces.has(b.namespace) : true,
          ),
        }
      : {}),
    stats: inventory.stats,
  };
}

/**
 * With RECORD_FIXTURES=1, writes `__tests__/fixtures/rules/<file>.json`: the cut snapshot and the
 * names the scenario generated. Otherwise does nothing.
 */
export function recordFixture(
  file: string,
  inventory: Inventory,
  fixture: Omit<RecordedFixture, 'inventory' | 'kept'> & { selection: RecordSelection },
): void {
  if (process.env.RECORD_FIXTURES !== '1') return;
  const { selection, ...rest } = fixture;
  const recorded: RecordedFixture = {
    ...rest,
    kept:
      'objects of the system namespaces and of the scenario namespaces, the scenario cluster-scoped objects, ' +
      'Nodes and local APIServices; no Events; no metadata.managedFields; discovery data of API groups that ' +
      'other tests registered is dropped',
    inventory: cutSnapshot(inventory, selection),
  };
  mkdirSync(recordedFixturesDir, { recursive: true });
  writeFileSync(join(recordedFixturesDir, `${file}.json`), JSON.stringify(recorded, null, 1) + '\n');
}

/**
 * A Node object that no kubelet serves (reference.md 0.3): no kwok annotation, so kwok leaves it
 * alone, and nobody posts its status or renews its Lease.
 */
export async function createDeadNode(api: ApiClient, name: string): Promise<void> {
  await createObject(api, '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
}

/** A pod bound to `nodeName` that tolerates not-ready/unreachable nodes (no taint eviction). */
export async function createBoundPod(
  api: ApiClient,
  namespace: string,
  name: string,
  nodeName: string,
  volumes: unknown[] = [],
): Promise<void> {
  await createObject(api, `/api/v1/namespaces/${namespace}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      nodeName,
      containers: [{ name: 'main', image: 'registry.invalid/x:1' }],
      volumes,
      tolerations: ['node.kubernetes.io/unreachable', 'node.kubernetes.io/not-ready'].map((key) => ({
        key,
        operator: 'Exists',
        effect: 'NoExecute',
      })),
    },
  });
}

/** Force-deletes a pod (grace period 0; 404 is fine): what no kubelet will do for it. */
export function forceDeletePod(api: ApiClient, namespace: string, name: string): Promise<void> {
  return deleteIfPresent(api, `/api/v1/namespaces/${namespace}/pods/${name}`, { gracePeriodSeconds: '0' });
}

/** PersistentVolume `name`: hostPath, 1Gi, RWO, reclaim Retain, no storage class (S12, S13). */
export async function createRetainVolume(api: ApiClient, name: string): Promise<void> {
  await createObject(api, '/api/v1/persistentvolumes', {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: '',
      hostPath: { path: `/tmp/${name}` },
    },
  });
}

/** Claim `<namespace>/data` on volume `pv`, waited for until kube-controller-manager binds it. */
export async function createBoundClaim(api: ApiClient, namespace: string, pv: string): Promise<void> {
  await createObject(api, `/api/v1/namespaces/${namespace}/persistentvolumeclaims`, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
    spec: {
      storageClassName: '',
      volumeName: pv,
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
    },
  });
  await waitForPhase(api, `/api/v1/namespaces/${namespace}/persistentvolumeclaims/data`, 'Bound');
}

/** Waits until the object at `path` has `status.phase` `phase`. */
export async function waitForPhase(api: ApiClient, path: string, phase: string): Promise<void> {
  await waitFor(
    async () => {
      const now = (await api.request<{ status?: { phase?: string } }>({ path })).status?.phase ?? '';
      return { done: now === phase, value: now };
    },
    { timeoutMs: 60_000, description: `${path} to be ${phase}` },
  );
}

/**
 * Waits until the namespace controller reports that pods of `namespace` never go away
 * (NamespaceDeletionContentFailure, reference.md 0.1) and checks its message.
 */
export async function waitForPodsRemaining(api: ApiClient, namespace: string): Promise<void> {
  const conditions = await waitForCondition(
    api,
    `/api/v1/namespaces/${namespace}`,
    'NamespaceDeletionContentFailure',
  );
  expect(conditions.find((c) => c.type === 'NamespaceDeletionContentFailure')?.message).toBe(
    `Failed to delete all resource types, 1 remaining: unexpected items still remain in namespace: ${namespace} for gvr: /v1, Resource=pods`,
  );
}

/**
 * S10's fault, built for real: deletes the namespace, waits until its finalizers hold it, then
 * PUTs /finalize with empty spec.finalizers (what kube-sweep itself never does) and waits until
 * the namespace is gone while its objects stay stored.
 */
export async function forceFinalizeNamespace(api: ApiClient, namespace: string): Promise<void> {
  await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` });
  await waitForCondition(api, `/api/v1/namespaces/${namespace}`, 'NamespaceFinalizersRemaining');
  const current = await api.request<{ spec: { finalizers?: string[] } }>({
    path: `/api/v1/namespaces/${namespace}`,
  });
  await api.request({
    method: 'PUT',
    path: `/api/v1/namespaces/${namespace}/finalize`,
    body: { ...current, spec: { ...current.spec, finalizers: [] } },
  });
  await waitGone(api, `/api/v1/namespaces/${namespace}`);
}

/** A StatefulSet of one replica with claim template `data` (1Gi, no storage class). */
export function statefulSet(name: string, release: string, retention?: { whenDeleted: string }) {
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': release };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, labels },
    spec: {
      replicas: 1,
      serviceName: name,
      selector: { matchLabels: labels },
      ...(retention ? { persistentVolumeClaimRetentionPolicy: retention } : {}),
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'db',
              image: 'registry.invalid/db:1',
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            storageClassName: '',
            resources: { requests: { storage: '1Gi' } },
          },
        },
      ],
    },
  };
}

/** The path of PersistentVolumeClaim `name` in `ns`. */
export const claimPath = (ns: string, name: string) =>
  `/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`;

/**
 * Waits (up to 60 s) until the StatefulSet controller has created claim `ns/name` (with
 * `owned`: and made its StatefulSet the claim's owner, as `whenDeleted: Delete` does).
 */
export async function waitForClaim(
  api: ApiClient,
  ns: string,
  name: string,
  options: { owned?: boolean } = {},
): Promise<void> {
  await waitFor(
    async () => {
      const claim = await getOrUndefined<{ metadata: { ownerReferences?: { kind: string }[] } }>(
        api,
        claimPath(ns, name),
      );
      const owned = claim?.metadata.ownerReferences?.some((o) => o.kind === 'StatefulSet') ?? false;
      return { done: claim !== undefined && (!options.owned || owned), value: name };
    },
    { timeoutMs: 60_000, description: `the StatefulSet controller to create claim ${ns}/${name}` },
  );
}

/**
 * Creates namespace `ns` with StatefulSet `kept` (no retention policy: its claim outlives it) and
 * StatefulSet `owned` (`whenDeleted: Delete`), one replica and claim template `data` each, and
 * waits until the controller has made `data-<kept>-0` and `data-<owned>-0`, the latter owned.
 */
export async function createKeptAndOwnedStatefulSets(
  api: ApiClient,
  ns: string,
  names: { kept: string; owned: string; release: string },
): Promise<void> {
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  const collection = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
  await createObject(api, collection, statefulSet(names.kept, names.release));
  await createObject(api, collection, statefulSet(names.owned, names.release, { whenDeleted: 'Delete' }));
  await waitForClaim(api, ns, `data-${names.kept}-0`);
  await waitForClaim(api, ns, `data-${names.owned}-0`, { owned: true });
}

/**
 * Creates namespace `ns` holding a ConfigMap `held` with the finalizer `cleanupFinalizer`, which
 * no controller removes: deleting the namespace leaves it Terminating until the test removes it.
 * @returns the ConfigMap's path (for `removeFinalizers`).
 */
export async function createNamespaceHeldByFinalizer(api: ApiClient, ns: string): Promise<string> {
  await createNamespace(api, ns);
  await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'held', finalizers: [cleanupFinalizer] },
  });
  return `/api/v1/namespaces/${ns}/configmaps/held`;
}
