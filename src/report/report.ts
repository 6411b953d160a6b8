import type { CancelledRun } from './cancelled.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { CoverageGap, FailedGroupVersion, InventoryStats } from '../inventory/types.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import type { OrderingEdge } from '../plan/stages.js';
import type { BlastRadius, DryRunSummary } from '../model/dry-run.js';
import type { Prediction, Surprise } from '../model/prediction.js';
import type { TeardownResult } from '../model/teardown-result.js';
import type { RemediationReport } from '../remediate/actions.js';
import type { Finding } from '../rules/findings.js';
import type { LeftoverDiagnosis } from '../rules/leftover-diagnosis.js';
import { severityRank, type Severity } from '../rules/severity.js';
import { typeNameOf } from '../rules/snapshot-views.js';
import type { GitHubPublications } from './github/publications.js';
import type { BaselineStatus, BaselineSummary } from './baseline.js';

/**
 * The outcome of a run.
 * - teardown: `clean` (every release uninstalled, every object and namespace gone) or
 *   `leftovers` (something failed, timed out, or could not be verified), or `partial` when
 *   nothing was left but the scan afterwards could not read every resource (coverage gaps);
 * - plan, and teardown with `dry-run: true`: `planned` (nothing was changed); inventory: `complete`, or `partial` when some resources could not be read;
 * - any mode: `error` when the run could not do its job (bad input, cluster unreachable).
 * Never `clean` or `complete` when something was not looked at.
 */
export type Verdict = 'clean' | 'leftovers' | 'planned' | 'complete' | 'partial' | 'error';

export type Mode = 'teardown' | 'plan' | 'scan' | 'inventory' | 'merge' | 'reap';

/** The `fail-on` policy: findings at or above `severity`, or with one of `codes`, fail the step. */
export interface FailPolicy {
  readonly severity?: Severity;
  readonly codes: readonly string[];
}

/** What the snapshot held: counts, not objects. */
export interface InventorySummary {
  readonly takenAt: string;
  /** Object counts per resource ("configmaps", "widgets.example.com"), sorted by name. */
  readonly counts: Readonly<Record<string, number>>;
  readonly objectCount: number;
  readonly namespaceCount: number;
  readonly failedGroupVersions: readonly FailedGroupVersion[];
  readonly coverage: readonly CoverageGap[];
  readonly stats: InventoryStats;
}

/** The plan as data for the report: what it deletes (blast radius), releases, edges and stages. */
export interface PlanSummary {
  /**
   * What a teardown of this plan deletes, named (teardown/blast-radius.ts); shown first. Absent
   * only in reports built without discovery (tests).
   */
  readonly blastRadius?: BlastRadius;
  /** Why a teardown of this plan must not run (empty when it may): the run's `error` quotes them. */
  readonly refusals?: readonly string[];
  readonly namespaces: readonly string[];
  readonly protectedMatched: readonly string[];
  readonly namespacesToDelete: readonly string[];
  readonly releases: readonly {
    readonly release: string;
    readonly status: string;
    readonly revision: number;
    readonly chart: string;
    readonly objects: number;
    readonly crds: readonly string[];
  }[];
  readonly edges: readonly OrderingEdge[];
  readonly stages: readonly {
    readonly index: number;
    readonly releases: readonly string[];
    readonly crdInstancesFirst: readonly string[];
  }[];
}

/** One cluster of the fleet: what its report said, judged by the merge's own `fail-on`. */
export interface FleetCluster {
  /** The report file it came from ('' for a report made in this run: the CLI's --context list). */
  readonly file: string;
  /** `cluster.name`, else the context, else the file name. */
  readonly name: string;
  readonly context: string;
  readonly mode: Report['mode'];
  /** The verdict its own run gave. */
  readonly verdict: Report['verdict'];
  readonly toolVersion?: string;
  readonly generatedAt?: string;
  /** Set when that run stopped (`verdict: error`). */
  readonly error?: string;
  /** Findings per severity. */
  readonly counts: { readonly error: number; readonly warning: number; readonly info: number };
  /** With a baseline in that run: findings new since it, and the baseline's findings resolved. */
  readonly new?: number;
  readonly resolved?: number;
  /** Its findings, as its report holds them (root causes are read from their `causedBy`). */
  readonly findings: readonly ReportFinding[];
  /** Keys of its findings over the merge's `fail-on` (and `fail-on-new`). */
  readonly failing: readonly string[];
  /** Key of its first root cause (the worst: findings are sorted by severity), if any. */
  readonly worstRootCause?: string;
}

