/**
 * Step 2 of a stage: each release removed, with its namespaces where `removalWithNamespaces`
 * allows it (its objects outside them deleted here, in Helm's uninstall order), else by
 * `helm uninstall`; a release `strandedReason` holds is skipped.
 */
import pLimit from 'p-limit';
import { inputRef, Inputs } from '../words/input-words.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { deletionRefusalOf } from '../cluster/refusal.js';
import { describeRefusal, type RefusedRequest } from '../kube/refusal.js';
import { collectionPath } from '../inventory/list.js';
import type { PlannedStage } from '../plan/build-plan.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import { uninstallBatches, type NamespaceRemoval } from './remove-with-namespace.js';
import { protectedAmong } from './scope-guard.js';
import { strandedReason } from './stage-custom-resources.js';
import { describeError, isFatal, type StageContext } from './teardown-context.js';
import { removalWords, type CrdInstancesOutcome, type ReleaseOutcome } from '../model/teardown-result.js';
import { helmDriverOf } from './dry-run.js';
import type { AwaitedObject } from './wait-gone.js';

function tail(text: string, lines = 3): string {
  return text.trim().split('\n').slice(-lines).join(' | ');
}

/**
 * Deletes the objects of a release that its namespaces' deletion does not reach (cluster-scoped
 * ones, namespaced ones elsewhere), one kind after another in Helm's uninstall order, the
 * objects of a kind at once; propagationPolicy Background, as `helm uninstall` deletes.
 * An object in a protected namespace (`plan.scope.protection`, each namespace read again just
 * before: `protectedAmong`, scope-guard.ts) stops it before any DELETE: `guarded`, nothing
 * deleted (removalWithNamespaces never passes one; this is the last check).
 * Exported for its unit test; the teardown calls it through removeWithNamespaces.
 * @returns the first failure other than 404 (`guarded` first, then a refusal: `refused`, with
 *   the server's answer, for any answer but 404 and 409, a 5xx of a failing webhook included:
 *   `isFailedDeletion`), or undefined when every object was deleted.
 */
export async function deleteDirectObjects(
  objects: readonly AwaitedObject[],
  release: ReleaseFacts,
  c: Pick<StageContext, 'plan' | 'ports'>,
): Promise<{ line: string; refused?: RefusedRequest; guarded?: true } | undefined> {
  // Defence in depth: removalWithNamespaces already leaves such a release to Helm, and the plan
  // refuses it; should an object in a protected namespace still get here (or its namespace have
  // been labelled protected since the plan), nothing is deleted. Each namespace is read now.
  const namespaced = objects.filter((o) => o.namespace);
  const found = await protectedAmong(
    c.ports.api,
    namespaced.map((o) => o.namespace!),
    c.plan.scope.protection,
  );
  const guarded = found && namespaced.find((o) => o.namespace === found.namespace);
  if (found && guarded) {
    return {
      line: `not deleting ${guarded.kind} ${guarded.namespace}/${guarded.name}: namespace ${found.namespace} is protected (${found.reason})`,
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
          const refused = deletionRefusalOf(error, {
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
 * Helm's error when the release has no record any more (helm/helm pkg/storage/driver
 * `ErrReleaseNotFound`: "release: not found"), as Helm 3 and 4 print it on uninstall.
 */
const releaseNotFound = /(^|\s)release: not found\s*$/m;

/**
 * `helm uninstall` of one release within the stage's budget. "release: not found" (an
 * overlapping run uninstalled it first) is success: the stage's wait then checks its objects.
 * A helm that the budget stopped says so (`timedOut`), not only its exit code.
 */
async function helmUninstall(facts: ReleaseFacts, c: StageContext): Promise<ReleaseOutcome> {
  const before = facts.release.status;
  const t0 = c.clock.now();
  const budgetMs = Math.max(1000, c.budget());
  const r = await c.ports.helm.uninstall(facts.release, { timeoutMs: budgetMs });
  const durationMs = c.clock.now() - t0;
  const outcome = {
    release: facts.key,
    method: 'helm',
    ...helmDriverOf(facts.release),
    helmStatusBefore: before,
    durationMs,
  } as const;
  if (r.exitCode === 0) {
    c.ports.log(`uninstalled ${facts.key} (was ${before}) in ${durationMs} ms`);
    return { ...outcome, status: 'uninstalled' };
  }
  if (!r.timedOut && !r.cancelled && releaseNotFound.test(r.stderr)) {
    // Another run (an overlapping teardown) uninstalled it first; the stage's wait still checks
    // that its objects are gone, and reports any that are not.
    c.ports.log(
      `${facts.key} was already uninstalled (helm: release: not found); its objects are checked next`,
    );
    return { ...outcome, status: 'uninstalled' };
  }
  const printed = tail(r.stderr || r.stdout);
  const message = r.timedOut
    ? `helm uninstall was stopped at the stage deadline (${Math.round(budgetMs / 1000)} s left of ${inputRef(Inputs.stageTimeout)} and ${inputRef(Inputs.timeout)}) before it ended` +
      (printed ? `; it had printed: ${printed}` : '')
    : printed || `helm exited with code ${r.exitCode} and printed nothing`;
  c.ports.log(`${removalWords(outcome)} ${facts.key} failed: ${message}`);
  return { ...outcome, status: 'failed', message };
}

/**
 * Step 2: remove each release of the stage: with its namespaces where `removals` allows it
 * (at once: a few requests each), else by `helm uninstall` (at most `uninstallConcurrency`
 * processes at once). A release whose CRDs still have instances (or could not be checked) is
 * skipped: removing it would take away the controller that must finalize them.
 */
export async function uninstallStage(
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
