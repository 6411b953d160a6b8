import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import type { HelmPort } from '../helm/helm-cli.js';
import { groupOf } from '../helm/manifest.js';
import { collectionPath } from '../inventory/list.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import { isProtectedNamespace } from '../plan/protected-namespaces.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import { systemClock, type Clock } from '../util/wait.js';
import { deleteNamespaces, type NamespaceOutcome } from './namespaces.js';
import type { ResourceIndex } from './resource-index.js';
import { waitUntilGone, type AwaitedObject, type Blocker } from './wait-gone.js';

/** Outcome of one `helm uninstall`. Durations in ms. */
export interface ReleaseOutcome {
  readonly release: string;
  readonly status: 'uninstalled' | 'failed';
  readonly helmStatusBefore: string;
  readonly durationMs: number;
  /** Helm's error (last lines of stderr) when it failed. */
  readonly message?: string;
}

/** Custom resources deleted before their CRD's release went. */
export interface CrdInstancesOutcome {
  readonly crd: string;
  readonly namespaces: readonly string[];
  /** Instances still there when the wait ended (with the finalizers that hold them). */
  readonly remaining: readonly Blocker[];
}

export interface StageResult {
  readonly index: number;
  readonly releases: readonly ReleaseOutcome[];
  readonly crdInstances: readonly CrdInstancesOutcome[];
  /** Objects of the stage's manifests still present when the wait ended. */
  readonly remaining: readonly Blocker[];
  /** Objects kept on purpose (annotation helm.sh/resource-policy: keep), not awaited. */
  readonly kept: readonly { apiVersion: string; kind: string; namespace?: string; name: string }[];
  /**
   * Manifest kinds the API no longer serves and whose group-version did not fail discovery:
   * their CRD went before the release that uses them (scenario S09), and their objects with it.
   */
  readonly unservedKinds: readonly string[];
  /** Manifest kinds whose group-version failed discovery: their objects could not be checked. */
  readonly unverifiableKinds: readonly string[];
  readonly durationMs: number;
}

/** Result of a teardown; `leftovers` when anything remains or failed. */
export interface TeardownResult {
  readonly stages: readonly StageResult[];
  readonly namespaces: readonly NamespaceOutcome[];
  readonly durationMs: number;
  /** True when the overall `timeout` ran out (later waits were cut short). */
  readonly timedOut: boolean;
}

export interface TeardownPorts {
  readonly api: ApiClient;
  readonly helm: HelmPort;
  readonly resources: ResourceIndex;
  readonly log: (line: string) => void;
  readonly group: <T>(title: string, fn: () => Promise<T>) => Promise<T>;
  readonly clock?: Clock;
}

export interface TeardownOptions {
  /** Group-versions ("metrics.k8s.io/v1beta1") whose discovery failed in the inventory. */
  readonly failedGroupVersions: ReadonlySet<string>;
  readonly timeoutMs: number;
  readonly stageTimeoutMs: number;
  readonly uninstallConcurrency: number;
}

const keepAnnotation = 'helm.sh/resource-policy';

function tail(text: string, lines = 3): string {
  return text.trim().split('\n').slice(-lines).join(' | ');
}

/**
 * Pure: the objects of a release's manifest to wait for, the kept ones, the kinds no longer
 * served, and the kinds whose group-version failed discovery (cannot be checked).
 */
export function objectsToAwait(
  release: ReleaseFacts,
  resources: ResourceIndex,
  failedGroupVersions: ReadonlySet<string>,
) {
  const awaited: AwaitedObject[] = [];
  const kept: StageResult['kept'][number][] = [];
  const unserved = new Set<string>();
  const unverifiable = new Set<string>();
  for (const o of release.objects) {
    const group = groupOf(o.apiVersion);
    const version = o.apiVersion.slice(group ? group.length + 1 : 0);
    const address = resources(group, o.kind, version);
    const namespace = address?.namespaced ? (o.namespace ?? release.release.namespace) : undefined;
    const ref = { apiVersion: o.apiVersion, kind: o.kind, ...(namespace ? { namespace } : {}), name: o.name };
    if (o.annotations[keepAnnotation] === 'keep') {
      kept.push(ref);
      continue;
    }
    if (!address) {
      const label = `${o.kind}.${group || 'core'}/${version}`;
      if (failedGroupVersions.has(o.apiVersion)) unverifiable.add(label);
      else unserved.add(label);
      continue;
    }
    awaited.push({ ...ref, address });
  }
  return { awaited, kept, unserved: [...unserved].sort(), unverifiable: [...unverifiable].sort() };
}

/**
 * Executes a teardown plan, stage by stage: deletes (deletecollection) the instances in scope
 * of the CRDs the stage's releases ship and waits for them while their controller still runs;
 * `helm uninstall`s the stage's releases, bounded in parallel; waits until every object of
 * their manifests is gone. A stage that times out is recorded (which object, which
 * finalizer) and the next stage still runs, so as much as possible is cleaned. Then the
 * scoped namespaces are deleted and awaited (namespaces.ts). Protected namespaces are never
 * touched; nothing outside the plan is deleted.
 */
