import type { ModeName } from '../config/inputs.js';
import { Inputs, type InputName } from '../words/input-words.js';
import { InputError, parseSettings, type Settings } from '../config/settings.js';
import { checkReportPath, execute, reportPathNeighbours, writeReport } from '../execute.js';
import { publishToGitHub } from '../report/github/publish.js';
import { renderMarkdown } from '../report/markdown.js';
import { blockerFate, deletedNamespacesOf, keptAfterRun } from '../report/teardown-markdown.js';
import { firstAction, objectLabel, rootCauseLabel, rootCausesOf } from '../report/root-causes.js';
import { passedWith, type Report } from '../report/report.js';
import type { BlastRadius, BlastRadiusObject } from '../model/dry-run.js';
import { removalWords } from '../model/teardown-result.js';
import { deleteKindCluster, type KindCluster } from '../cluster/kind.js';
import { execaRunner } from '../util/command.js';
import { showInvisible } from '../util/show-invisible.js';
import { cleanupOnSignal } from '../util/signal-cleanup.js';
import { inFaceTermsDeep, inFlagTerms } from '../report/face.js';
import { textBaseline } from '../report/baseline-markdown.js';
import { textReap } from '../report/reap-markdown.js';
import { textFleet } from '../report/fleet-markdown.js';
import { contextsOf, runContexts } from './contexts.js';
import { cancelledExitCode, runCancellable } from './cancel.js';
import { buildInfo, versionLine } from './version.js';
import { commandOf, parseCommandLine, type CommandLine } from './command-line.js';
import { commandHelp, generalHelp, usage } from './help.js';
import { predictedNamespaces, textPrediction } from '../report/prediction-markdown.js';

export { commandOf, parseCommandLine, type CommandLine } from './command-line.js';
export { usage } from './help.js';

/** A command word: the mode of the run. */
type Mode = ModeName;

export { inFlagTerms };

/**
 * `--cluster kind` in the CLI: the cluster the run created is deleted when the run ends, and on
 * SIGINT/SIGTERM before the process exits (util/signal-cleanup.ts), unless `--kind-keep true`;
 * a cluster that existed before (reused) is never deleted. This is what the action's post step
 * does (src/action/post.ts); a signal that arrives while `kind create cluster` itself runs is left to kind.
 * @returns `created`, the hook for execute's onKindCluster, and `done`, which deletes the cluster
 *   (if due) and resolves to a warning when the delete failed (the verdict stays the run's).
 */
function kindCleanup(keep: boolean, info: (line: string) => void, warning: (line: string) => void) {
  let cluster: KindCluster | undefined;
  let unregister: (() => void) | undefined;
  let deleted: Promise<string | undefined> | undefined;
  const remove = (): Promise<string | undefined> =>
    (deleted ??= deleteKindCluster(cluster!.name, execaRunner).then(
      () => {
        info(`deleted kind cluster '${cluster!.name}' (created by this run; --kind-keep keeps it)`);
        return undefined;
      },
      (error: unknown) => {
        const message = `kind cluster '${cluster!.name}' was not deleted: ${(error as Error).message}`;
        warning(message);
        return message;
      },
    ));
  return {
    created: (kind: KindCluster) => {
      cluster = kind;
      if (!kind.created) info(`kind cluster '${kind.name}' existed before this run: it is kept`);
      else if (keep) info(`kind cluster '${kind.name}' is kept (--kind-keep)`);
      else unregister = cleanupOnSignal(async () => void (await remove()));
    },
    done: async (): Promise<string | undefined> => {
      if (!unregister) return undefined;
      unregister();
      return remove();
    },
  };
}

/**
 * Pure: one line for stderr, `prefix` then `message` in flag terms with its line breaks and
 * other invisible characters shown as escapes (`showInvisible`): a progress line or warning
 * that quotes cluster text stays one line that reads as what it is.
 */
function stderrLine(prefix: string, message: string): string {
  return `${prefix}${showInvisible(inFlagTerms(message))}\n`;
}

/** Pure: the exit code of a report (0 done, 1 leftovers, 2 could not run). */
export function exitCodeOf(report: Report): number {
  if (report.verdict === 'error') return 2;
  if (report.verdict === 'leftovers') return 1;
  return 0;
}

