import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { InputDefaults, Inputs, type InputName } from '../config/inputs.js';
import { InputError, parseSettings, type Settings } from '../config/settings.js';
import { checkReportPath, execute, writeReport } from '../execute.js';
import { publishToGitHub } from '../report/github/publish.js';
import { blockerFate, deletedNamespacesOf, keptAfterRun, renderMarkdown } from '../report/markdown.js';
import { firstAction, objectLabel, rootCauseLabel, rootCausesOf } from '../report/root-causes.js';
import type { Report } from '../report/report.js';
import { deleteKindCluster, type KindCluster } from '../cluster/kind.js';
import { execaRunner } from '../util/command.js';
import { cleanupOnSignal } from '../util/signal-cleanup.js';
import { closestMatch } from '../util/edit-distance.js';
import { inFlagTerms } from '../report/face.js';
import { textBaseline } from '../report/baseline-markdown.js';
import { textReap } from '../report/reap-markdown.js';
import { textFleet } from '../report/fleet-markdown.js';
import { contextsOf, runContexts } from './contexts.js';
import { buildInfo, versionLine } from './version.js';

const commands = ['teardown', 'plan', 'scan', 'inventory', 'reap', 'merge'] as const;

/** A command word: the mode of the run. */
type Mode = (typeof commands)[number];

/** What an empty value means, for the inputs whose default is no value. */
const emptyMeans: Partial<Record<InputName, string>> = {
  [Inputs.kubeconfig]: '$KUBECONFIG (its files merged), then ~/.kube/config',
  [Inputs.context]: "the kubeconfig's current-context",
  [Inputs.scanScope]: 'cluster for scan, environment otherwise',
  [Inputs.reportPath]: 'no file (--output json prints the report)',
  [Inputs.githubToken]: '$GITHUB_TOKEN',
  [Inputs.reports]: 'the words after merge',
  [Inputs.olderThan]: 'no age condition',
  [Inputs.baseline]: 'no comparison',
  [Inputs.clusterName]: "the context's name",
};

/** The three ways to install (README "CLI" and docs/install.md say the same). */
const install = `Install (any one of):
  npm i -g kube-sweep                npm package (Node 24); or run it once: npx kube-sweep scan ...
  kube-sweep-linux-x64               single executable, no Node needed (scripts/sea.mjs builds it)
  kubectl-sweep on PATH              kubectl plugin: kubectl sweep scan ... (the same binary renamed,
                                     or npm i -g, or krew: kubectl krew install --manifest=plugins/sweep.yaml)`;

/** Pure: rows of two columns, the first padded to the widest (plus two spaces). */
function columns(rows: readonly (readonly [string, string])[], indent = '  '): string[] {
  const width = Math.max(...rows.map(([a]) => a.length)) + 2;
  return rows.map(([a, b]) => `${indent}${a.padEnd(width)}${b}`.trimEnd());
}

/** The help text (`--help`, and after a missing or unknown command). */
export const usage = [
  'Usage: kube-sweep <command> [options]',
  '',
  'Commands:',
  ...columns([
    ['plan', 'show the teardown plan for the scope (stages, order, namespaces); changes nothing'],
    ['teardown', 'uninstall the releases in scope in order, wait until everything is gone,'],
    ['', 'delete the scoped namespaces'],
    ['scan', 'find leftovers and orphans (stuck namespaces, unavailable APIServices, webhooks'],
    ['', 'without a backend, stuck finalizers, orphans in missing namespaces, ...)'],
    ['inventory', 'read the whole cluster; report what was read and what could not be'],
    ['reap', 'find the environments (--environments pr-{id}-*, --environment-label) and tear'],
    ['', 'down the abandoned ones (--older-than, --pr-state closed, --abandoned-label),'],
    ['', 'each on its own, --reap-concurrency at once; --dry-run true lists them'],
    ['merge <glob>...', 'merge report files (--report-path of scans of many clusters) into one'],
    ['', 'fleet summary, judged by one --fail-on'],
  ]),
  '',
  'Several clusters: scan --context a,b (or --all-contexts) scans those contexts of the',
  'kubeconfig at once and prints one fleet summary, as merge does.',
  '',
  'Options (each is the action input of the same name; action.yml describes them):',
  ...columns([
    ...Object.values(Inputs)
      .filter((n) => n !== Inputs.mode)
      .map((n): [string, string] => [
        `--${n} <value>`,
        `default: ${emptyMeans[n] ?? (InputDefaults[n] === '' ? '(none)' : InputDefaults[n].replace(/\n/g, ' '))}`,
      ]),
    ['--output <format>', 'text (default), markdown or json'],
    ['--all-contexts', 'scan: every context of the kubeconfig (see Several clusters)'],
    ['--version', 'print the version and the commit it was built from'],
    ['--help', 'this text'],
  ]),
  '',
  'The cluster: --kubeconfig takes a path, the kubeconfig YAML or its base64; without it the',
  'files of $KUBECONFIG are read (merged as kubectl merges them), else ~/.kube/config.',
  '--cluster kind creates a kind cluster instead (docker and kind on PATH).',
  '',
  'Exit codes: 0 done (clean, planned, or inventory read), 1 leftovers (the teardown left things',
  'behind, or findings over --fail-on), 2 it could not run (a usage error, bad input, cluster',
  'unreachable).',
].join('\n');

