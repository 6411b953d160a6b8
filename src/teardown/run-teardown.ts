import { groupOf } from '../cluster/api-version.js';
import pLimit from 'p-limit';
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { describeRefusal, refusalOf, type RefusedRequest } from '../cluster/refusal.js';
import type { HelmPort } from '../helm/helm-cli.js';
import { keptByHelm, parseManifest } from '../helm/manifest.js';
import { collectionPath } from '../inventory/list.js';
import type { PlannedStage, TeardownPlan } from '../plan/build-plan.js';
import {
  isProtected,
  nameProtectionOnly,
  protectionReason,
  type NamespaceProtection,
} from '../plan/protected-namespaces.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import { inFlight, type InFlight } from '../util/in-flight.js';
import { systemClock, type Clock } from '../util/wait.js';
import {
  awaitNamespacesGone,
  requestNamespaceDeletion,
  type NamespaceDeletion,
  type NamespaceOutcome,
} from './namespaces.js';
import { deleteNamespaceContent } from './namespace-content.js';
import { planNamespaceRemovals, uninstallBatches, type NamespaceRemoval } from './remove-with-namespace.js';
import type { KindAddress, ResourceIndex } from './resource-index.js';
import { waitUntilGone, type AwaitedObject, type Blocker } from './wait-gone.js';

/** Outcome of one `helm uninstall`. Durations in ms. */
export interface ReleaseOutcome {
  readonly release: string;
  /**
   * `skipped`: not uninstalled because custom resources of a CRD it ships are still there
   * (uninstalling would take their controller away and strand their finalizers).
   */
  readonly status: 'uninstalled' | 'failed' | 'skipped';
  /**
   * `helm`: by `helm uninstall`. `namespace`: without Helm, as `removalWithNamespaces` allows
   * (no delete hooks; its record and namespaced objects go with namespaces this teardown
   * deletes, its other objects deleted by kube-sweep in Helm's uninstall order).
   */
  readonly method: 'helm' | 'namespace';
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
  /** Requests that failed while deleting or waiting (e.g. 403): what they could not check. */
  readonly errors: readonly string[];
  /** When the stage started and ended (RFC 3339, ms precision); its budget runs from `startedAt`. */
  readonly startedAt: string;
  readonly endedAt: string;
  readonly durationMs: number;
  /**
   * Where the stage's time went, in ms: deleting and awaiting custom resources first, the
   * removal (`helm uninstall` processes, deletes of objects outside deleted namespaces, and
   * deleting and emptying the namespaces whose last stage this is), and the wait for the
   * manifests' objects.
   */
  readonly stepsMs: { readonly crdInstances: number; readonly uninstall: number; readonly wait: number };
}

/**
 * An object a Helm hook made that is still there, with the release whose hook made it: Helm
 * sets no release annotation on hook objects, so only the teardown, which read the release's
 * stored hook manifests, can name it.
 */
export interface HookLeftover extends Blocker {
  /** The release (`<namespace>/<name>`) whose stored hook manifest holds the object. */
  readonly release: string;
}

/** Result of a teardown; `leftovers` when anything remains or failed. */
export interface TeardownResult {
  readonly stages: readonly StageResult[];
  readonly namespaces: readonly NamespaceOutcome[];
  /**
   * Objects that Helm hooks of the torn-down releases created and nobody deleted (a hook
   * without a delete policy, e.g. a post-install ClusterRole): Helm never removes them. Looked
   * for right after each release is removed, before its namespaces may be deleted (a
   * namespaced one then goes with its namespace: report.ts `goneWithNamespace`), and after the
   * stages for the rest.
   */
  readonly hookLeftovers: readonly HookLeftover[];
  /** Checks after the stages that failed (e.g. looking for the hooks' objects): not verified. */
  readonly errors: readonly string[];
  /**
   * Requests of kube-sweep's own that the API server refused (RBAC, admission, quota), in the
   * order they were answered: a namespace's DELETE (that namespace is `refused`), a release's
   * object deleted without Helm (that release `failed`), a namespace's deletecollection (left to
   * the namespace controller). The teardown went on after each. Absent in reports written
   * before it existed.
   */
  readonly refusals?: readonly RefusedRequest[];
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
  /**
   * The namespaced collections (that serve deletecollection) in which the inventory saw
   * objects of a namespace (`contentCollections`): emptied as soon as the namespace's
   * deletion is accepted. Absent: left to the namespace controller.
   */
  readonly namespaceContent?: (namespace: string) => readonly KindAddress[];
  /**
   * Tracks every `helm uninstall` the teardown starts (util/in-flight.ts). `runTeardown` settles
   * it before it returns or throws; pass one to also await them from outside (a signal handler
   * that must not remove the kubeconfig while helm runs). Default: a new one.
   */
  readonly helmProcesses?: InFlight;
  /** Told each release's outcome as soon as it has one (a cancelled run reports what was removed). */
  readonly onReleaseDone?: (outcome: ReleaseOutcome) => void;
}

