/**
 * `mode: teardown` after the stages: the proof (a fresh snapshot, scanned), its verdict, what the
 * releases' operators and hooks left, the prediction's surprises, and the report of a teardown
 * that stopped.
 */
import type { OpenCluster } from '../cluster/open.js';
import type { Settings } from '../config/settings.js';
import type { Inventory } from '../inventory/snapshot.js';
import { groupOf } from '../kube/api-version.js';
import { summarizeInventory, summarizePlan, teardownIncomplete, type Report } from '../report/report.js';
import type { Finding } from '../rules/findings.js';
import type { HookObjectOfRelease } from '../rules/rule.js';
import { surprisesOf, predictedId } from '../teardown/prediction.js';
import type { TeardownResult } from '../model/teardown-result.js';
import { type EnginePorts, type ReportBody, type RunInputs, readInventory } from './ports.js';
import {
  type ScanOptions,
  environmentOf,
  leftoversOf,
  namespacesOf,
  ref,
  remediateThenRescan,
  scan,
} from './scan.js';
import type { plan } from './plan.js';

/**
 * Pure: a function telling whether a snapshot holds an object (by API group, kind, namespace
 * and name; a Namespace by its name); always undefined when the snapshot has coverage gaps (a
 * list that failed may hold it: nothing is concluded).
 */
function presenceIn(
  inventory: Inventory,
): (o: { apiVersion: string; kind: string; namespace?: string; name: string }) => boolean | undefined {
  if (inventory.coverage.length > 0) return () => undefined;
  const ids = new Set(inventory.objects.map(predictedId));
  const namespaces = new Set(namespacesOf(inventory).map((n) => n.name));
  return (o) =>
    o.kind === 'Namespace' && groupOf(o.apiVersion) === '' ? namespaces.has(o.name) : ids.has(predictedId(o));
}

/** Pure: the releases a teardown uninstalled, as namespace and name (their operators' leftovers: S18). */
function uninstalledReleasesOf(teardown: TeardownResult): { namespace: string; name: string }[] {
  // Releases are "<namespace>/<name>".
  return teardown.stages
    .flatMap((s) => s.releases)
    .filter((r) => r.status === 'uninstalled')
    .map((r) => ({ namespace: r.release.split('/')[0]!, name: r.release.split('/')[1]! }));
}

/** Pure: the objects a teardown found left by Helm hooks, with their releases (`<namespace>/<name>`). */
function hookObjectsOfReleases(teardown: TeardownResult): HookObjectOfRelease[] {
  return teardown.hookLeftovers.map((b) => {
    const [namespace = '', name = ''] = b.release.split('/');
    return { object: ref(b), release: { namespace, name } };
  });
}

/**
 * Pure: a teardown's verdict from the scan afterwards. Clean only when the scan read everything:
 * a resource it could not list (a 503 while etcd stalled, a 403) may hold what the environment left.
 */
function teardownRunVerdict(
  teardown: TeardownResult,
  scanned: {
    error?: string;
    failing: readonly Finding[];
    unexplainedLeftovers: number;
    inventory: Inventory;
  },
): Report['verdict'] {
  if (scanned.error) return 'error';
  if (teardownIncomplete(teardown) || scanned.failing.length > 0 || scanned.unexplainedLeftovers > 0)
    return 'leftovers';
  return scanned.inventory.coverage.length > 0 ? 'partial' : 'clean';
}

/**
 * Proves a teardown: a fresh snapshot after it, scanned (and remediated, when asked) for what
 * the environment left, and the report body with the verdict.
 * @throws what reading the inventory throws.
 */
