import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openCluster, type OpenCluster } from './cluster/open.js';
import { Inputs, Outputs, State } from './config/inputs.js';
import { InputError, parseSettings, type InputReader, type Settings } from './config/settings.js';
import { modes, type EnginePorts } from './engine.js';
import { publishToGitHub } from './report/github/publish.js';
import { fitSummary, renderMarkdown } from './report/markdown.js';
import { teardownCounts, type Report } from './report/report.js';
import type { CommandRunner } from './util/command.js';
import { cleanupOnSignal } from './util/signal-cleanup.js';

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
}

/** The step's failure message: what is left, top causes first (at most three named). */
export function leftoversMessage(report: Report, path: string): string {
  const failing = new Set(report.failing ?? []);
  const causes = (report.findings ?? []).filter(
    (f) => failing.has(f.key) && !(f.causedBy ?? []).some((k) => failing.has(k)),
  );
  const named = causes
    .slice(0, 3)
    .map(
      (f) =>
        `${f.code} ${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}`,
    );
  const { failed, blockers, stuckNamespaces: stuck } = teardownCounts(report.teardown);
  const parts = [
    failed ? `${failed} release(s) failed to uninstall` : '',
    blockers ? `${blockers} object(s) still there after their stage` : '',
    stuck ? `${stuck} namespace(s) stuck in Terminating` : '',
    failing.size
      ? `${failing.size} finding(s) over fail-on${named.length ? ` (top causes: ${named.join('; ')}${causes.length > 3 ? '; …' : ''})` : ''}`
      : '',
  ].filter((p) => p !== '');
  return `leftovers: ${parts.join(', ') || 'see the job summary'}. Details: the job summary and ${path}`;
}

/**
 * Fails early, before the cluster is touched, when `report-path` cannot be written (a bad
 * path found only after a teardown would leave a run without its report).
 * @throws InputError naming the input, the path and the system error code.
 */
export function checkReportPath(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const why =
      {
        EEXIST: 'a part of its folder is a file',
        ENOTDIR: 'a part of its folder is a file',
        EACCES: 'permission denied',
        EISDIR: 'it is a folder',
        EROFS: 'read-only file system',
      }[code] ?? code;
    throw new InputError(
      Inputs.reportPath,
      `input 'report-path' is '${path}', which cannot be written (${why}: ${code}); ` +
        'give a file path in a writable folder, or leave it empty for $RUNNER_TEMP/kube-sweep-report.json (nothing was done)',
    );
  }
}

function errorMessage(error: unknown): string {
  const message = (error as Error)?.message;
  return message && message.trim() !== '' ? message : `unexpected error: ${String(error)}`;
}

/**
 * Opens the cluster the settings name and runs the mode's strategy (engine.ts). Shared by the
 * action and the CLI.
 * @returns the report; `verdict: 'error'` (with `error` set) when anything stopped the run.
 */
export async function execute(
  settings: Settings,
  ports: EnginePorts & {
    env: NodeJS.ProcessEnv;
    setSecret: (v: string) => void;
    onKindCluster?: (kind: NonNullable<OpenCluster['kind']>) => void;
    onConnected?: (cluster: OpenCluster) => void;
    /** Delete the kubeconfig copy written for helm when done (the CLI; the action outputs its path). */
    removeKubeconfig?: boolean;
  },
): Promise<Report> {
  let cluster: OpenCluster | undefined;
  let removeOnSignal: (() => void) | undefined;
  try {
    cluster = await ports.group('Connecting to the cluster', () =>
      openCluster(settings, {
        env: ports.env,
        commands: ports.commands,
        setSecret: ports.setSecret,
        log: ports.info,
        ...(ports.onKindCluster ? { onKindCluster: ports.onKindCluster } : {}),
      }),
    );
    ports.onConnected?.(cluster);
    // Until the run ends, SIGINT/SIGTERM remove the copy before the process exits (util/signal-cleanup.ts).
    const path = cluster.kubeconfigPath;
    if (ports.removeKubeconfig) removeOnSignal = cleanupOnSignal(() => rmSync(path, { force: true }));
    const body = await modes[settings.mode](settings, cluster, ports);
    return {
      schemaVersion: 1,
      tool: 'kube-sweep',
      mode: settings.mode,
      cluster: clusterOf(cluster),
      ...body,
    };
  } catch (error) {
    return {
      schemaVersion: 1,
      tool: 'kube-sweep',
      mode: settings.mode,
      verdict: 'error',
      cluster: clusterOf(cluster),
      warnings: [],
      error: errorMessage(error),
    };
  } finally {
    removeOnSignal?.();
    await cluster?.api.close();
    if (cluster && ports.removeKubeconfig) rmSync(cluster.kubeconfigPath, { force: true });
  }
}

function clusterOf(cluster: OpenCluster | undefined): Report['cluster'] {
  return {
    server: cluster?.loaded.server ?? '',
    version: cluster?.serverVersion ?? '',
    context: cluster?.loaded.context ?? '',
  };
}

function writeReport(path: string, report: Report): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
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
      schemaVersion: 1,
      tool: 'kube-sweep',
      mode: settings?.mode ?? 'teardown',
      verdict: 'error',
      cluster: { server: '', version: '', context: '' },
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
    const findings = report.findings ?? [];
    ports.setOutput(Outputs.findings, String(findings.length));
    ports.setOutput(Outputs.remediated, String(report.remediation?.counts.done ?? 0));
    ports.setOutput(Outputs.suppressed, String((report.suppressed ?? []).reduce((n, x) => n + x.count, 0)));
    ports.setOutput(Outputs.errors, String(findings.filter((f) => f.severity === 'error').length));
    ports.setOutput(Outputs.warnings, String(findings.filter((f) => f.severity === 'warning').length));
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
