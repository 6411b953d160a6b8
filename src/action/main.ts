import { closeSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Outputs, State } from '../config/inputs.js';
import { parseSettings, type InputReader, type Settings } from '../config/settings.js';
import type { EnginePorts } from '../engine/ports.js';
import {
  checkReportPath,
  errorMessage,
  execute,
  reportHead,
  reportPathNeighbours,
  writeReport,
} from '../execute.js';
import { cancelledMessage, progressRecorder } from '../report/cancelled.js';
import { publishToGitHub } from '../report/github/publish.js';
import { inFaceTerms, inFaceTermsDeep } from '../report/face.js';
import { fitSummary, renderMarkdown } from '../report/markdown.js';
import { matchedNamespacesOutput, teardownCounts, type Report } from '../report/report.js';
import { rootCauseLabel, rootCausesOf } from '../report/root-causes.js';
import { findingsOfReport } from '../report/fleet.js';
import type { CommandRunner } from '../util/command.js';
import { makeDirectories } from '../util/make-directories.js';

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
  const {
    failed,
    blockers,
    stuckNamespaces: stuck,
    notWaitedNamespaces,
    refusedNamespaces,
  } = teardownCounts(report.teardown);
  const notWaited = notWaitedNamespaces
    ? ` (${notWaitedNamespaces} not waited for: the overall 'timeout' ran out)`
    : '';
  const parts = [
    failed ? `${failed} release(s) failed to uninstall` : '',
    blockers ? `${blockers} object(s) still there after their stage` : '',
    stuck ? `${stuck} namespace(s) still Terminating when the wait ended${notWaited}` : '',
    refusedNamespaces ? `${refusedNamespaces} namespace(s) whose deletion the API server refused` : '',
    failing.size
      ? `${failing.size} finding(s) over fail-on${named.length ? ` from ${causes.length} root cause(s): ${named.join('; ')}${causes.length > 3 ? '; …' : ''}` : ''}`
      : '',
  ].filter((p) => p !== '');
  return `leftovers: ${parts.join(', ') || 'see the job summary'}. Details: the job summary and ${path}`;
}

/**
 * Pure: `ports` whose log lines, group titles and failure say the run's messages in the action's
 * words (report/face.ts): what the engine writes names inputs as data.
 */
function inActionWords(ports: ActionPorts): ActionPorts {
  const say = (line: string) => inFaceTerms('action', line);
  const error = ports.error;
  return {
    ...ports,
    info: (line) => ports.info(say(line)),
    warning: (line) => ports.warning(say(line)),
    ...(error ? { error: (line: string) => error(say(line)) } : {}),
    group: (title, fn) => ports.group(say(title), fn),
    setFailed: (message) => ports.setFailed(say(message)),
  };
}

/**
 * Pure: the file name of the JSON report when `report-path` is empty, unique per step of a
 * job: a runner gives one RUNNER_TEMP to the whole job, and GITHUB_ACTION names the step (its
 * `id`, or `__self`, `__self_2`, ... for steps without one; act gives the step's index).
 * Characters other than letters, digits, `.`, `_` and `-` become `_`; at most 64 of them.
 * @param githubAction GITHUB_ACTION; empty or undefined outside a runner
 * @param counter 1 for the first try; 2, 3, ... when a file of that name is already there
 */
export function defaultReportName(githubAction: string | undefined, counter = 1): string {
  const step = (githubAction ?? '').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return `kube-sweep-report${step ? `-${step}` : ''}${counter > 1 ? `-${counter}` : ''}.json`;
}

/**
 * Claims the default report path in $RUNNER_TEMP (the OS temp folder outside a runner): the
 * first `defaultReportName` that no file holds yet, created empty with O_EXCL, so that a second
 * step of the same job (or one with the same GITHUB_ACTION) never overwrites the first one's
 * report. Never throws: when the folder cannot be written, returns the first name (writing the
 * report then fails with a warning).
 */
export function claimDefaultReportPath(env: NodeJS.ProcessEnv): string {
  const dir = env.RUNNER_TEMP || tmpdir();
  for (let counter = 1; counter <= 1000; counter++) {
    const path = join(dir, defaultReportName(env.GITHUB_ACTION, counter));
    try {
      makeDirectories(dir);
      closeSync(openSync(path, 'wx'));
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') break;
    }
  }
  return join(dir, defaultReportName(env.GITHUB_ACTION));
}

/** A report for a run that stopped before it had one of its own. */
function errorReport(mode: Report['mode'], error: string): Report {
  return {
    ...reportHead(mode, { server: '', version: '', context: '' }),
    verdict: 'error',
    warnings: [],
    error,
  };
}