export { inFlagTerms };

/**
 * `--cluster kind` in the CLI: the cluster the run created is deleted when the run ends, and on
 * SIGINT/SIGTERM before the process exits (util/signal-cleanup.ts), unless `--kind-keep true`;
 * a cluster that existed before (reused) is never deleted. This is what the action's post step
 * does (src/post.ts); a signal that arrives while `kind create cluster` itself runs is left to kind.
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
        info(`deleted kind cluster '${cluster!.name}' (created by this run; --kind-keep true keeps it)`);
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
      else if (keep) info(`kind cluster '${kind.name}' is kept (--kind-keep true)`);
      else unregister = cleanupOnSignal(async () => void (await remove()));
    },
    done: async (): Promise<string | undefined> => {
      if (!unregister) return undefined;
      unregister();
      return remove();
    },
  };
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

/** Pure: the report as plain text for a terminal (no markdown), root causes first. */
export function text(report: Report): string {
  const out = [`verdict: ${report.verdict}`];
  if (report.error) out.push(`error: ${inFlagTerms(report.error)}`);
  if (report.fleet) out.push(...textFleet(report.fleet));
  if (report.reap) out.push(...textReap(report.reap));
  if (report.baseline) out.push(...textBaseline(report.baseline, report.findings ?? []));
  out.push(...textRootCauses(report));
  for (const w of report.warnings) out.push(`warning: ${inFlagTerms(w)}`);
  for (const k of keptAfterRun(report.teardown))
    out.push(`kept on purpose: ${objectLabel(k.object)}, ${k.fate}`);
  if (report.plan) {
    for (const s of report.plan.stages) out.push(`stage ${s.index + 1}: ${s.releases.join(', ')}`);
    out.push(`namespaces to delete: ${report.plan.namespacesToDelete.join(', ') || '(none)'}`);
  }
  if (report.dryRun) {
    out.push(`dry run: nothing was deleted; a teardown would delete ${report.dryRun.objectCount} object(s)`);
    for (const s of report.dryRun.stages)
      for (const o of [...s.crdInstances, ...s.objects]) out.push(`  would delete: ${objectLabel(o)}`);
    for (const n of report.dryRun.namespaces) out.push(`  would delete: namespace ${n}`);
  }
  if (report.teardown) out.push(...textTeardown(report.teardown));
  if (report.inventory) {
    out.push(`objects: ${report.inventory.objectCount} in ${report.inventory.namespaceCount} namespaces`);
    for (const gap of report.inventory.coverage)
      out.push(`could not read ${gap.resource} (${gap.reason}): ${gap.message}`);
  }
  if (report.findings?.length)
    out.push('every finding with its evidence and remedy: --output markdown or --output json');
  return out.join('\n') + '\n';
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
  for (const b of t.hookLeftovers) out.push(`  left by a Helm hook: ${objectLabel(b)}`);
  for (const e of [...t.stages.flatMap((s) => s.errors), ...t.errors])
    out.push(`  could not check: ${inFlagTerms(e)}`);
  for (const n of t.namespaces) {
    out.push(`  namespace ${n.name}: ${n.status}`);
    if (n.metadataFinalizers.length)
      out.push(`    held by metadata.finalizers [${n.metadataFinalizers.join(', ')}]`);
    for (const c of n.blockingConditions) out.push(`    ${c.type} (${c.reason}): ${c.message}`);
  }
  return out;
}

/**
 * The CLI's flags for node:util parseArgs: every input but `mode` (the command word is the mode:
 * a `--mode plan` beside `teardown` must not be ignored) takes a value; then --output, --help
 * and --version.
 */
const flags = {
  ...Object.fromEntries(
    Object.values(Inputs)
      .filter((n) => n !== Inputs.mode)
      .map((n) => [n, { type: 'string' as const }]),
  ),
  output: { type: 'string', default: 'text' },
  'all-contexts': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
  version: { type: 'boolean', default: false },
} satisfies ParseArgsOptionsConfig;

