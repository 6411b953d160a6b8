import {
  failingFindings,
  type FailPolicy,
  type FleetCluster,
  type FleetSummary,
  type Report,
  type ReportFinding,
} from './report.js';

export type { FleetCluster, FleetSummary, UnreadableReport } from './report.js';
import { rootCausesOf } from './root-causes.js';

/*
 * `mode: merge`: many reports (one per cluster) -> one fleet summary with one `fail-on`. Pure.
 */

/** Pure: every finding of a report, a reap's environments and a merge's clusters included. */
export function findingsOfReport(report: Report): readonly ReportFinding[] {
  return [...(report.findings ?? []), ...(report.fleet?.clusters ?? []).flatMap((c) => c.findings)];
}

/** Pure: one cluster of the fleet from its report, judged by `policy` (and `onlyNew`). */
export function fleetClusterOf(
  file: string,
  report: Report,
  policy: FailPolicy,
  onlyNew: boolean,
): FleetCluster {
  const findings = findingsOfReport(report);
  const failing = failingFindings(findings, policy).filter((f) => !onlyNew || f.baseline !== 'still');
  const failingKeys = new Set(failing.map((f) => f.key));
  const roots = rootCausesOf(findings, failingKeys);
  const count = (s: string) => findings.filter((f) => f.severity === s).length;
  const worst = roots.causes[0]?.finding.key;
  return {
    file,
    name: report.cluster.name || report.cluster.context || file,
    context: report.cluster.context,
    mode: report.mode,
    verdict: report.verdict,
    ...(report.toolVersion ? { toolVersion: report.toolVersion } : {}),
    ...(report.generatedAt ? { generatedAt: report.generatedAt } : {}),
    ...(report.error ? { error: report.error } : {}),
    counts: { error: count('error'), warning: count('warning'), info: count('info') },
    ...(report.baseline ? { new: report.baseline.new, resolved: report.baseline.resolved.length } : {}),
    findings,
    failing: [...failingKeys],
    ...(worst ? { worstRootCause: worst } : {}),
  };
}

/**
 * Pure: the fleet's verdict. `leftovers` when any cluster has a finding over the merge's
 * `fail-on`; else `partial` when a report could not be read, or a cluster's own run stopped or
 * could not read everything (`error`, `partial`), or no report was read at all; else `clean`.
 */
export function fleetVerdict(fleet: FleetSummary): 'clean' | 'leftovers' | 'partial' {
  if (fleet.clusters.some((c) => c.failing.length > 0)) return 'leftovers';
  if (
    fleet.unreadable.length > 0 ||
    fleet.clusters.length === 0 ||
    fleet.clusters.some((c) => c.verdict === 'error' || c.verdict === 'partial')
  )
    return 'partial';
  return 'clean';
}

/** Pure: clusters sorted by name (then file), so the summary does not depend on file order. */
export function sortFleet(fleet: FleetSummary): FleetSummary {
  return {
    clusters: [...fleet.clusters].sort(
      (a, b) => a.name.localeCompare(b.name) || a.file.localeCompare(b.file),
    ),
    unreadable: [...fleet.unreadable].sort((a, b) => a.file.localeCompare(b.file)),
  };
}