/** A report file the merge could not read, and why. */
export interface UnreadableReport {
  readonly file: string;
  readonly problem: string;
}

/** The fleet as the merged report carries it (`fleet` in schema/report.v1.schema.json). */
export interface FleetSummary {
  readonly clusters: readonly FleetCluster[];
  readonly unreadable: readonly UnreadableReport[];
}

/** What became of an environment. */
export type ReapOutcome = 'reaped' | 'failed' | 'kept' | 'would-reap' | 'refused';

/** One environment in the reap report. */
export interface ReapEnvironment {
  readonly id: string;
  readonly namespaces: readonly string[];
  readonly abandoned: boolean;
  /** Why it is abandoned (every condition that holds), or why it is kept. */
  readonly reasons: readonly string[];
  readonly outcome: ReapOutcome;
  /** Its teardown's verdict (abandoned ones that were torn down or dry-run). */
  readonly verdict?: Verdict;
  readonly durationMs?: number;
  readonly error?: string;
  /** Keys of its findings (in the report's `findings`) and of those over `fail-on`. */
  readonly findings?: readonly string[];
  readonly failing?: readonly string[];
  /** The first root cause of what it left (`Code Kind ns/name`), if anything was left. */
  readonly rootCause?: string;
  /** Its teardown as a teardown report holds it. */
  readonly plan?: PlanSummary;
  readonly teardown?: TeardownResult;
  readonly dryRun?: DryRunSummary;
  readonly leftovers?: readonly LeftoverDiagnosis[];
}

/** The reap section of the report. */
export interface ReapSummary {
  readonly environments: readonly ReapEnvironment[];
}

/** A finding as the report carries it: with `baseline` set when a baseline was given. */
export type ReportFinding = Finding & { readonly baseline?: BaselineStatus };

/** The JSON report (`report-path`), schemaVersion 1: schema/report.v1.schema.json describes it. */
export interface Report {
  readonly schemaVersion: 1;
  readonly tool: 'kube-sweep';
  /** The kube-sweep version that wrote it (package.json's), or `source` when run unbundled. */
  readonly toolVersion?: string;
  /** When the run ended (RFC 3339). */
  readonly generatedAt?: string;
  readonly mode: Mode;
  readonly verdict: Verdict;
  /**
   * `name` is the `cluster-name` input (the fleet summary's row), else the context; `server` is
   * the API server URL.
   */
  readonly cluster: {
    readonly name?: string;
    readonly server: string;
    readonly version: string;
    readonly context: string;
  };
  readonly inventory?: InventorySummary;
  readonly plan?: PlanSummary;
  readonly teardown?: TeardownResult;
  /** Set by `dry-run: true` with `mode: teardown` (verdict `planned`): what would be deleted. */
  readonly dryRun?: DryRunSummary;
  /**
   * `mode: plan`, a dry run and a teardown (teardown/prediction.ts): what each object, namespace
   * and release the teardown touches was expected to do (go, wait, hang, stay) and why, from
   * the snapshot taken before any change. Absent in reports written before it existed.
   */
  readonly prediction?: Prediction;
  /**
   * Teardown only: what happened that the prediction did not say (an object left that was
   * expected to go, or not named; one gone that was expected to hang or stay). Empty when the
   * prediction held. A surprise is a defect of the prediction.
   */
  readonly surprises?: readonly Surprise[];
  /**
   * Teardown only, when it left something: each object it left behind (stage leftovers, Helm
   * hook objects, stuck namespaces) with the keys of the findings that explain it and of their
   * root causes (rules/leftover-diagnosis.ts). Those findings are in `findings`, even when their
   * object lies outside the environment.
   */
  readonly leftovers?: readonly LeftoverDiagnosis[];
  /** Findings of the scan, sorted (rules/findings.ts), linked to their root causes. */
  readonly findings?: readonly ReportFinding[];
  /** Set when a `baseline` was given: this run's findings against it (report/baseline.ts). */
  readonly baseline?: BaselineSummary;
  /** `mode: merge` (and the CLI's --context list): the clusters of the fleet (report/fleet.ts). */
  readonly fleet?: FleetSummary;
  /** `mode: reap`: every environment found, judged, and what became of it (reap.ts). */
  readonly reap?: ReapSummary;
  /** Keys of the findings that cross the `fail-on` policy. */
  readonly failing?: readonly string[];
  /** What `remediate: safe` did (absent with `remediate: none`); `findings` are then the re-scan's. */
  readonly remediation?: RemediationReport;
  /** How many findings each `ignore` entry suppressed. */
  readonly suppressed?: readonly { readonly entry: string; readonly count: number }[];
  readonly warnings: readonly string[];
  /** Set when verdict is `error`: what was being done and why it failed. */
  readonly error?: string;
  /** What was published to GitHub (pr-comment, check-run); set only when one was asked for. */
  readonly github?: GitHubPublications;
  /** Set when SIGINT or SIGTERM stopped the run (the action): what it had done; verdict `error`. */
  readonly cancelled?: CancelledRun;
}

