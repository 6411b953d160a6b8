import { realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { minimatch } from 'minimatch';
import { globSync } from 'tinyglobby';
import { openCluster, type OpenCluster } from './cluster/open.js';
import { byFace, inputRef, Inputs, inputWord } from './words/input-words.js';
import { InputError, type Settings } from './config/settings.js';
import { modes } from './engine.js';
import type { EnginePorts, RunInputs } from './engine/ports.js';
import type { Report } from './report/report.js';
import { readBaseline } from './report/read-report.js';
import { buildInfo } from './cli/version.js';
import { mergeReports } from './merge.js';
import { reap } from './reap.js';
import { cancellableApi } from './cluster/cancellable-api.js';
import { cancellableRunner } from './util/command.js';
import { makeDirectories } from './util/make-directories.js';
import { unfinishedPathOf, writeFileAtomically } from './util/atomic-file.js';
import { cleanupOnSignal } from './util/signal-cleanup.js';

/*
 * One run of the engine, shared by both faces: the action (main.ts) and the CLI (cli/index.ts)
 * each read their inputs, call `execute`, then write the report their own way.
 */

/**
 * What `checkReportPath` writes first, to the report's sibling `<report-path>.unfinished`
 * (util/atomic-file.ts `unfinishedPathOf`): a line that is not a report (read-report.ts names
 * such a file as unreadable, never as a clean run). The report is written to that same sibling
 * and renamed over `report-path` when complete (`writeReport`), so a run killed before that
 * leaves this line beside the path, and the file at the path (an earlier report, or none) as it was.
 */
export const unfinishedReportLine =
  '{"unfinished":"kube-sweep started this report and has not finished it"}\n';

/** The other inputs that name files a report must never overwrite (`reportPathCollision`). */
export interface ReportPathNeighbours {
  /** The `baseline` input ('' for none). */
  readonly baseline?: string;
  /** The `reports` globs of `mode: merge` (empty for other modes). */
  readonly mergeGlobs?: readonly string[];
  /** Where relative paths and the `reports` globs are resolved; default the process's working folder. */
  readonly cwd?: string;
}

/** Pure: the neighbours of `report-path` in `settings` (`baseline`; `reports` with `mode: merge`). */
export function reportPathNeighbours(
  settings: Pick<Settings, 'baseline' | 'mode' | 'reports'>,
  cwd?: string,
): ReportPathNeighbours {
  return {
    baseline: settings.baseline,
    mergeGlobs: settings.mode === 'merge' ? settings.reports : [],
    ...(cwd !== undefined ? { cwd } : {}),
  };
}

/** `path` with symbolic links resolved, also when the file (or some of its folders) is not there yet. */
function realPathOf(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(realPathOf(parent), basename(absolute));
  }
}

/** Whether two paths name one file: the same device and inode when both exist, else the same real path. */
function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return realPathOf(a) === realPathOf(b);
  }
}

/**
 * Why `report-path` must not be written, because it is a file another input reads: the
 * `baseline` (compared by real path and inode: a link to it is the same file), or a file a
 * `mode: merge` glob of `reports` matches (already there, or matched by the glob's text once
 * written). Undefined when it collides with nothing. Reads the file system, writes nothing.
 */
export function reportPathCollision(path: string, neighbours: ReportPathNeighbours): string | undefined {
  const cwd = neighbours.cwd ?? process.cwd();
  const report = resolve(cwd, path);
  const { baseline } = neighbours;
  if (baseline && sameFile(report, resolve(cwd, baseline)))
    return (
      `${inputWord(Inputs.reportPath)} is '${path}', the same file as ${inputRef(Inputs.baseline)} ('${baseline}'): ` +
      `the report would replace the baseline it is compared against; write the report to another file ` +
      `and give that file as ${inputRef(Inputs.baseline)} of the next run (nothing was done)`
    );
  const globs = neighbours.mergeGlobs ?? [];
  if (globs.length === 0) return undefined;
  const relativePath = relative(cwd, report);
  const byText = globs.find((g) => minimatch(isAbsolute(g) ? report : relativePath, g, { dot: true }));
  const byFile = globSync([...globs], {
    cwd,
    onlyFiles: true,
    dot: true,
    expandDirectories: false,
    absolute: true,
  }).find((f) => sameFile(f, report));
  if (byText === undefined && byFile === undefined) return undefined;
  return (
    `${inputWord(Inputs.reportPath)} is '${path}', which ${inputRef(Inputs.reports)} (${globs.join(', ')}) matches: ` +
    `the merge would read its own unfinished report as one of the reports to merge; write the report outside ` +
    `those globs (another folder, or a name they do not match) (nothing was done)`
  );
}

/**
 * Fails early, before the cluster is touched, when `report-path` cannot be written (a bad
 * path found only after a teardown would leave a run without its report) or is a file another
 * input reads (`reportPathCollision`: then nothing is written at all). It writes
 * `unfinishedReportLine` to the sibling the report will be written to (`<report-path>.unfinished`,
 * util/atomic-file.ts), never to `report-path` itself, so an earlier report there stays whole
 * until the new one replaces it. A `report-path` that is not a regular file (/dev/full, a FIFO)
 * is written directly, as the report will be, so a file that takes no bytes (/dev/full: ENOSPC)
 * is refused too, not only one that cannot be opened; one next to which no file can be created
 * (/proc/self/status) is refused.
 * @throws InputError naming the input(s), the path and the system error code.
 */
export function checkReportPath(path: string, neighbours: ReportPathNeighbours = {}): void {
  const collision = reportPathCollision(path, neighbours);
  if (collision) throw new InputError(Inputs.reportPath, collision);
  let created = false;
  try {
    makeDirectories(dirname(path));
    created = true;
    let regular = true;
    try {
      regular = statSync(path).isFile();
    } catch {
      // Not there yet.
    }
    writeFileSync(regular ? unfinishedPathOf(path) : path, unfinishedReportLine);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const why =
      {
        EEXIST: 'a part of its folder is a file',
        ENOTDIR: 'a part of its folder is a file',
        EACCES: 'permission denied',
        EISDIR: 'it is a folder',
        EROFS: 'read-only file system',
        ENOENT: created ? 'no file can be created in its folder' : 'its folder cannot be created there',
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

/**
 * Writes the JSON report to `path`, creating its folder: complete or not at all
 * (`writeFileAtomically`: written to `<path>.unfinished`, then renamed over `path`).
 * @throws the file system's error.
 */
export function writeReport(path: string, report: Report): void {
  makeDirectories(dirname(path));
  writeFileAtomically(path, JSON.stringify(report, null, 2) + '\n');
}