/** The root causes first: one block per entry (code, object, what it explains, first action). */
function textRootCauses(report: Report): string[] {
  const findings = report.findings;
  if (!findings) return [];
  if (findings.length === 0) return ['findings: none'];
  const failing = new Set(report.failing ?? []);
  const roots = rootCausesOf(findings, failing);
  const notes = roots.notes.length ? `, ${roots.notes.length} note(s)` : '';
  const out = [
    `${roots.causes.length} root cause(s), ${roots.linked} linked finding(s)${notes} (${findings.length} finding(s), ${failing.size} over --fail-on)`,
  ];
  for (const r of roots.causes) {
    const codes = [r.finding, ...r.sameObject].map((f) => f.code).join(' + ');
    const explains = r.explains.length
      ? `: root cause of ${r.explains.length} (${[...new Set(r.explains.map((f) => f.code))].join(', ')})`
      : '';
    out.push(`${r.finding.severity.toUpperCase().padEnd(7)} ${codes} ${rootCauseLabel(r)}${explains}`);
    out.push(`        ${r.finding.message}`);
    out.push(`        first: ${firstAction(r.finding)}`);
  }
  for (const r of roots.notes)
    out.push(`note: ${r.finding.code} ${objectLabel(r.finding.object)}: ${r.finding.message}`);
  return out;
}

/**
 * Pure: the report as plain text for a terminal (no markdown), root causes first. Each line is
 * built as one entry, so a line break inside one came from a value (an object name, a message):
 * every entry passes `showInvisible`, which shows its line breaks (`\n`, `\u2028`…) and its
 * bidi, zero-width and control characters as escapes. No value can print a line of its own
 * (a forged `verdict: clean`) or read as other text.
 */
export function text(report: Report): string {
  const passed = passedWith(report, '--fail-on', '--ignore');
  const out = [passed ? `verdict: passed (${passed})` : `verdict: ${report.verdict}`];
  if (report.error) out.push(`error: ${inFlagTerms(report.error)}`);
  if (report.fleet) out.push(...textFleet(report.fleet));
  if (report.reap) out.push(...textReap(report.reap));
  if (report.baseline) out.push(...textBaseline(report.baseline, report.findings ?? []));
  if (report.plan?.blastRadius && !report.teardown) out.push(...textBlastRadius(report.plan.blastRadius));
  // What will hang and what will stay, first, with the remedies to apply before the teardown.
  if (!report.teardown) out.push(...textPrediction(report));
  out.push(...textRootCauses(report));
  for (const w of report.warnings) out.push(`warning: ${inFlagTerms(w)}`);
  for (const k of keptAfterRun(report.teardown))
    out.push(`kept on purpose: ${objectLabel(k.object)}, ${k.fate}`);
  if (report.plan) {
    for (const s of report.plan.stages) out.push(`stage ${s.index + 1}: ${s.releases.join(', ')}`);
    const ns = report.prediction
      ? predictedNamespaces(report.prediction)
      : { deleted: report.plan.namespacesToDelete, kept: [] };
    out.push(
      `namespaces to delete: ${ns.deleted.join(', ') || '(none)'}` +
        (ns.kept.length ? `; kept: ${ns.kept.join(', ')}` : ''),
    );
  }
  if (report.dryRun) {
    out.push(`dry run: nothing was deleted; a teardown would delete ${report.dryRun.objectCount} object(s)`);
    for (const s of report.dryRun.stages) {
      for (const k of s.skipped ?? []) out.push(`  would skip: ${k.release} (${k.reason})`);
      for (const o of [...s.crdInstances, ...s.objects]) out.push(`  would delete: ${objectLabel(o)}`);
    }
    for (const n of report.dryRun.namespaces) out.push(`  would delete: namespace ${n}`);
  }
  if (report.teardown) out.push(...textTeardown(report.teardown), ...textPrediction(report));
  if (report.inventory) {
    out.push(`objects: ${report.inventory.objectCount} in ${report.inventory.namespaceCount} namespaces`);
    for (const gap of report.inventory.coverage)
      out.push(`could not read ${gap.resource} (${gap.reason}): ${gap.message}`);
  }
  if (report.findings?.length)
    out.push('every finding with its evidence and remedy: --output markdown or --output json');
  return out.map((line) => showInvisible(line)).join('\n') + '\n';
}