/** Pure: the counts of a snapshot. */
export function summarizeInventory(inventory: Inventory): InventorySummary {
  const counts: Record<string, number> = {};
  for (const o of inventory.objects) {
    const key = typeNameOf(o);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return {
    takenAt: inventory.takenAt,
    counts: Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))),
    objectCount: inventory.objects.length,
    namespaceCount: inventory.namespaceNames.size,
    failedGroupVersions: inventory.failedGroupVersions,
    coverage: inventory.coverage,
    stats: inventory.stats,
  };
}

/** Pure: the plan as report data, with its blast radius when given. */
export function summarizePlan(plan: TeardownPlan, blastRadius?: BlastRadius): PlanSummary {
  return {
    ...(blastRadius ? { blastRadius } : {}),
    refusals: plan.refusals,
    namespaces: plan.scope.namespaces,
    protectedMatched: plan.scope.protectedMatched,
    namespacesToDelete: plan.namespacesToDelete,
    releases: plan.releases.map((r) => ({
      release: r.key,
      status: r.release.status,
      revision: r.release.revision,
      chart: `${r.release.chart.name}-${r.release.chart.version}`,
      objects: r.objects.length,
      crds: r.crds.map((c) => c.name),
    })),
    edges: plan.edges,
    stages: plan.stages.map((s) => ({
      index: s.index,
      releases: s.releases,
      crdInstancesFirst: s.crdInstancesFirst.map((c) => c.name),
    })),
  };
}

/**
 * Counts of a teardown for outputs and messages (all zero without a teardown).
 * `stuckNamespaces`: namespaces still Terminating when the wait ended, `stuck` ones and
 * `not-waited` ones (the overall `timeout` cut their wait short), of which `notWaitedNamespaces`
 * are the latter. `refusedNamespaces`: namespaces whose DELETE the API server refused (not
 * Terminating, so not among the stuck ones).
 */
export function teardownCounts(t: TeardownResult | undefined) {
  const releases = t?.stages.flatMap((s) => s.releases) ?? [];
  return {
    uninstalled: releases.filter((r) => r.status === 'uninstalled').length,
    failed: releases.filter((r) => r.status !== 'uninstalled').length,
    blockers:
      t?.stages.reduce(
        (n, s) => n + s.remaining.length + s.crdInstances.reduce((m, c) => m + c.remaining.length, 0),
        0,
      ) ?? 0,
    stuckNamespaces:
      t?.namespaces.filter((n) => n.status === 'stuck' || n.status === 'not-waited').length ?? 0,
    notWaitedNamespaces: t?.namespaces.filter((n) => n.status === 'not-waited').length ?? 0,
    refusedNamespaces: t?.namespaces.filter((n) => n.status === 'refused').length ?? 0,
  };
}

/** Pure: the findings that cross the policy (severity at or above it, or a listed code). */
export function failingFindings<F extends Finding>(findings: readonly F[], policy: FailPolicy): F[] {
  return findings.filter(
    (f) =>
      policy.codes.includes(f.code) ||
      (policy.severity !== undefined && severityRank[f.severity] <= severityRank[policy.severity]),
  );
}

/**
 * Pure: the verdict of a scan: `leftovers` when a finding crosses the policy, else `partial`
 * when something could not be read (absence is not proven), else `clean`.
 */
export function scanVerdict(
  failing: readonly Finding[],
  coverageGaps: number,
): 'clean' | 'leftovers' | 'partial' {
  if (failing.length > 0) return 'leftovers';
  return coverageGaps > 0 ? 'partial' : 'clean';
}

/**
 * Pure: whether a namespaced object went with a namespace the teardown deleted and saw gone (the
 * namespace controller deletes everything a namespace stores): a Helm hook object found before
 * its namespace was deleted is then not left behind.
 */
export function goneWithNamespace(o: { readonly namespace?: string }, result: TeardownResult): boolean {
  return (
    o.namespace !== undefined &&
    result.namespaces.some((n) => n.name === o.namespace && n.status === 'deleted')
  );
}

