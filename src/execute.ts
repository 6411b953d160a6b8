import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { openCluster, type OpenCluster } from './cluster/open.js';
import { byFace, Inputs, inputWord } from './words/input-words.js';
import { InputError, type Settings } from './config/settings.js';
import { modes, type EnginePorts, type RunInputs } from './engine.js';
import type { Report } from './report/report.js';
import { readBaseline } from './report/read-report.js';
import { buildInfo } from './cli/version.js';
import { mergeReports } from './merge.js';
import { reap } from './reap.js';
import { cancellableApi } from './cluster/cancellable-api.js';
import { cancellableRunner } from './util/command.js';
import { makeDirectories } from './util/make-directories.js';
import { cleanupOnSignal } from './util/signal-cleanup.js';

/*
 * One run of the engine, shared by both faces: the action (main.ts) and the CLI (cli/index.ts)
 * each read their inputs, call `execute`, then write the report their own way.
 */

/**
 * What `checkReportPath` writes first: a line that is not a report (read-report.ts names such a
 * file as unreadable, never as a clean run), replaced by the report when the run ends. A run
 * killed before that leaves this line, which says so.
 */
export const unfinishedReportLine =
  '{"unfinished":"kube-sweep started this report and has not finished it"}\n';

/**
 * Fails early, before the cluster is touched, when `report-path` cannot be written (a bad
 * path found only after a teardown would leave a run without its report): it writes
 * `unfinishedReportLine` there, so a file that takes no bytes (/proc/self/status: EINVAL,
 * /dev/full: ENOSPC) is refused too, not only one that cannot be opened.
 * @throws InputError naming the input, the path and the system error code.
 */
export function checkReportPath(path: string): void {
  try {
    makeDirectories(dirname(path));
    writeFileSync(path, unfinishedReportLine);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const why =
      {
        EEXIST: 'a part of its folder is a file',
        ENOTDIR: 'a part of its folder is a file',
        EACCES: 'permission denied',
        EISDIR: 'it is a folder',
        EROFS: 'read-only file system',
        ENOENT: 'its folder cannot be created there',
        EINVAL: 'it takes no report',
        ENOSPC: 'no space left',
      }[code] ?? code;
    throw new InputError(
      Inputs.reportPath,
      `${inputWord(Inputs.reportPath)} is '${path}', which cannot be written (${why}: ${code}); ` +
        `give a file path in a writable folder, or ${byFace('leave it empty for a file of its own in $RUNNER_TEMP', 'leave it out')} (nothing was done)`,
    );
  }
}

/** The message of a thrown value, never empty. */
export function errorMessage(error: unknown): string {
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
    /** Where `mode: merge` resolves the `reports` globs; default the process's working folder. */
    cwd?: string;
  },
): Promise<Report> {
  let cluster: OpenCluster | undefined;
  let removeOnSignal: (() => void) | undefined;
  const cancel = ports.cancellation;
  // Once cancelled, no new command (helm, kind) and no new request; running commands are stopped.
  const commands = cancel
    ? cancellableRunner(ports.commands, cancel, ports.progress?.stopped)
    : ports.commands;
  try {
    // A baseline that cannot be read stops the run before the cluster is touched.
    const run: RunInputs = settings.baseline ? { baseline: readBaseline(settings.baseline) } : {};
    if (settings.mode === 'merge') {
      const body = await mergeReports(settings, ports.cwd ?? process.cwd(), ports.info);
      return { ...reportHead('merge', { server: '', version: '', context: '' }), ...body };
    }
    cluster = await ports.group('Connecting to the cluster', () =>
      openCluster(settings, {
        env: ports.env,
        commands,
        setSecret: ports.setSecret,
        log: ports.info,
        ...(ports.onKindCluster ? { onKindCluster: ports.onKindCluster } : {}),
      }),
    );
    ports.onConnected?.(cluster);
    // Until the run ends, SIGINT/SIGTERM remove the copy before the process exits (util/signal-cleanup.ts).
    const path = cluster.kubeconfigPath;
    if (ports.removeKubeconfig) removeOnSignal = cleanupOnSignal(() => rmSync(path, { force: true }));
    const open: OpenCluster = cancel
      ? { ...cluster, api: cancellableApi(cluster.api, cancel.signal, ports.progress?.answered) }
      : cluster;
    const runPorts = { ...ports, commands };
    const body =
      settings.mode === 'reap'
        ? await reap(settings, open, runPorts, run)
        : await modes[settings.mode](settings, open, runPorts, run);
    return { ...reportHead(settings.mode, clusterOf(cluster, settings)), ...body };
  } catch (error) {
    return {
      ...reportHead(settings.mode, clusterOf(cluster, settings)),
      verdict: 'error',
      warnings: [],
      error: errorMessage(error),
    };
  } finally {
    removeOnSignal?.();
    await cluster?.api.close();
    if (cluster && ports.removeKubeconfig) rmSync(cluster.kubeconfigPath, { force: true });
  }
}

/**
 * The fields every report opens with: schema version, tool and its version, the time the run
 * ended (now), the mode and the cluster.
 */
export function reportHead(mode: Report['mode'], cluster: Report['cluster']) {
  return {
    schemaVersion: 1 as const,
    tool: 'kube-sweep' as const,
    toolVersion: buildInfo()?.version ?? 'source',
    generatedAt: new Date().toISOString(),
    mode,
    cluster,
  };
}

/** The report's `cluster`: empty strings when the run never connected. */
function clusterOf(cluster: OpenCluster | undefined, settings: Settings): Report['cluster'] {
  const name = settings.clusterName || cluster?.loaded.context || '';
  return {
    ...(name ? { name } : {}),
    server: cluster?.loaded.server ?? '',
    version: cluster?.serverVersion ?? '',
    context: cluster?.loaded.context ?? '',
  };
}

/** Writes the JSON report to `path`, creating its folder. @throws the file system's error. */
export function writeReport(path: string, report: Report): void {
  makeDirectories(dirname(path));
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
}
