import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outputs, State } from './config/inputs.js';
import { parseSettings, type InputReader, type Settings } from './config/settings.js';
import type { EnginePorts } from './engine.js';
import { checkReportPath, errorMessage, execute, reportHead, writeReport } from './execute.js';
import { publishToGitHub } from './report/github/publish.js';
import { fitSummary, renderMarkdown } from './report/markdown.js';
import { teardownCounts, type Report } from './report/report.js';
import { rootCauseLabel, rootCausesOf } from './report/root-causes.js';
import { findingsOfReport } from './report/fleet.js';
import type { CommandRunner } from './util/command.js';

/** Everything the action touches outside itself; built from @actions/core in index.ts. */
export interface ActionPorts extends EnginePorts {
  readonly readInput: InputReader;
  readonly setSecret: (value: string) => void;
  readonly setOutput: (name: string, value: string) => void;
  readonly saveState: (name: string, value: string) => void;
  readonly writeSummary: (markdown: string) => Promise<void>;
  readonly setFailed: (message: string) => void;
  /** A notice annotation (core.notice); info when absent. */
  readonly notice?: (message: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly commands: CommandRunner;
  /** The working folder (`mode: merge` resolves `reports` in it); default process.cwd(). */
  readonly cwd?: string;
}

/**
 * The step's failure message: what is left, then the root causes of the failing findings (at
 * most three named, each object once; see report/root-causes.ts).
 */
export function leftoversMessage(report: Report, path: string): string {
  if (report.fleet) {
    const dirty = report.fleet.clusters.filter((c) => c.failing.length > 0);
    return `leftovers: findings over fail-on in ${dirty.length} of ${report.fleet.clusters.length} cluster(s): ${dirty.map((c) => `${c.name} (${c.failing.length})`).join(', ')}. Details: the job summary and ${path}`;
  }
  const failing = new Set(report.failing ?? []);
  const causes = rootCausesOf(report.findings ?? [], failing).causes.filter((e) =>
    [e.finding, ...e.sameObject, ...e.group, ...e.explains].some((f) => failing.has(f.key)),
  );
  const named = causes.slice(0, 3).map((e) => `${e.finding.code} ${rootCauseLabel(e)}`);
  const { failed, blockers, stuckNamespaces: stuck } = teardownCounts(report.teardown);
  const parts = [
    failed ? `${failed} release(s) failed to uninstall` : '',
    blockers ? `${blockers} object(s) still there after their stage` : '',
    stuck ? `${stuck} namespace(s) stuck in Terminating` : '',
    failing.size
      ? `${failing.size} finding(s) over fail-on${named.length ? ` from ${causes.length} root cause(s): ${named.join('; ')}${causes.length > 3 ? '; …' : ''}` : ''}`
      : '',
  ].filter((p) => p !== '');
  return `leftovers: ${parts.join(', ') || 'see the job summary'}. Details: the job summary and ${path}`;
}

/**
 * The action's main step: settings → cluster → mode strategy → report → verdict. The report,
 * outputs and summary are written even when the run failed, so a failed step explains
 * itself; `error` and `leftovers` fail the step (never a green "clean" that did not look).
 */
export async function run(ports: ActionPorts): Promise<Report> {
  let settings: Settings | undefined;
  let report: Report;
  try {
    settings = parseSettings(ports.readInput);
    if (settings.reportPath) checkReportPath(settings.reportPath);
    const s = settings;
    report = await execute(s, {
      ...ports,
      onKindCluster: (kind) => {
        ports.saveState(State.kindClusterName, kind.name);
        ports.saveState(State.kindClusterCreated, String(kind.created));
        ports.saveState(State.kindKeep, String(s.kind.keep));
      },
      onConnected: (cluster) => ports.setOutput(Outputs.kubeconfigPath, cluster.kubeconfigPath),
    });
  } catch (error) {
    report = {
      ...reportHead(settings?.mode ?? 'teardown', { server: '', version: '', context: '' }),
      verdict: 'error',
      warnings: [],
      error: errorMessage(error),
    };
  }
  const path = settings?.reportPath || join(ports.env.RUNNER_TEMP ?? tmpdir(), 'kube-sweep-report.json');
  try {
    writeReport(path, report);
    ports.setOutput(Outputs.reportPath, path);
    ports.setOutput(Outputs.verdict, report.verdict);
    ports.setOutput(Outputs.objectCount, String(report.inventory?.objectCount ?? 0));
    ports.setOutput(Outputs.coverageGaps, String(report.inventory?.coverage.length ?? 0));
    const counts = teardownCounts(report.teardown);
    ports.setOutput(Outputs.releasesUninstalled, String(counts.uninstalled));
    ports.setOutput(Outputs.blockers, String(counts.blockers));
    ports.setOutput(Outputs.stuckNamespaces, String(counts.stuckNamespaces));
    const findings = findingsOfReport(report);
    ports.setOutput(Outputs.findings, String(findings.length));
    ports.setOutput(Outputs.remediated, String(report.remediation?.counts.done ?? 0));
    ports.setOutput(Outputs.suppressed, String((report.suppressed ?? []).reduce((n, x) => n + x.count, 0)));
    ports.setOutput(Outputs.errors, String(findings.filter((f) => f.severity === 'error').length));
    ports.setOutput(Outputs.warnings, String(findings.filter((f) => f.severity === 'warning').length));
    ports.setOutput(Outputs.newFindings, String(findings.filter((f) => f.baseline !== 'still').length));
    ports.setOutput(Outputs.resolvedFindings, String(report.baseline?.resolved.length ?? 0));
    const ids = (outcomes: readonly string[]) =>
      JSON.stringify(
        (report.reap?.environments ?? []).filter((e) => outcomes.includes(e.outcome)).map((e) => e.id),
      );
    ports.setOutput(Outputs.reaped, ids(['reaped', 'would-reap']));
    ports.setOutput(Outputs.kept, ids(['kept', 'refused']));
    ports.setOutput(Outputs.failed, ids(['failed']));
    await ports.writeSummary(fitSummary(renderMarkdown(report), path));
  } catch (error) {
    ports.warning(`could not write the report or summary: ${errorMessage(error)}`);
  }
  if (settings && (settings.github.prComment || settings.github.checkRun)) {
    // After the summary; a GitHub failure is a warning recorded in the report, never a verdict.
    const github = await publishToGitHub(settings.github, report, renderMarkdown(report), {
      ...ports,
      notice: ports.notice ?? ports.info,
    });
    report = { ...report, github };
    try {
      writeReport(path, report);
    } catch (error) {
      ports.warning(`could not write the report: ${errorMessage(error)}`);
    }
  }
  if (report.verdict === 'error') ports.setFailed(report.error ?? 'kube-sweep could not run');
  else if (report.verdict === 'leftovers') ports.setFailed(leftoversMessage(report, path));
  else ports.info(`verdict: ${report.verdict} (report: ${path})`);
  return report;
}