/**
 * Pure: how a run with verdict `error` ended, for titles: `cancelled` (SIGINT/SIGTERM: the
 * `cancelled` section), `stopped` (something stopped a teardown after it began: the report
 * carries what it did), else `could-not-run` (nothing was changed). Undefined for other verdicts.
 */
export function errorKind(
  report: Pick<Report, 'verdict' | 'cancelled' | 'teardown'>,
): 'cancelled' | 'stopped' | 'could-not-run' | undefined {
  if (report.verdict !== 'error') return undefined;
  if (report.cancelled) return 'cancelled';
  return report.teardown ? 'stopped' : 'could-not-run';
}

/**
 * Pure: whether a teardown left anything behind (see Verdict). Hook objects in a namespace the
 * teardown then deleted do not count (`goneWithNamespace`).
 */
export function teardownVerdict(result: TeardownResult): 'clean' | 'leftovers' {
  const dirty =
    result.timedOut ||
    result.stages.some(
      (s) =>
        s.releases.some((r) => r.status !== 'uninstalled') ||
        s.errors.length > 0 ||
        s.remaining.length > 0 ||
        s.unverifiableKinds.length > 0 ||
        s.crdInstances.some((c) => c.remaining.length > 0),
    ) ||
    result.namespaces.some((n) => n.status !== 'deleted' && n.status !== 'absent') ||
    result.hookLeftovers.some((b) => !goneWithNamespace(b, result)) ||
    result.errors.length > 0;
  return dirty ? 'leftovers' : 'clean';
}

/**
 * Pure: whether a teardown could not finish its own job, whatever the findings say: a release
 * not uninstalled, a stage's error or kind it could not check, an error of its own, or the
 * overall timeout. Objects it left behind are judged by the scan after it instead (`fail-on`
 * and `ignore` decide for them: engine/scan.ts), so this never passes a run `fail-on: never` allows
 * to fail, and a tool error is never clean.
 */
export function teardownIncomplete(result: TeardownResult): boolean {
  return (
    result.timedOut ||
    result.errors.length > 0 ||
    result.stages.some(
      (s) =>
        s.releases.some((r) => r.status !== 'uninstalled') ||
        s.errors.length > 0 ||
        s.unverifiableKinds.length > 0,
    )
  );
}

/** Pure: whether a policy is `fail-on: never` (no severity, no code). */
export function failsOnNothing(policy: FailPolicy): boolean {
  return policy.severity === undefined && policy.codes.length === 0;
}

/**
 * Pure: what a run that passed with something to show let through, for its headline: the
 * findings below `fail-on` and those `ignore` suppressed, e.g. `3 findings below the fail-on
 * policy, 1 suppressed by ignore` (`policy` and `ignore` name the inputs in the reader's terms).
 * Undefined unless the verdict is `clean` and there is something: a clean headline never sits
 * above findings, nor above a scope that matched nothing (`scopeMatchedNothing`).
 */
export function passedWith(report: Report, policy: string, ignore: string): string | undefined {
  if (report.verdict !== 'clean') return undefined;
  const below = report.findings?.length ?? 0;
  const suppressed = (report.suppressed ?? []).reduce((n, x) => n + x.count, 0);
  const parts = [
    ...(scopeMatchedNothing(report) ? ['the scope matched no namespace, nothing to tear down'] : []),
    ...(below > 0 ? [`${below} finding${below === 1 ? '' : 's'} below ${policy}`] : []),
    ...(suppressed > 0 ? [`${suppressed} suppressed by ${ignore}`] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/**
 * Pure: whether a teardown's scope matched nothing: no namespace (protected ones included) and
 * no release, so it had nothing to do (a typo in `namespaces`, or an environment already gone).
 * `require-match` makes such a run fail before it starts (plan/scope.ts `scopeMatchRefusals`).
 */
export function scopeMatchedNothing(report: Report): boolean {
  const p = report.plan;
  return (
    report.mode === 'teardown' &&
    p !== undefined &&
    p.namespaces.length === 0 &&
    p.protectedMatched.length === 0 &&
    p.releases.length === 0
  );
}

/**
 * Pure: the `matched-namespaces` output: how many namespaces the scope selected (protected ones
 * not counted: they are never torn down), as a decimal string; undefined when the run has no plan
 * (scan, inventory, merge, reap, or a run that stopped before planning).
 */
export function matchedNamespacesOutput(report: Report): string | undefined {
  return report.plan ? String(report.plan.namespaces.length) : undefined;
}

/** Pure: `partial` when any coverage gap exists, else `complete`. */
export function inventoryVerdict(summary: InventorySummary): 'complete' | 'partial' {
  return summary.coverage.length > 0 ? 'partial' : 'complete';
}