export async function provenTeardownBody(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts,
  planned: Awaited<ReturnType<typeof plan>>,
  teardown: TeardownResult,
  run: RunInputs,
): Promise<ReportBody> {
  const after = await readInventory(settings, cluster, ports);
  // A deletion the teardown waited a whole stage for is stuck by then, however young; so is one
  // it did not wait for because the prediction said it hangs and it had not changed since
  // (known-blockers.ts): the scan then judges every deletion it finds, at any age.
  const skippedWaits =
    teardown.stages.some((s) => (s.waitsSkipped ?? []).length > 0) ||
    teardown.namespaces.some((n) => n.waitSkipped !== undefined);
  const scanOptions: ScanOptions = {
    removedReleases: uninstalledReleasesOf(teardown),
    stuckAfterMs: skippedWaits ? 0 : Math.min(settings.stuckAfterMs, settings.stageTimeoutMs),
    leftovers: leftoversOf(teardown),
    ...(run.baseline ? { baseline: run.baseline } : {}),
    invalidReleaseRecords: planned.refused,
    refusals: teardown.refusals ?? [],
    hookLeftovers: hookObjectsOfReleases(teardown),
  };
  const environment = environmentOf(settings, after, planned.plan.scope.namespaces);
  const first = await ports.group('Scanning for leftovers', async () =>
    scan(settings, after, environment, ports, scanOptions),
  );
  const rescanned = await remediateThenRescan(
    settings,
    cluster,
    ports,
    { ...first, inventory: after },
    environment,
    false,
    scanOptions,
  );
  const { findings, failing, suppressed, remediation, error, leftovers, baseline } = rescanned;
  return {
    verdict: teardownRunVerdict(teardown, rescanned),
    ...(error ? { error } : {}),
    ...(remediation ? { remediation } : {}),
    inventory: summarizeInventory(rescanned.inventory),
    plan: summarizePlan(planned.plan, planned.blastRadius),
    teardown,
    prediction: planned.prediction,
    surprises: surprisesOf(planned.prediction, scanOptions.leftovers ?? [], presenceIn(rescanned.inventory)),
    ...(leftovers && leftovers.length > 0 ? { leftovers } : {}),
    findings,
    failing: failing.map((f) => f.key),
    ...(baseline ? { baseline } : {}),
    suppressed,
    warnings: planned.warnings,
  };
}

/**
 * Pure: what a teardown did, in words: `3 release(s) removed; deletion of 2 namespace(s)
 * accepted (pr-1 deleted, pr-2 not confirmed)`, or `nothing deleted`.
 */
export function teardownDoneWords(teardown: TeardownResult): string {
  const removed = teardown.stages.flatMap((s) => s.releases).filter((r) => r.status === 'uninstalled');
  const asked = teardown.namespaces.filter(
    (n) => n.status !== 'absent' && n.status !== 'refused' && n.status !== 'protected',
  );
  const done = [
    removed.length
      ? `${removed.length} release(s) removed (${removed.map((r) => r.release).join(', ')})`
      : '',
    asked.length
      ? `deletion of ${asked.length} namespace(s) accepted (${asked
          .map((n) => `${n.name} ${n.status === 'deleted' ? 'deleted' : 'not confirmed'}`)
          .join(', ')})`
      : '',
  ].filter(Boolean);
  return done.length ? done.join('; ') : 'nothing deleted';
}

/**
 * The report body of a teardown that something stopped after it began (the cluster stopped
 * answering, the scan afterwards failed): verdict `error`, and still the plan and every step
 * already taken (`teardown`), so the report and the outputs count what was done; the error says
 * it in words, and that nothing was looked at again.
 */
export function stoppedBody(
  planned: Awaited<ReturnType<typeof plan>>,
  teardown: TeardownResult,
  error: unknown,
): ReportBody {
  const why = (error as Error)?.message?.trim() || `unexpected error: ${String(error)}`;
  return {
    verdict: 'error',
    error: `the teardown stopped: ${why}${/[.?!]$/.test(why) ? '' : '.'} Done before that: ${teardownDoneWords(teardown)}; the cluster was not looked at again (run kube-sweep again to finish and check).`,
    plan: summarizePlan(planned.plan, planned.blastRadius),
    teardown,
    prediction: planned.prediction,
    warnings: planned.warnings,
  };
}
