/**
 * Step 1 of a stage: the custom resources of the CRDs its releases ship, deleted first while their
 * controller still runs; and the decision it leads to (`strandedReason`: a release whose CRDs'
 * instances are still there, or unchecked, is not removed).
 */
import { isBuiltInGroup } from '../kube/built-in-groups.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { collectionPath } from '../inventory/list.js';
import type { PlannedStage } from '../plan/build-plan.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import { guardNamespace } from './scope-guard.js';
import { describeError, isFatal, type StageContext } from './teardown-context.js';
import type { Blocker, CrdInstancesOutcome } from '../model/teardown-result.js';
import { waitUntilGone, type AwaitedObject } from './wait-gone.js';
import { lookBeforeWaiting, rememberWaitedOut } from './known-blockers.js';

/**
 * Waits within the stage budget until `awaited` are gone; known blockers unchanged since are
 * looked at once, not awaited (known-blockers.ts), and are in what is returned.
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
    const look = await lookBeforeWaiting(awaited, c);
    c.skippedWaits?.push(...look.skipped);
    const left = await waitUntilGone(c.ports.api, look.awaited, {
      timeoutMs: c.budget(),
      clock: c.clock,
      onWatchFailed: c.ports.log,
      heartbeat: { what, log: c.ports.log },
    });
    rememberWaitedOut(left, c);
    return [...left, ...look.skipped.map(({ reason: _reason, ...b }) => b)];
  } catch (error) {
    if (isFatal(error)) throw error;
    c.errors.push(`waiting for ${what} to be gone: ${describeError(error)}`);
    return undefined;
  }
}

/**
 * The scope guard before a DELETE in `namespace` (`guardNamespace`, scope-guard.ts: the plan's
 * protection, the namespace read now): true when it is protected, which is recorded in
 * `c.errors` as "not deleting <what>: namespace <ns> is protected (<why>)"; nothing is sent then.
 * @throws what reading the namespace throws other than 404.
 */
async function refusedByGuard(namespace: string, what: string, c: StageContext): Promise<boolean> {
  const guard = await guardNamespace(c.ports.api, namespace, c.plan.scope.protection);
  if (guard.status !== 'protected') return false;
  const line = `not deleting ${what}: namespace ${namespace} is protected (${guard.reason})`;
  c.ports.log(line);
  c.errors.push(line);
  return true;
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
        if (await refusedByGuard(app.namespace, `${app.kind} ${app.namespace}/${app.name}`, c)) continue;
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
 * CRDs the stage's releases ship and own (the plan lets only those through: plan/crd-ownership.ts;
 * a CRD whose address is in a built-in group is refused here once more, as an error), and wait
 * for them while their controller still runs. GitOps applications go first, wave by wave
 * (`deleteGitopsWaves`). Before each delete, its namespace is judged again (`refusedByGuard`): in
 * one protected now, nothing is deleted, and the CRD's instances count as unchecked (its release
 * is then not uninstalled).
 * @returns the outcome per CRD, and the CRDs whose instances could not be checked.
 */
export async function deleteCustomResourcesFirst(stage: PlannedStage, c: StageContext) {
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
    // The plan only lets a release's own CRDs here (plan/crd-ownership.ts); the kind the request
    // reaches is checked once more: a built-in kind's collection is never deleted.
    if (isBuiltInGroup(address.group)) {
      c.errors.push(
        `not deleting ${crd.kind} objects first: ${crd.name} resolves to ${address.resource} of the API server's own group ${JSON.stringify(address.group)}`,
      );
      unchecked.add(crd.name);
      continue;
    }
    const awaited: AwaitedObject[] = [];
    for (const ns of c.plan.scope.namespaces) {
      const path = collectionPath(address, ns);
      try {
        if (await refusedByGuard(ns, `${crd.kind} objects in ${ns}`, c)) {
          unchecked.add(crd.name);
          continue;
        }
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