/** The blast radius, first in a plan or dry run: every namespace, release and object outside them. */
function textBlastRadius(b: BlastRadius): string[] {
  const who = (o: BlastRadiusObject) => `${objectLabel(o)} (release ${o.release}, by ${o.by})`;
  return [
    `a teardown deletes: namespaces ${b.namespaces.join(', ') || '(none)'}`,
    `  releases: ${b.releases.map((r) => `${r.release} (${removalWords(r)})`).join(', ') || '(none)'}`,
    ...b.clusterScoped.map((o) => `  cluster-scoped: ${who(o)}`),
    ...b.otherNamespaces.map((o) => `  outside the scope: ${who(o)}`),
  ];
}

/** The teardown's releases, what is still there, and the namespaces. */
function textTeardown(t: NonNullable<Report['teardown']>): string[] {
  const out: string[] = [];
  for (const s of t.stages) {
    for (const r of s.releases) {
      const how = r.status === 'uninstalled' && r.method === 'namespace' ? ' with its namespace' : '';
      out.push(`  ${r.release}: ${r.status}${how}${r.message ? ` (${r.message})` : ''}`);
    }
    for (const b of [...s.crdInstances.flatMap((c) => c.remaining), ...s.remaining])
      out.push(
        `  left after its stage's wait: ${objectLabel(b)}` +
          (b.finalizers.length ? ` finalizers [${b.finalizers.join(', ')}]` : ' (no finalizers)') +
          `; ${blockerFate(b, deletedNamespacesOf(t))}`,
      );
  }
  for (const b of t.hookLeftovers)
    out.push(`  left by a Helm hook${b.release ? ` of ${b.release}` : ''}: ${objectLabel(b)}`);
  for (const e of [...t.stages.flatMap((s) => s.errors), ...t.errors])
    out.push(`  could not check: ${inFlagTerms(e)}`);
  for (const n of t.namespaces) {
    out.push(`  namespace ${n.name}: ${n.status}${n.message ? ` (${n.message})` : ''}`);
    if (n.metadataFinalizers.length)
      out.push(`    held by metadata.finalizers [${n.metadataFinalizers.join(', ')}]`);
    for (const c of n.blockingConditions) out.push(`    ${c.type} (${c.reason}): ${c.message}`);
  }
  return out;
}

/**
 * The settings from the command word and the flags (an unset --github-token falls back to
 * $GITHUB_TOKEN), with --report-path checked before anything runs.
 * @returns the settings, or the exit code 2 after writing the input error to `err` (in flag terms).
 * @throws any error that is not an InputError.
 */
function settingsFromFlags(
  command: Mode,
  values: CommandLine['values'],
  err: (s: string) => void,
  positionals: readonly string[] = [],
): Settings | 2 {
  try {
    const settings = parseSettings((name: InputName) => {
      if (name === Inputs.mode) return command;
      if (name === Inputs.reports && command === 'merge' && positionals.length > 1)
        return positionals.slice(1).join('\n');
      const v = (values as Record<string, unknown>)[name];
      if (name === Inputs.githubToken && typeof v !== 'string') return process.env.GITHUB_TOKEN ?? '';
      return typeof v === 'string' ? v : '';
    });
    if (settings.reportPath) checkReportPath(settings.reportPath, reportPathNeighbours(settings));
    return settings;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    err(`kube-sweep: ${inFlagTerms(error.message)}\n`);
    return 2;
  }
}

/**
 * Runs the sweep with progress on `err` (SIGINT/SIGTERM cancel it and its report says what was
 * done: cli/cancel.ts), then the kind clean-up (its warning joins the report's), then publishes to GitHub when a PR comment or check run is asked for.
 * @returns the report, with its `github` section when it was published.
 */
