import type { Settings } from './config/settings.js';
import { fleetClusterOf, fleetVerdict, sortFleet, type UnreadableReport } from './report/fleet.js';
import { readReportFiles } from './report/merge-files.js';
import type { Report } from './report/report.js';

/*
 * `mode: merge` (and the CLI's scan of several contexts): many reports -> one fleet report.
 */

type ReportBody = Omit<Report, 'schemaVersion' | 'tool' | 'toolVersion' | 'generatedAt' | 'mode' | 'cluster'>;

/**
 * Pure: the fleet report body of reports already read: each cluster judged by the settings'
 * `fail-on` (and `fail-on-new`), sorted by name; the unreadable ones named in the warnings.
 */
export function fleetBody(
  reports: readonly { file: string; report: Report }[],
  unreadable: readonly UnreadableReport[],
  settings: Pick<Settings, 'failOn' | 'failOnNew'>,
): ReportBody {
  const fleet = sortFleet({
    clusters: reports.map((r) => fleetClusterOf(r.file, r.report, settings.failOn, settings.failOnNew)),
    unreadable,
  });
  return {
    verdict: fleetVerdict(fleet),
    fleet,
    warnings: fleet.unreadable.map((u) => `report ${u.file} could not be read: ${u.problem}`),
  };
}

/**
 * `mode: merge`: reads the files the `reports` globs match under `cwd` and merges them.
 * @throws Error naming `reports` when the globs match no file.
 */
export async function mergeReports(
  settings: Settings,
  cwd: string,
  log: (line: string) => void,
): Promise<ReportBody> {
  const { reports, unreadable } = await readReportFiles(settings.reports, cwd);
  log(
    `merging ${reports.length} report(s)${unreadable.length ? `; ${unreadable.length} could not be read` : ''}`,
  );
  return fleetBody(reports, unreadable, settings);
}