/** What the command line holds once it parsed: the flags' values and the command word(s). */
export interface CommandLine {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** How to get help: the last line of a usage error about an option. */
const seeHelp = 'run kube-sweep --help for the commands and options';

/**
 * A value after a flag may start with `-` when it is a negative number or duration (`-1`,
 * `-5m`: the input then says what it takes) or a YAML list item (`- {code: X}`, as the README
 * writes `ignore`); anything else that starts with `-` is taken for a flag given no value.
 */
const dashValue = /^-(\d|\.\d|\s)/;

/**
 * Pure: reads the command line (node:util parseArgs, with our own checks on its tokens instead
 * of its messages). A usage error is a message naming the flag and the fix: an unknown option
 * (with the closest known one, util/edit-distance.ts), `--mode`, a flag with no value, a value
 * that looks like a flag, a value given to --help or --version.
 * @returns the values and positionals, or `{ error }` (the CLI exits 2 with it).
 */
export function parseCommandLine(argv: readonly string[]): CommandLine | { readonly error: string } {
  const { values, positionals, tokens } = parseArgs({
    args: [...argv],
    options: flags,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const known = Object.keys(flags);
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const flag = t.rawName;
    if (t.name === Inputs.mode)
      return {
        error: `--mode is not a flag: the command word is the mode (kube-sweep ${commands.join('|')} ...)`,
      };
    const spec = (flags as Record<string, { type: 'string' | 'boolean' }>)[t.name];
    if (!spec) {
      const near = flag.startsWith('--') ? closestMatch(t.name, known) : undefined;
      return {
        error: `unknown option ${flag}${near ? `; did you mean --${near}?` : ''}\n${seeHelp}`,
      };
    }
    if (spec.type === 'boolean' && t.value !== undefined)
      return { error: `${flag} takes no value (it is given '${t.value}')\n${seeHelp}` };
    if (spec.type !== 'string') continue;
    if (t.value === undefined) return { error: `${flag} needs a value: ${flag} <value>\n${seeHelp}` };
    if (t.inlineValue || !t.value.startsWith('-') || dashValue.test(t.value)) continue;
    const next = t.value.replace(/^--?([^=]*).*$/s, '$1');
    return {
      error:
        next === Inputs.mode || Object.hasOwn(flags, next)
          ? `${flag} needs a value before ${t.value}: ${flag} <value>\n${seeHelp}`
          : `${flag} is followed by '${t.value}', which starts with '-' and so is not taken as its value; ` +
            `to give it as the value, write ${flag}=${t.value}`,
    };
  }
  return { values: values as CommandLine['values'], positionals };
}

/**
 * Pure: the command word, or a usage error: none given, more than one, or not a command (with
 * the closest command).
 */
export function commandOf(positionals: readonly string[]): Mode | { readonly error: string } {
  const [command, ...extra] = positionals;
  if (command === 'merge') return command;
  if (command === undefined)
    return { error: `a command is needed: ${commands.join(', ')} (kube-sweep <command> [options])` };
  if (!(commands as readonly string[]).includes(command)) {
    const near = closestMatch(command, commands);
    return {
      error: `unknown command '${command}'${near ? `; did you mean ${near}?` : ''}; commands: ${commands.join(', ')}`,
    };
  }
  if (extra.length)
    return {
      error: `'${extra[0]}' follows the command '${command}', which takes no argument: give everything else as options (the scope with --namespaces, --selector or --releases)`,
    };
  return command as Mode;
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
    if (settings.reportPath) checkReportPath(settings.reportPath);
    return settings;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    err(`kube-sweep: ${inFlagTerms(error.message)}\n`);
    return 2;
  }
}

/**
 * Runs the sweep with progress on `err`, then the kind clean-up (its warning joins the
 * report's), then publishes to GitHub when a PR comment or check run is asked for.
 * @returns the report, with its `github` section when it was published.
 */
async function runSweep(settings: Settings, err: (s: string) => void): Promise<Report> {
  const progress = (line: string) => err(`• ${inFlagTerms(line)}\n`);
  const kind = kindCleanup(settings.kind.keep, progress, (line) => err(`! ${inFlagTerms(line)}\n`));
  let report = await execute(settings, {
    onKindCluster: kind.created,
    info: progress,
    warning: (line) => err(`! ${inFlagTerms(line)}\n`),
    group: async (title, fn) => {
      err(`▸ ${title}\n`);
      return fn();
    },
    commands: execaRunner,
    env: process.env,
    setSecret: () => {},
    removeKubeconfig: true,
  });
  const kindWarning = await kind.done();
  if (kindWarning) report = { ...report, warnings: [...report.warnings, kindWarning] };
  if (settings.github.prComment || settings.github.checkRun) {
    const github = await publishToGitHub(settings.github, report, renderMarkdown(report, 'cli'), {
      env: process.env,
      info: progress,
      notice: progress,
      warning: (line) => err(`! ${line}\n`),
      setSecret: () => {},
    });
    report = { ...report, github };
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
 * The CLI: the same engine as the action, with inputs as flags.
 * @returns the process exit code (see exitCodeOf; 2 for bad flags).
 */
export async function main(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  const parsed = parseCommandLine(argv);
  if ('error' in parsed) {
    err(`kube-sweep: ${parsed.error}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(`${install}\n\n${usage}\n`);
    return 0;
  }
  if (values.version) {
    out(versionLine(buildInfo()) + '\n');
    return 0;
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
  return exitCodeOf(report);
}