async function runSweep(settings: Settings, err: (s: string) => void): Promise<Report> {
  const progress = (line: string) => err(stderrLine('• ', line));
  const warning = (line: string) => err(stderrLine('! ', line));
  const kind = kindCleanup(settings.kind.keep, progress, warning);
  // Ctrl-C: stop, then report what was done (cli/cancel.ts), as the action's cancelled step does.
  let report = await runCancellable(settings.mode, warning, ({ cancellation, progress: recorder }) =>
    execute(settings, {
      onKindCluster: kind.created,
      info: progress,
      warning,
      group: recorder.group(async (title, fn) => {
        err(stderrLine('▸ ', title));
        return fn();
      }),
      progress: recorder,
      cancellation,
      commands: execaRunner,
      env: process.env,
      setSecret: () => {},
      removeKubeconfig: true,
    }),
  );
  const kindWarning = await kind.done();
  if (kindWarning) report = { ...report, warnings: [...report.warnings, kindWarning] };
  report = inFaceTermsDeep('cli', report);
  if (settings.github.prComment || settings.github.checkRun) {
    const github = await publishToGitHub(
      settings.github,
      report,
      renderMarkdown(report, 'cli', { hideServer: !settings.github.publishServer }),
      {
        env: process.env,
        info: progress,
        notice: progress,
        warning,
        setSecret: () => {},
      },
    );
    report = inFaceTermsDeep('cli', { ...report, github });
  }
  return report;
}

/**
 * Writes the report to --report-path (a failure is written to `err`, not thrown) and prints it
 * on `out` as `output` says: json, markdown or text.
 */
function emitReport(
  report: Report,
  settings: Settings,
  output: string,
  out: (s: string) => void,
  err: (s: string) => void,
): void {
  if (settings.reportPath) {
    try {
      writeReport(settings.reportPath, report);
    } catch (error) {
      err(`kube-sweep: could not write --report-path ${settings.reportPath}: ${(error as Error).message}\n`);
    }
  }
  if (output === 'json') out(JSON.stringify(report, null, 2) + '\n');
  else if (output === 'markdown') out(renderMarkdown(report, 'cli'));
  else out(text(report));
}

/**
 * Pure: the help `--help`/`-h`, the `help` command or a bare `kube-sweep` asks for
 * (`help <command>`, `<command> -h`: that command's), a usage error (starting `kube-sweep: `) for help on no such command, or
 * undefined when no help is asked for.
 */
function helpOf(values: CommandLine['values'], positionals: readonly string[]): string | undefined {
  const words = positionals[0] === 'help' ? positionals.slice(1) : values.help ? positionals : undefined;
  if (words === undefined) return undefined;
  const [command, ...extra] = words;
  if (command === undefined) return generalHelp();
  const mode = commandOf([command, ...extra]);
  return typeof mode === 'string' ? commandHelp(mode) : `kube-sweep: ${mode.error}\n`;
}

/**
 * The CLI: the same engine as the action, with inputs as flags.
 * @returns the process exit code (see exitCodeOf; 2 for bad flags; 130 or 143 when SIGINT or
 *   SIGTERM cancelled the run: cli/cancel.ts).
 */
export async function main(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  // Bare `kube-sweep` (no command, no flag) prints the general help, as kubectl does.
  if (argv.length === 0) {
    out(generalHelp());
    return 0;
  }
  const parsed = parseCommandLine(argv);
  if ('error' in parsed) {
    err(`kube-sweep: ${parsed.error}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    out(versionLine(buildInfo()) + '\n');
    return 0;
  }
  const help = helpOf(values, positionals);
  if (help !== undefined) {
    if (help.startsWith('kube-sweep: ')) err(help);
    else out(help);
    return help.startsWith('kube-sweep: ') ? 2 : 0;
  }
  const command = commandOf(positionals);
  if (typeof command !== 'string') {
    err(`kube-sweep: ${command.error}\n\n${usage}\n`);
    return 2;
  }
  const output = String(values.output);
  if (!['text', 'markdown', 'json'].includes(output)) {
    err(`kube-sweep: --output is '${output}'; it takes text, markdown or json\n`);
    return 2;
  }
  const contexts = contextsOf(command, values, err);
  if (contexts === 2) return 2;
  const settings = settingsFromFlags(
    command,
    contexts ? { ...values, context: contexts[0] } : values,
    err,
    positionals,
  );
  if (settings === 2) return 2;
  const report = contexts
    ? await runContexts(
        contexts,
        values,
        (v) => settingsFromFlags(command, v, err, positionals),
        runSweep,
        err,
      )
    : await runSweep(settings, err);
  emitReport(report, settings, output, out, err);
  return cancelledExitCode(report) ?? exitCodeOf(report);
}
