/**
 * The namespaces of a teardown: each deleted as soon as nothing in it waits on the rest
 * (`namespaceScheduler`) and emptied at once, a release removed with a namespace that was kept
 * reported as failed (`keptNamespaceOutcome`), and the budget of the wait for them (`namespaceWaitOf`).
 */
import { describeRefusal, type RefusedRequest } from '../kube/refusal.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import { isProtected, nameProtectionOnly, type NamespaceProtection } from '../plan/protected-namespaces.js';
import type { Clock } from '../util/wait.js';
import { findHookLeftovers } from './hook-leftovers.js';
import { deleteNamespaceContent } from './namespace-content.js';
import { requestNamespaceDeletion, type NamespaceDeletion } from './namespaces.js';
import { hookObjects, lastStageTouching } from './release-objects.js';
import type { NamespaceRemoval } from './remove-with-namespace.js';
import type { TeardownPorts } from './teardown-context.js';
import type { HookLeftover, ReleaseOutcome } from '../model/teardown-result.js';

/**
 * Empties the namespaces of `deletion` whose DELETE was accepted (`deleteNamespaceContent`); a
 * refused, absent or guarded one is left alone, and so is a protected one (`protection`). Refused
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
      .filter((n) => !deletion.absent.has(n) && !deletion.refused.has(n) && !deletion.guarded.has(n))
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
export function namespaceScheduler(
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
        !keepFor.has(n)
      );
    });
    // A protected one is not left out here: the guard before its DELETE refuses it, reported.
    if (free.length === 0) return;
    free.forEach((n) => requested.add(n));
    if (!all || index < plan.stages.length - 1)
      ports.log(`nothing in ${free.join(', ')} waits on the rest of the teardown: deleting now`);
    const deletion = await requestNamespaceDeletion(ports.api, free, { clock, log: ports.log, protection });
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
    /** Why a namespace got no DELETE after all (protected when read just before it), if so. */
    guarded: (n: string) => deletions.find((d) => d.guarded.has(n))?.guarded.get(n),
  };
}

/**
 * A release removed with its namespaces whose namespace was then kept (a release beside it
 * failed to uninstall), found protected just before its DELETE (scope-guard.ts), or whose
 * deletion the API server refused: not removed after all, so it is
 * reported as failed, its message naming the objects outside the namespace that kube-sweep had
 * already deleted (up to three, then `…`).
 */
export function keptNamespaceOutcome(
  outcome: ReleaseOutcome,
  removal: NamespaceRemoval | undefined,
  namespaces: ReturnType<typeof namespaceScheduler>,
): ReleaseOutcome {
  if (outcome.method !== 'namespace' || outcome.status !== 'uninstalled' || !removal?.ok) return outcome;
  // What kube-sweep already deleted itself goes into the record either way (a tester found a
  // refused namespace hiding the release's deleted ClusterRole).
  const direct = removal.direct.length
    ? `; its ${removal.direct.length} object(s) outside it were deleted (${removal.direct
        .slice(0, 3)
        .map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`)
        .join(', ')}${removal.direct.length > 3 ? ', …' : ''})`
    : '';
  const guarded = removal.namespaces.filter((n) => namespaces.guarded(n) !== undefined);
  if (guarded.length > 0) {
    const why = guarded.map((n) => `namespace ${n} was not deleted: protected (${namespaces.guarded(n)!})`);
    return { ...outcome, status: 'failed', message: `not removed: ${why.join('; ')}${direct}` };
  }
  const refused = removal.namespaces.filter((n) => namespaces.refused(n));
  if (refused.length > 0) {
    const why = refused.map(
      (n) => `the deletion of namespace ${n} was ${describeRefusal(namespaces.refused(n)!)}`,
    );
    return { ...outcome, status: 'failed', message: `not removed: ${why.join('; ')}${direct}` };
  }
  const kept = removal.namespaces.filter((n) => !namespaces.requested(n));
  if (kept.length === 0) return outcome;
  const because = kept.map((n) => namespaces.keepFor.get(n)).filter(Boolean);
  const message = `not removed: namespace ${kept.join(', ')} was kept (release ${because.join(', ')} was not uninstalled)${direct}`;
  return { ...outcome, status: 'failed', message };
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