export async function runTeardown(
  plan: TeardownPlan,
  options: TeardownOptions,
  ports: TeardownPorts,
): Promise<TeardownResult> {
  const clock = ports.clock ?? systemClock;
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const budget = () => Math.max(0, Math.min(options.stageTimeoutMs, deadline - clock.now()));
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const stages: StageResult[] = [];

  for (const stage of plan.stages) {
    const result = await ports.group(
      `Stage ${stage.index + 1}/${plan.stages.length}: ${stage.releases.join(', ')}`,
      async () => {
        const stageStart = clock.now();
        const crdInstances: CrdInstancesOutcome[] = [];
        for (const crd of stage.crdInstancesFirst) {
          if (!crd.namespaced) {
            ports.log(
              `CRD ${crd.name} is cluster-scoped: its instances are outside the namespace scope and are left to Helm`,
            );
            continue;
          }
          const address = ports.resources(crd.group, crd.kind, crd.versions[0]);
          if (!address) continue; // no longer served: nothing to delete
          const awaited: AwaitedObject[] = [];
          for (const ns of plan.scope.namespaces) {
            const path = collectionPath(address, ns);
            try {
              const list = await ports.api.request<{ items?: { metadata?: { name?: string } }[] }>({ path });
              for (const item of list.items ?? []) {
                awaited.push({
                  apiVersion: `${address.group}/${address.version}`,
                  kind: crd.kind,
                  namespace: ns,
                  name: item.metadata?.name ?? '',
                  address,
                });
              }
              if ((list.items ?? []).length > 0) await ports.api.request({ method: 'DELETE', path });
            } catch (error) {
              if (!(error instanceof KubernetesApiError && error.status === 404)) throw error;
            }
          }
          if (awaited.length === 0) continue;
          ports.log(
            `deleting ${awaited.length} ${crd.kind} objects (CRD ${crd.name}) while their controller still runs`,
          );
          const remaining = await waitUntilGone(ports.api, awaited, { timeoutMs: budget(), clock });
          for (const b of remaining)
            ports.log(
              `still there: ${b.kind} ${b.namespace}/${b.name} finalizers [${b.finalizers.join(', ')}]`,
            );
          crdInstances.push({ crd: crd.name, namespaces: plan.scope.namespaces, remaining });
        }

        const limit = pLimit(options.uninstallConcurrency);
        const releases = await Promise.all(
          stage.releases.map((key) =>
            limit(async (): Promise<ReleaseOutcome> => {
              const facts = byKey.get(key)!;
              const t0 = clock.now();
              const r = await ports.helm.uninstall(facts.release, { timeoutMs: Math.max(1000, budget()) });
              const durationMs = clock.now() - t0;
              if (r.exitCode === 0) {
                ports.log(`uninstalled ${key} (was ${facts.release.status}) in ${durationMs} ms`);
                return {
                  release: key,
                  status: 'uninstalled',
                  helmStatusBefore: facts.release.status,
                  durationMs,
                };
              }
              const message = tail(r.stderr || r.stdout);
              ports.log(`helm uninstall ${key} failed: ${message}`);
              return {
                release: key,
                status: 'failed',
                helmStatusBefore: facts.release.status,
                durationMs,
                message,
              };
            }),
          ),
        );

        const awaited: AwaitedObject[] = [];
        const kept: StageResult['kept'][number][] = [];
        const unserved = new Set<string>();
        const unverifiable = new Set<string>();
        for (const key of stage.releases) {
          const o = objectsToAwait(byKey.get(key)!, ports.resources, options.failedGroupVersions);
          awaited.push(...o.awaited);
          kept.push(...o.kept);
          o.unserved.forEach((k) => unserved.add(k));
          o.unverifiable.forEach((k) => unverifiable.add(k));
        }
        for (const k of unserved)
          ports.log(`${k} is no longer served (its CRD went before this stage); not awaited`);
        for (const k of unverifiable) ports.log(`${k} cannot be checked: its group-version failed discovery`);
        const remaining = await waitUntilGone(ports.api, awaited, {
          timeoutMs: budget(),
          clock,
          onProgress: (left) =>
            left > 0 && ports.log(`waiting for ${left} of ${awaited.length} objects to be gone`),
        });
        for (const b of remaining) {
          ports.log(
            `still there after the stage: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}` +
              (b.finalizers.length ? ` finalizers [${b.finalizers.join(', ')}]` : '') +
              (b.deletionTimestamp ? ` deleting since ${b.deletionTimestamp}` : ' (not being deleted)'),
          );
        }
        return {
          index: stage.index,
          releases,
          crdInstances,
          remaining,
          kept,
          unservedKinds: [...unserved].sort(),
          unverifiableKinds: [...unverifiable].sort(),
          durationMs: clock.now() - stageStart,
        };
      },
    );
    stages.push(result);
  }

  const toDelete = plan.namespacesToDelete.filter((n) => !isProtectedNamespace(n));
  const namespaces =
    toDelete.length === 0
      ? []
      : await ports.group(`Deleting namespaces: ${toDelete.join(', ')}`, () =>
          deleteNamespaces(ports.api, toDelete, { timeoutMs: Math.max(1, budget()), clock, log: ports.log }),
        );
  return { stages, namespaces, durationMs: clock.now() - started, timedOut: clock.now() >= deadline };
}