/**
 * Reads the settings, claims the report path and runs the engine. With a cancellation, waits
 * for the run only until the run settles or `writeNow` (util/cancellation.ts), so that the
 * report is written within the runner's grace; a cancelled run's report has verdict `error`,
 * the `cancelled` section and its "cancelled after …" message (report/cancelled.ts).
 */
async function sweep(ports: ActionPorts): Promise<{ settings?: Settings; report: Report; path?: string }> {
  const started = Date.now();
  const progress = progressRecorder();
  const cancel = ports.cancellation;
  let settings: Settings | undefined;
  let path: string | undefined;
  let report: Report | undefined;
  try {
    settings = parseSettings(ports.readInput);
    if (settings.reportPath) checkReportPath(settings.reportPath, reportPathNeighbours(settings, ports.cwd));
    path = settings.reportPath || claimDefaultReportPath(ports.env);
    const s = settings;
    const running = execute(s, {
      ...ports,
      group: progress.group(ports.group),
      progress,
      onKindCluster: (kind) => {
        ports.saveState(State.kindClusterName, kind.name);
        ports.saveState(State.kindClusterCreated, String(kind.created));
        ports.saveState(State.kindKeep, String(s.kind.keep));
      },
      onConnected: (cluster) => ports.setOutput(Outputs.kubeconfigPath, cluster.kubeconfigPath),
    });
    report = await (cancel ? Promise.race([running, cancel.writeNow.then(() => undefined)]) : running);
  } catch (error) {
    report = errorReport(settings?.mode ?? 'teardown', errorMessage(error));
  }
  const cause = cancel?.cause();
  if (cause) {
    const mode = settings?.mode ?? 'teardown';
    const cancelled = progress.cancelled(cause, started);
    const error = cancelledMessage(cancelled, mode);
    report = { ...(report ?? errorReport(mode, error)), verdict: 'error', error, cancelled };
  }
  return { ...(settings ? { settings } : {}), report: report!, ...(path ? { path } : {}) };
}

/**
 * Writes the JSON report, the step's outputs and the job summary; a failure is a warning. The
 * outputs are set even when the report file cannot be written (`report-path` then stays unset).
 */
async function writeResults(ports: ActionPorts, report: Report, path: string): Promise<void> {
  try {
    writeReport(path, report);
    ports.setOutput(Outputs.reportPath, path);
  } catch (error) {
    ports.warning(`could not write the report to ${path}: ${errorMessage(error)}`);
  }
  try {
    ports.setOutput(Outputs.verdict, report.verdict);
    ports.setOutput(Outputs.objectCount, String(report.inventory?.objectCount ?? 0));
    ports.setOutput(Outputs.coverageGaps, String(report.inventory?.coverage.length ?? 0));
    const counts = teardownCounts(report.teardown);
    ports.setOutput(Outputs.releasesUninstalled, String(counts.uninstalled));
    ports.setOutput(Outputs.blockers, String(counts.blockers));
    ports.setOutput(Outputs.stuckNamespaces, String(counts.stuckNamespaces));
    const matched = matchedNamespacesOutput(report);
    if (matched !== undefined) ports.setOutput(Outputs.matchedNamespaces, matched);
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
    ports.warning(`could not write the outputs or summary: ${errorMessage(error)}`);
  }
}

/**
 * The action's main step: settings → cluster → mode strategy → report → verdict. The report,
 * outputs and summary are written even when the run failed, so a failed step explains
 * itself; `error` and `leftovers` fail the step (never a green "clean" that did not look).
 * A run cancelled by SIGINT/SIGTERM (`ports.cancellation`) writes them too, with verdict
 * `error`, within the runner's grace, and publishes nothing to GitHub.
 */
export async function run(given: ActionPorts): Promise<Report> {
  const ports = inActionWords(given);
  const swept = await sweep(ports);
  const { settings } = swept;
  let report = inFaceTermsDeep('action', swept.report);
  const path = swept.path ?? claimDefaultReportPath(ports.env);
  await writeResults(ports, report, path);
  if (report.cancelled) ports.warning('not publishing to GitHub: the run was cancelled');
  else if (settings && (settings.github.prComment || settings.github.checkRun)) {
    // After the summary; a GitHub failure is a warning recorded in the report, never a verdict.
    const github = await publishToGitHub(
      settings.github,
      report,
      renderMarkdown(report, 'action', { hideServer: !settings.github.publishServer }),
      {
        ...ports,
        notice: ports.notice ?? ports.info,
        ...(ports.cancellation ? { signal: ports.cancellation.signal } : {}),
      },
    );
    report = inFaceTermsDeep('action', { ...report, github });
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