export interface TeardownOptions {
  /** Group-versions ("metrics.k8s.io/v1beta1") whose discovery failed in the inventory. */
  readonly failedGroupVersions: ReadonlySet<string>;
  /** Budget of the whole teardown in ms. */
  readonly timeoutMs: number;
  /**
   * Budget of each stage in ms, from the stage's start (every wait in it shares it), and of the
   * namespace wait; never past the overall deadline.
   */
  readonly stageTimeoutMs: number;
  readonly uninstallConcurrency: number;
  /**
   * `auto`: a release that `removalWithNamespaces` allows is removed with its namespaces,
   * the others by `helm uninstall`; `helm`: every release by `helm uninstall`.
   */
  readonly uninstallMode: 'auto' | 'helm';
}

function tail(text: string, lines = 3): string {
  return text.trim().split('\n').slice(-lines).join(' | ');
}

/** Pure: the objects that a release's hooks create (from the stored hook manifests). */
export function hookObjects(release: ReleaseFacts, resources: ResourceIndex): AwaitedObject[] {
  const out: AwaitedObject[] = [];
  for (const hook of release.release.hooks) {
    for (const o of parseManifest(hook.manifest, `release ${release.key} hook ${hook.path}`)) {
      const group = groupOf(o.apiVersion);
      const address = resources(group, o.kind, o.apiVersion.slice(group ? group.length + 1 : 0));
      if (!address) continue;
      const namespace = address.namespaced ? (o.namespace ?? release.release.namespace) : undefined;
      out.push({
        apiVersion: o.apiVersion,
        kind: o.kind,
        ...(namespace ? { namespace } : {}),
        name: o.name,
        address,
      });
    }
  }
  return out;
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
    if (keptByHelm(o.annotations)) {
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

/** Pure: the namespaces a release has its record, a manifest object or a hook object in. */
export function namespacesOf(release: ReleaseFacts, resources: ResourceIndex): Set<string> {
  const spaces = new Set([release.release.namespace]);
  for (const o of release.objects) if (o.namespace) spaces.add(o.namespace);
  for (const o of hookObjects(release, resources)) if (o.namespace) spaces.add(o.namespace);
  return spaces;
}

/**
 * Pure: for each namespace to delete, the index of the last stage whose releases touch it
 * (`namespacesOf`), and those releases of that stage. Once they are uninstalled, nothing in
 * the namespace waits on an order any more, so it can be deleted while the rest runs. A
 * namespace no release touches gets the last stage and no releases (deleted once every
 * release is gone, as something of a release may still run there: a webhook's backend).
 */
export function lastStageTouching(
  plan: TeardownPlan,
  resources: ResourceIndex,
): Map<string, { stage: number; releases: string[] }> {
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const last = new Map<string, { stage: number; releases: string[] }>(
    plan.namespacesToDelete.map((n) => [n, { stage: plan.stages.length - 1, releases: [] }]),
  );
  for (const stage of plan.stages) {
    for (const key of stage.releases) {
      for (const ns of namespacesOf(byKey.get(key)!, resources)) {
        const entry = last.get(ns);
        if (!entry) continue;
        if (entry.releases.length === 0 || entry.stage < stage.index)
          last.set(ns, { stage: stage.index, releases: [key] });
        else entry.releases.push(key);
      }
    }
  }
  return last;
}

/** What the steps of one stage share: the API and Helm ports, the clock and the time left. */
interface StageContext {
  readonly plan: TeardownPlan;
  readonly options: TeardownOptions;
  readonly ports: TeardownPorts;
  readonly clock: Clock;
  /** ms this stage may still take: to the stage's start + stage-timeout, or the overall deadline if sooner. */
  readonly budget: () => number;
  readonly byKey: ReadonlyMap<string, ReleaseFacts>;
  /** Requests that failed; the verdict cannot be clean when any did. */
  readonly errors: string[];
  /** Requests the API server refused, the whole teardown's (shared by every stage). */
  readonly refusals: RefusedRequest[];
}

const describeError = (error: unknown) =>
  error instanceof KubernetesApiError ? error.message : ((error as Error)?.message ?? String(error));

/** A failure that means the cluster is gone (unreachable, TLS): the run stops; others are recorded. */
const isFatal = (error: unknown) => (error as Error)?.name === 'ClusterAccessError';

/**
 * Waits within the stage budget until `awaited` are gone.
 * @returns what is still there, or undefined when the wait failed (recorded in `c.errors` as
 *   "waiting for <what> to be gone: …").
 * @throws ClusterAccessError when the cluster cannot be reached.
 */
async function awaitGone(
  awaited: readonly AwaitedObject[],
  what: string,
  c: StageContext,
): Promise<Blocker[] | undefined> {
  try {
    return await waitUntilGone(c.ports.api, awaited, {
      timeoutMs: c.budget(),
      clock: c.clock,
      onWatchFailed: c.ports.log,
    });
  } catch (error) {
    if (isFatal(error)) throw error;
    c.errors.push(`waiting for ${what} to be gone: ${describeError(error)}`);
    return undefined;
  }
}

/**
 * Step 1a of a stage: the GitOps applications of `stage.gitopsWaves` (plan/gitops-order.ts), one
 * wave after another, each deleted by name (propagationPolicy Background) and awaited while their
 * controller runs: leaf applications first, so that an app of apps never deletes its children
 * while they still wait on its controller. A wave that does not finish within the stage budget
 * ends the waves (what is left goes with step 1b, which reports it); a failed request is an error.
 */
async function deleteGitopsWaves(stage: PlannedStage, c: StageContext): Promise<void> {
  for (const [index, wave] of stage.gitopsWaves.entries()) {
    const awaited: AwaitedObject[] = [];
    for (const app of wave) {
      const crd = stage.crdInstancesFirst.find((x) => x.group === app.group && x.kind === app.kind);
      const address = crd && c.ports.resources(crd.group, crd.kind, crd.versions[0]);
      if (!address) continue;
      const path = `${collectionPath(address, app.namespace)}/${encodeURIComponent(app.name)}`;
      try {
        await c.ports.api.request({ method: 'DELETE', path, query: { propagationPolicy: 'Background' } });
        awaited.push({
          apiVersion: `${address.group}/${address.version}`,
          kind: app.kind,
          namespace: app.namespace,
          name: app.name,
          address,
        });
      } catch (error) {
        if (error instanceof KubernetesApiError && error.status === 404) continue;
        if (isFatal(error)) throw error;
        c.errors.push(`deleting ${app.kind} ${app.namespace}/${app.name}: ${describeError(error)}`);
      }
    }
    c.ports.log(
      `GitOps applications, wave ${index + 1} of ${stage.gitopsWaves.length} (leaf applications first): deleting ` +
        wave.map((a) => `${a.kind} ${a.namespace}/${a.name}`).join(', '),
    );
    const remaining = await awaitGone(awaited, `GitOps applications of wave ${index + 1}`, c);
    if (remaining === undefined || remaining.length > 0) return;
  }
}

/**
 * Step 1 of a stage: in the scoped namespaces, delete (deletecollection) the instances of the
 * CRDs the stage's releases ship, and wait for them while their controller still runs. GitOps
 * applications go first, wave by wave (`deleteGitopsWaves`).
 * @returns the outcome per CRD, and the CRDs whose instances could not be checked.
 */
async function deleteCustomResourcesFirst(stage: PlannedStage, c: StageContext) {
  const crdInstances: CrdInstancesOutcome[] = [];
  const unchecked = new Set<string>();
  await deleteGitopsWaves(stage, c);
  for (const crd of stage.crdInstancesFirst) {
    if (!crd.namespaced) {
      c.ports.log(
        `CRD ${crd.name} is cluster-scoped: its instances are outside the namespace scope and are left to Helm`,
      );
      continue;
    }
    const address = c.ports.resources(crd.group, crd.kind, crd.versions[0]);
    if (!address) continue; // no longer served: nothing to delete
    const awaited: AwaitedObject[] = [];
    for (const ns of c.plan.scope.namespaces) {
      const path = collectionPath(address, ns);
      try {
        const list = await c.ports.api.request<{ items?: { metadata?: { name?: string } }[] }>({ path });
        for (const item of list.items ?? []) {
          const name = item.metadata?.name ?? '';
          awaited.push({
            apiVersion: `${address.group}/${address.version}`,
            kind: crd.kind,
            namespace: ns,
            name,
            address,
          });
        }
        if ((list.items ?? []).length > 0) await c.ports.api.request({ method: 'DELETE', path });
      } catch (error) {
        if (error instanceof KubernetesApiError && error.status === 404) continue;
        if (isFatal(error)) throw error;
        c.errors.push(`deleting ${crd.kind} objects in ${ns}: ${describeError(error)}`);
        unchecked.add(crd.name);
      }
    }
    if (awaited.length === 0) continue;
    c.ports.log(
      `deleting ${awaited.length} ${crd.kind} objects (CRD ${crd.name}) while their controller still runs`,
    );
    const waited = await awaitGone(awaited, `${crd.kind} objects`, c);
    if (waited === undefined) unchecked.add(crd.name);
    const remaining = waited ?? [];
    for (const b of remaining)
      c.ports.log(`still there: ${b.kind} ${b.namespace}/${b.name} finalizers [${b.finalizers.join(', ')}]`);
    crdInstances.push({ crd: crd.name, namespaces: c.plan.scope.namespaces, remaining });
  }
  return { crdInstances, unchecked };
}

/**
 * Deletes the objects of a release that its namespaces' deletion does not reach (cluster-scoped
 * ones, namespaced ones elsewhere), one kind after another in Helm's uninstall order, the
 * objects of a kind at once; propagationPolicy Background, as `helm uninstall` deletes.
 * An object in a protected namespace (`plan.scope.protection`) stops it before any request:
 * `guarded`, nothing deleted (removalWithNamespaces never passes one; this is the last check).
 * Exported for its unit test; the teardown calls it through removeWithNamespaces.
 * @returns the first failure other than 404 (`guarded` first, then a refusal: `refused`, with
 *   the server's answer), or undefined when every object was deleted.
 */
export async function deleteDirectObjects(
  objects: readonly AwaitedObject[],
  release: ReleaseFacts,
  c: Pick<StageContext, 'plan' | 'ports'>,
): Promise<{ line: string; refused?: RefusedRequest; guarded?: true } | undefined> {
  // Defence in depth: removalWithNamespaces already leaves such a release to Helm, and the plan
  // refuses it; should an object in a protected namespace still get here, nothing is deleted.
  const protection = c.plan.scope.protection ?? nameProtectionOnly;
  const guarded = objects.find((o) => o.namespace && isProtected(o.namespace, protection));
  if (guarded?.namespace) {
    const why = protectionReason(guarded.namespace, protection);
    return {
      line: `not deleting ${guarded.kind} ${guarded.namespace}/${guarded.name}: namespace ${guarded.namespace} is protected (${why})`,
      guarded: true,
    };
  }
  for (const batch of uninstallBatches(objects)) {
    const failures = await Promise.all(
      batch.map(async (o) => {
        const path = `${collectionPath(o.address, o.namespace)}/${encodeURIComponent(o.name)}`;
        try {
          await c.ports.api.request({ method: 'DELETE', path, query: { propagationPolicy: 'Background' } });
          return undefined;
        } catch (error) {
          if (error instanceof KubernetesApiError && error.status === 404) return undefined;
          if (isFatal(error)) throw error;
          const object = {
            apiVersion: o.apiVersion,
            kind: o.kind,
            ...(o.namespace ? { namespace: o.namespace } : {}),
            name: o.name,
          };
          const refused = refusalOf(error, {
            step: 'delete-object',
            object,
            environmentNamespace: release.release.namespace,
          });
          const what = `deleting ${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
          return refused
            ? { line: `${what}: ${describeRefusal(refused)}`, refused }
            : { line: `${what}: ${describeError(error)}` };
        }
      }),
    );
    const failed = failures.find((f) => f?.refused) ?? failures.find((f) => f !== undefined);
    if (failed) return failed;
  }
  return undefined;
}

/**
 * Removes a release without Helm (`removalWithNamespaces`): its objects outside the deleted
 * namespaces first, then it counts as done, so its namespaces are deleted (and with them its
 * record and namespaced objects) once the other releases there are done. When a direct delete
 * fails, `helm uninstall` takes over (it deletes what is left and reports what it cannot);
 * when the API server refuses it (RBAC, admission), the release is `failed` with the server's
 * answer and kept (Helm, with the same identity, would be refused too), and the refusal is
 * recorded. An object in a protected namespace (`deleteDirectObjects`: guarded) fails the
 * release the same way, with an error, and nothing of it is deleted.
 */
async function removeWithNamespaces(
  facts: ReleaseFacts,
  removal: Extract<NamespaceRemoval, { ok: true }>,
  c: StageContext,
): Promise<ReleaseOutcome | undefined> {
  const t0 = c.clock.now();
  const failed = await deleteDirectObjects(removal.direct, facts, c);
  if (failed?.guarded) c.errors.push(`${facts.key}: ${failed.line}`);
  if (failed?.refused || failed?.guarded) {
    if (failed.refused) c.refusals.push(failed.refused);
    const message = `not removed: ${failed.line}; its namespace is kept`;
    c.ports.log(`${facts.key}: ${message}`);
    const before = facts.release.status;
    return {
      release: facts.key,
      status: 'failed',
      method: 'namespace',
      helmStatusBefore: before,
      durationMs: c.clock.now() - t0,
      message,
    };
  }
  if (failed) {
    c.ports.log(`${facts.key}: ${failed.line}; helm uninstall takes over`);
    return undefined;
  }
  const durationMs = c.clock.now() - t0;
  c.ports.log(
    `removing ${facts.key} (was ${facts.release.status}) with namespace ${removal.namespaces.join(', ')}: no delete hooks` +
      (removal.direct.length > 0 ? `; deleted its ${removal.direct.length} object(s) outside them` : ''),
  );
  return {
    release: facts.key,
    status: 'uninstalled',
    method: 'namespace',
    helmStatusBefore: facts.release.status,
    durationMs,
  };
}

/**
 * Pure: why a release must stay (its CRDs' instances are still there or unchecked after step 1
 * of its stage), or undefined. The one decision of a skip: the real run reads it from the wait's
 * outcome, the dry run (dry-run.ts) from the snapshot's forecast of that outcome.
 */
export function strandedReason(
  facts: ReleaseFacts,
  first: { crdInstances: readonly CrdInstancesOutcome[]; unchecked: ReadonlySet<string> },
): string | undefined {
  const stranded = first.crdInstances.filter(
    (x) => x.remaining.length > 0 && facts.crds.some((crd) => crd.name === x.crd),
  );
  if (stranded.length > 0)
    return `not uninstalled: ${stranded.map((x) => `${x.remaining.length} ${x.crd} object(s)`).join(', ')} still there; its controller must stay to finalize them`;
  const unchecked = facts.crds.filter((crd) => first.unchecked.has(crd.name)).map((crd) => crd.name);
  if (unchecked.length > 0)
    return `not uninstalled: could not confirm that the ${unchecked.join(', ')} objects are gone`;
  return undefined;
}

/** `helm uninstall` of one release within the stage's budget. */
async function helmUninstall(facts: ReleaseFacts, c: StageContext): Promise<ReleaseOutcome> {
  const before = facts.release.status;
  const t0 = c.clock.now();
  const r = await c.ports.helm.uninstall(facts.release, { timeoutMs: Math.max(1000, c.budget()) });
  const durationMs = c.clock.now() - t0;
  const outcome = { release: facts.key, method: 'helm', helmStatusBefore: before, durationMs } as const;
  if (r.exitCode === 0) {
    c.ports.log(`uninstalled ${facts.key} (was ${before}) in ${durationMs} ms`);
    return { ...outcome, status: 'uninstalled' };
  }
  const message = tail(r.stderr || r.stdout) || `helm exited with code ${r.exitCode} and printed nothing`;
  c.ports.log(`helm uninstall ${facts.key} failed: ${message}`);
  return { ...outcome, status: 'failed', message };
}

/**
 * Step 2: remove each release of the stage: with its namespaces where `removals` allows it
 * (at once: a few requests each), else by `helm uninstall` (at most `uninstallConcurrency`
 * processes at once). A release whose CRDs still have instances (or could not be checked) is
 * skipped: removing it would take away the controller that must finalize them.
 */
async function uninstallStage(
  stage: PlannedStage,
  c: StageContext,
  first: { crdInstances: readonly CrdInstancesOutcome[]; unchecked: ReadonlySet<string> },
  removals: ReadonlyMap<string, NamespaceRemoval>,
  onDone: (outcome: ReleaseOutcome) => Promise<void>,
): Promise<ReleaseOutcome[]> {
  const limit = pLimit(c.options.uninstallConcurrency);
  const uninstallOne = async (key: string): Promise<ReleaseOutcome> => {
    const facts = c.byKey.get(key)!;
    const message = strandedReason(facts, first);
    if (message) {
      c.ports.log(`${key}: ${message}`);
      const before = facts.release.status;
      return {
        release: key,
        status: 'skipped',
        method: 'helm',
        helmStatusBefore: before,
        durationMs: 0,
        message,
      };
    }
    const removal = removals.get(key);
    const removed = removal?.ok ? await removeWithNamespaces(facts, removal, c) : undefined;
    return removed ?? limit(() => helmUninstall(facts, c));
  };
  // Every removal of the stage ends (its helm process with it) before the stage does, even when
  // one of them throws (the cluster stopped answering): then the first such error is rethrown.
  const settled = await Promise.allSettled(
    stage.releases.map(async (key) => {
      const outcome = await uninstallOne(key);
      await onDone(outcome);
      return outcome;
    }),
  );
  const thrown = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (thrown) throw thrown.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<ReleaseOutcome>).value);
}

/** Step 3: wait until every object of the stage's manifests is gone; name what is left. */
async function awaitStageObjects(stage: PlannedStage, c: StageContext, releases: readonly ReleaseOutcome[]) {
  // Objects of a release that was not uninstalled will not go: look once, do not wait for them.
  const notGoing = new Set(releases.filter((r) => r.status !== 'uninstalled').map((r) => r.release));
  const awaited: AwaitedObject[] = [];
  const checkedOnce: AwaitedObject[] = [];
  const kept: StageResult['kept'][number][] = [];
  const unserved = new Set<string>();
  const unverifiable = new Set<string>();
  for (const key of stage.releases) {
    const o = objectsToAwait(c.byKey.get(key)!, c.ports.resources, c.options.failedGroupVersions);
    (notGoing.has(key) ? checkedOnce : awaited).push(...o.awaited);
    kept.push(...o.kept);
    o.unserved.forEach((k) => unserved.add(k));
    o.unverifiable.forEach((k) => unverifiable.add(k));
  }
  for (const k of unserved)
    c.ports.log(`${k} is no longer served (its CRD went before this stage); not awaited`);
  for (const k of unverifiable) c.ports.log(`${k} cannot be checked: its group-version failed discovery`);
  let remaining: Blocker[] = [];
  // A progress line when the count changes, else every 10 s: long waits stay readable.
  let lastLeft = -1;
  let lastLogged = 0;
  try {
    remaining = await waitUntilGone(c.ports.api, awaited, {
      timeoutMs: c.budget(),
      clock: c.clock,
      onWatchFailed: c.ports.log,
      onProgress: (left) => {
        const now = c.clock.now();
        if (left === 0 || (left === lastLeft && now - lastLogged < 10_000)) return;
        lastLeft = left;
        lastLogged = now;
        c.ports.log(`waiting for ${left} of ${awaited.length} objects to be gone`);
      },
    });
    if (awaited.length > 0 && remaining.length === 0)
      c.ports.log(`all ${awaited.length} objects of the stage are gone`);
    remaining = [
      ...remaining,
      ...(await waitUntilGone(c.ports.api, checkedOnce, { timeoutMs: 0, clock: c.clock })),
    ];
  } catch (error) {
    if (isFatal(error)) throw error;
    c.errors.push(`waiting for the stage's objects to be gone: ${describeError(error)}`);
  }
  for (const b of remaining) {
    c.ports.log(
      `still there after the stage: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}` +
        (b.finalizers.length ? ` finalizers [${b.finalizers.join(', ')}]` : '') +
        (b.deletionTimestamp ? ` deleting since ${b.deletionTimestamp}` : ' (not being deleted)'),
    );
  }
  return {
    remaining,
    kept,
    unservedKinds: [...unserved].sort(),
    unverifiableKinds: [...unverifiable].sort(),
  };
}

/**
 * The objects that the releases' Helm hooks created and that are still there (Helm never
 * deletes a hook object without a delete policy), each with the release whose hook made it
 * (the first, should two releases' hooks name the same object). A request that fails is added
 * to `errors`.
 * @throws ClusterAccessError when the cluster stops answering
 */
async function findHookLeftovers(
  releases: readonly ReleaseFacts[],
  ports: TeardownPorts,
  clock: Clock,
  errors: string[],
): Promise<HookLeftover[]> {
  const releaseOf = new Map<string, string>();
  const hooks = releases.flatMap((r) =>
    hookObjects(r, ports.resources).map((o) => {
      if (!releaseOf.has(hookId(o))) releaseOf.set(hookId(o), r.key);
      return o;
    }),
  );
  if (hooks.length === 0) return [];
  try {
    const left = await waitUntilGone(ports.api, hooks, { timeoutMs: 0, clock });
    return left.map((b) => {
      const release = releaseOf.get(hookId(b)) ?? '';
      ports.log(
        `left by a Helm hook of ${release}: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}`,
      );
      return { ...b, release };
    });
  } catch (error) {
    if ((error as Error)?.name === 'ClusterAccessError') throw error;
    const message = `checking for objects left by Helm hooks: ${describeError(error)}`;
    ports.log(`could not check: ${message}`);
    errors.push(message);
    return [];
  }
}

/** Pure: one object's identity among hook objects (apiVersion, kind, namespace, name). */
const hookId = (b: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
  `${b.apiVersion}/${b.kind}/${b.namespace ?? ''}/${b.name}`;

/**
 * Empties the namespaces of `deletion` whose DELETE was accepted (`deleteNamespaceContent`); a
 * refused or absent one is left alone, and so is a protected one (`protection`). Refused
 * deletecollections are added to `refusals`.
 */
async function emptyAccepted(
  deletion: NamespaceDeletion,
  ports: TeardownPorts,
  refusals: RefusedRequest[],
  protection: NamespaceProtection,
) {
  if (!ports.namespaceContent) return;
  const content = new Map(
    deletion.names
      .filter((n) => !deletion.absent.has(n) && !deletion.refused.has(n))
      .map((n) => [n, ports.namespaceContent!(n)] as const),
  );
  const emptied = await deleteNamespaceContent(ports.api, content, protection);
  for (const failure of emptied.failures) ports.log(`left to the namespace controller: ${failure}`);
  refusals.push(...emptied.refusals);
}

/**
 * Deletes each namespace to delete as soon as nothing in it waits on the rest of the teardown
 * (`lastStageTouching`), and empties it at once (`deleteNamespaceContent`). A namespace whose
 * release was not uninstalled is kept: deleting it would lose Helm's record (and leave the
 * release's cluster-scoped objects with no way to finish). A namespace whose deletion the API
 * server refuses is recorded in `refusals` and never emptied; so is a refused deletecollection.
 */
function namespaceScheduler(
  plan: TeardownPlan,
  ports: TeardownPorts,
  clock: Clock,
  refusals: RefusedRequest[],
) {
  const freeAfter = lastStageTouching(plan, ports.resources);
  const deletions: NamespaceDeletion[] = [];
  const requested = new Set<string>();
  const done = new Set<string>(); // releases with an outcome
  const keepFor = new Map<string, string>();
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const hookLeftovers: HookLeftover[] = [];
  const hookErrors: string[] = [];
  const protection = plan.scope.protection ?? nameProtectionOnly;
  const guarded = (n: string) => isProtected(n, protection);
  const refusedNamespaces = new Map<string, RefusedRequest>();
  /**
   * Deletes the namespaces whose last stage is `index` once that stage's releases in them
   * are done; `all`: the stage's uninstalls are over, so namespaces no release touches go too.
   */
  const deleteFree = async (index: number, all: boolean) => {
    const free = plan.namespacesToDelete.filter((n) => {
      const f = freeAfter.get(n)!;
      return (
        f.stage === index &&
        (f.releases.length > 0 ? f.releases.every((r) => done.has(r)) : all) &&
        !requested.has(n) &&
        !guarded(n) &&
        !keepFor.has(n)
      );
    });
    if (free.length === 0) return;
    free.forEach((n) => requested.add(n));
    if (!all || index < plan.stages.length - 1)
      ports.log(`nothing in ${free.join(', ')} waits on the rest of the teardown: deleting now`);
    const deletion = await requestNamespaceDeletion(ports.api, free, { clock, log: ports.log });
    deletions.push(deletion);
    for (const [n, refusal] of deletion.refused) {
      refusedNamespaces.set(n, refusal);
      refusals.push(refusal);
    }
    await emptyAccepted(deletion, ports, refusals, protection);
  };
  return {
    deletions,
    keepFor,
    deleteFree,
    /** Hook objects found before their namespaces were deleted (`onReleaseDone`). */
    hookLeftovers,
    hookErrors,
    onReleaseDone: (index: number) => async (r: ReleaseOutcome) => {
      ports.onReleaseDone?.(r);
      // Hook objects in a namespace are looked for before it may be deleted: afterwards the
      // namespace deletion hides that Helm left them.
      const release = byKey.get(r.release)!;
      if (hookObjects(release, ports.resources).some((o) => o.namespace))
        hookLeftovers.push(...(await findHookLeftovers([release], ports, clock, hookErrors)));
      done.add(r.release);
      if (r.status !== 'uninstalled') keepFor.set(byKey.get(r.release)!.release.namespace, r.release);
      await deleteFree(index, false);
    },
    /** Namespaces that stage `index`'s end may delete, with the stage's releases touching each. */
    candidates: (index: number) => {
      const touching = new Map<string, readonly string[]>();
      for (const n of plan.namespacesToDelete) {
        const f = freeAfter.get(n)!;
        if (f.stage === index && !guarded(n) && !keepFor.has(n)) touching.set(n, f.releases);
      }
      return touching;
    },
    /** Whether a namespace's deletion was requested. */
    requested: (n: string) => requested.has(n),
    /** The API server's refusal of a namespace's deletion, if it refused it. */
    refused: (n: string) => refusedNamespaces.get(n),
  };
}

/**
 * A release removed with its namespaces whose namespace was then kept (a release beside it
 * failed to uninstall): not removed after all, so it is reported as failed.
 */
function keptNamespaceOutcome(
  outcome: ReleaseOutcome,
  removal: NamespaceRemoval | undefined,
  namespaces: ReturnType<typeof namespaceScheduler>,
): ReleaseOutcome {
  if (outcome.method !== 'namespace' || outcome.status !== 'uninstalled' || !removal?.ok) return outcome;
  const refused = removal.namespaces.filter((n) => namespaces.refused(n));
  if (refused.length > 0) {
    const why = refused.map(
      (n) => `the deletion of namespace ${n} was ${describeRefusal(namespaces.refused(n)!)}`,
    );
    return { ...outcome, status: 'failed', message: `not removed: ${why.join('; ')}` };
  }
  const kept = removal.namespaces.filter((n) => !namespaces.requested(n));
  if (kept.length === 0) return outcome;
  const because = kept.map((n) => namespaces.keepFor.get(n)).filter(Boolean);
  const direct = removal.direct.length
    ? `; its ${removal.direct.length} object(s) outside it were deleted (${removal.direct
        .slice(0, 3)
        .map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`)
        .join(', ')}${removal.direct.length > 3 ? ', …' : ''})`
    : '';
  const message = `not removed: namespace ${kept.join(', ')} was kept (release ${because.join(', ')} was not uninstalled)${direct}`;
  return { ...outcome, status: 'failed', message };
}

/** Runs one stage: custom resources first (step 1), removal (step 2), the wait (step 3). */
async function runStage(
  stage: PlannedStage,
  c: StageContext,
  namespaces: ReturnType<typeof namespaceScheduler>,
): Promise<StageResult> {
  const stageStart = c.clock.now();
  const first = await deleteCustomResourcesFirst(stage, c);
  const touching = namespaces.candidates(stage.index);
  const removals =
    c.options.uninstallMode === 'auto'
      ? planNamespaceRemovals(
          stage.releases.map((k) => c.byKey.get(k)!),
          touching,
          new Set(touching.keys()),
          c.ports.resources,
          new Set(stage.releases.filter((k) => strandedReason(c.byKey.get(k)!, first) !== undefined)),
          c.plan.scope.protection,
        )
      : new Map<string, NamespaceRemoval>();
  const uninstallStart = c.clock.now();
  const removed = await uninstallStage(stage, c, first, removals, namespaces.onReleaseDone(stage.index));
  const waitStart = c.clock.now();
  await namespaces.deleteFree(stage.index, true);
  const releases = removed.map((r) => keptNamespaceOutcome(r, removals.get(r.release), namespaces));
  const objects = await awaitStageObjects(stage, c, releases);
  for (const e of c.errors) c.ports.log(`could not check: ${e}`);
  const ended = c.clock.now();
  return {
    index: stage.index,
    releases,
    crdInstances: first.crdInstances,
    ...objects,
    errors: c.errors,
    startedAt: new Date(stageStart).toISOString(),
    endedAt: new Date(ended).toISOString(),
    durationMs: ended - stageStart,
    stepsMs: {
      crdInstances: uninstallStart - stageStart,
      uninstall: waitStart - uninstallStart,
      wait: ended - waitStart,
    },
  };
}

/**
 * Pure: when the namespace wait that starts at `start` ends (ms since the epoch): a
 * `stage-timeout` from its start, or the overall `deadline` if sooner. `cutShort` is true
 * only when the deadline is what ends it (the wait gets less than a stage-timeout); it is
 * decided once, from the start, so the time the wait itself takes never makes it true.
 */
export function namespaceWaitOf(
  start: number,
  stageTimeoutMs: number,
  deadline: number,
): { readonly endsAt: number; readonly cutShort: boolean } {
  return {
    endsAt: Math.min(start + stageTimeoutMs, deadline),
    cutShort: deadline < start + stageTimeoutMs,
  };
}

/**
 * Executes a teardown plan, stage by stage: custom resources first while their controller
 * still runs (step 1); each release removed (step 2): with its namespaces when it has no
 * delete hooks and its record and namespaced objects are in namespaces this stage's end
 * deletes (`uninstallMode: auto`, `removalWithNamespaces`), else by `helm uninstall`; then a
 * wait until the manifests' objects are gone (step 3). A namespace is deleted as soon as
 * nothing in it waits on the rest, and emptied at once (`deleteNamespaceContent`). A stage
 * that times out or cannot check something is recorded (which object, which finalizer, which
 * request) and the next stage still runs, so as much as possible is cleaned. Then the
 * namespaces are awaited (namespaces.ts), and objects left by Helm hooks are looked for.
 * A request the API server refuses (RBAC, admission, quota) is recorded in `refusals` (and in
 * the namespace's or release's outcome) and the teardown goes on. Every `helm uninstall` it
 * started has ended when it returns or throws (`helmProcesses`).
 * Protected namespaces are never touched; nothing outside the plan is deleted.
 * @throws ClusterAccessError when the cluster stops answering (unreachable, TLS)
 */
export async function runTeardown(
  plan: TeardownPlan,
  options: TeardownOptions,
  ports: TeardownPorts,
): Promise<TeardownResult> {
  const helmProcesses = ports.helmProcesses ?? inFlight();
  const helm: HelmPort = {
    uninstall: (release, o) => helmProcesses.track(ports.helm.uninstall(release, o)),
    version: () => ports.helm.version(),
  };
  try {
    return await tearDown(plan, options, { ...ports, helm });
  } finally {
    // Also when a stage threw: no helm process outlives the teardown (nor the kubeconfig it reads).
    if (helmProcesses.size > 0) ports.log(`waiting for ${helmProcesses.size} helm process(es) to end`);
    await helmProcesses.settle();
  }
}

/** `runTeardown` with its helm processes tracked. */
async function tearDown(
  plan: TeardownPlan,
  options: TeardownOptions,
  ports: TeardownPorts,
): Promise<TeardownResult> {
  const clock = ports.clock ?? systemClock;
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const budgetFrom = (start: number) => () =>
    Math.max(0, Math.min(start + options.stageTimeoutMs, deadline) - clock.now());
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const refusals: RefusedRequest[] = [];
  const namespaces = namespaceScheduler(plan, ports, clock, refusals);
  const stages: StageResult[] = [];
  await namespaces.deleteFree(-1, true);
  for (const stage of plan.stages) {
    const title = `Stage ${stage.index + 1}/${plan.stages.length}: ${stage.releases.join(', ')}`;
    const budget = budgetFrom(clock.now());
    const c: StageContext = { plan, options, ports, clock, budget, byKey, errors: [], refusals };
    stages.push(await ports.group(title, () => runStage(stage, c, namespaces)));
  }
  for (const [ns, release] of namespaces.keepFor) {
    if (plan.namespacesToDelete.includes(ns))
      ports.log(`not deleting namespace ${ns}: release ${release} was not uninstalled`);
  }
  const toDelete = namespaces.deletions.flatMap((d) => d.names);
  const namespaceWait = namespaceWaitOf(clock.now(), options.stageTimeoutMs, deadline);
  const outcomes =
    toDelete.length === 0
      ? []
      : await ports.group(`Deleting namespaces: ${toDelete.join(', ')}`, () =>
          awaitNamespacesGone(ports.api, namespaces.deletions, {
            timeoutMs: Math.max(0, namespaceWait.endsAt - clock.now()),
            cutShort: namespaceWait.cutShort,
            clock,
            log: ports.log,
          }),
        );
  const errors: string[] = [...namespaces.hookErrors];
  const later = await ports.group('Checking for objects left by Helm hooks', () =>
    findHookLeftovers(plan.releases, ports, clock, errors),
  );
  const seen = new Set(namespaces.hookLeftovers.map(hookId));
  const hookLeftovers = [...namespaces.hookLeftovers, ...later.filter((b) => !seen.has(hookId(b)))];
  return {
    stages,
    namespaces: outcomes,
    hookLeftovers,
    errors,
    refusals,
    durationMs: clock.now() - started,
    timedOut: clock.now() >= deadline,
  };
}
