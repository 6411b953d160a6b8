import { parseArgs } from 'node:util';
import { InputDefaults, Inputs, type InputName } from '../config/inputs.js';
import { InputError, parseSettings } from '../config/settings.js';
import { checkReportPath, execute, writeReport } from '../execute.js';
import { publishToGitHub } from '../report/github/publish.js';
import { renderMarkdown } from '../report/markdown.js';
import type { Report } from '../report/report.js';
import { execaRunner } from '../util/command.js';

const commands = ['teardown', 'plan', 'scan', 'inventory'] as const;

const usage = `Usage: kube-sweep <command> [options]

Commands:
  plan       show the teardown plan for the scope (stages, order, namespaces); changes nothing
  teardown   uninstall the releases in scope in order, wait until everything is gone,
             delete the scoped namespaces
  scan       find leftovers and orphans (stuck namespaces, unavailable APIServices, webhooks
             without a backend, stuck finalizers, orphans in missing namespaces, ...)
  inventory  read the whole cluster; report what was read and what could not be

Options (each is the action input of the same name):
${Object.values(Inputs)
  .filter((n) => n !== Inputs.mode)
  .map(
    (n) =>
      `  --${n.padEnd(22)} default: ${n === Inputs.githubToken ? '$GITHUB_TOKEN' : InputDefaults[n] === '' ? '(none)' : InputDefaults[n].replace(/\n/g, ' ')}`,
  )
  .join('\n')}
  --output <format>        text (default), markdown or json
  --help

Exit codes: 0 done (clean, planned, or inventory read), 1 leftovers (the teardown left things
behind, or findings over --fail-on), 2 it could not run (bad input, cluster unreachable).`;

/** Pure: the exit code of a report (0 done, 1 leftovers, 2 could not run). */
export function exitCodeOf(report: Report): number {
  if (report.verdict === 'error') return 2;
  if (report.verdict === 'leftovers') return 1;
  return 0;
}

function text(report: Report): string {
  const out = [`verdict: ${report.verdict}`];
  if (report.error) out.push(`error: ${report.error}`);
  for (const w of report.warnings) out.push(`warning: ${w}`);
  if (report.plan) {
    for (const s of report.plan.stages) out.push(`stage ${s.index + 1}: ${s.releases.join(', ')}`);
    out.push(`namespaces to delete: ${report.plan.namespacesToDelete.join(', ') || '(none)'}`);
  }
  if (report.dryRun) {
    out.push(`dry run: nothing was deleted; a teardown would delete ${report.dryRun.objectCount} object(s)`);
    for (const s of report.dryRun.stages)
      for (const o of [...s.crdInstances, ...s.objects])
        out.push(`  would delete: ${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`);
    for (const n of report.dryRun.namespaces) out.push(`  would delete: namespace ${n}`);
  }
  if (report.teardown) {
    for (const s of report.teardown.stages) {
      for (const r of s.releases)
        out.push(`  ${r.release}: ${r.status}${r.message ? ` (${r.message})` : ''}`);
      for (const b of [...s.crdInstances.flatMap((c) => c.remaining), ...s.remaining]) {
        out.push(
          `  still there: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}` +
            (b.finalizers.length ? ` finalizers [${b.finalizers.join(', ')}]` : ' (no finalizers)'),
        );
      }
    }
    for (const b of report.teardown.hookLeftovers) {
      out.push(`  left by a Helm hook: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}`);
    }
    for (const e of [...report.teardown.stages.flatMap((s) => s.errors), ...report.teardown.errors])
      out.push(`  could not check: ${e}`);
    for (const n of report.teardown.namespaces) {
      out.push(`  namespace ${n.name}: ${n.status}`);
      if (n.metadataFinalizers.length)
        out.push(`    held by metadata.finalizers [${n.metadataFinalizers.join(', ')}]`);
      for (const c of n.blockingConditions) out.push(`    ${c.type} (${c.reason}): ${c.message}`);
    }
  }
  for (const f of report.findings ?? []) {
    const where = `${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name}`;
    out.push(`${f.severity.toUpperCase().padEnd(7)} ${f.code} ${where}: ${f.message}`);
    if (f.remediation.commands.length)
      out.push(`        fix: ${f.remediation.commands.find((c) => !c.startsWith('#')) ?? ''}`);
  }
  if (report.inventory) {
    out.push(`objects: ${report.inventory.objectCount} in ${report.inventory.namespaceCount} namespaces`);
    for (const gap of report.inventory.coverage)
      out.push(`could not read ${gap.resource} (${gap.reason}): ${gap.message}`);
  }
  return out.join('\n') + '\n';
}

/**
 * Pure: `--ignore '- {code: X}'` as `--ignore=- {code: X}`. A value that starts with `-` (a YAML
 * list, as the README writes `ignore`) would otherwise be refused by node:util parseArgs as
 * "ambiguous"; only values that start with `- ` (dash, space) after a known input flag are joined.
 */
export function joinYamlListValues(argv: readonly string[]): string[] {
  const inputs = new Set<string>(Object.values(Inputs).map((n) => `--${n}`));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (inputs.has(argv[i]!) && next !== undefined && /^-\s/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]!);
  }
  return out;
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
  let parsed;
  try {
    parsed = parseArgs({
      args: joinYamlListValues(argv),
      allowPositionals: true,
      strict: true,
      options: {
        // `mode` is the command word, not a flag (a `--mode plan` beside `teardown` must not be ignored).
        ...Object.fromEntries(
          Object.values(Inputs)
            .filter((n) => n !== Inputs.mode)
            .map((n) => [n, { type: 'string' as const }]),
        ),
        output: { type: 'string', default: 'text' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    const message = (error as Error).message;
    err(
      /'--mode'/.test(message)
        ? `kube-sweep: --mode is not a flag: the command word is the mode (kube-sweep ${commands.join('|')} ...)\n`
        : `kube-sweep: ${message}\n\n${usage}\n`,
    );
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(usage + '\n');
    return 0;
  }
  const command = positionals[0] ?? '';
  if (!(commands as readonly string[]).includes(command)) {
    err(`kube-sweep: unknown command '${command}'; commands: ${commands.join(', ')}\n\n${usage}\n`);
    return 2;
  }
  const output = String(values.output);
  if (!['text', 'markdown', 'json'].includes(output)) {
    err(`kube-sweep: --output is '${output}'; it takes text, markdown or json\n`);
    return 2;
  }
  let settings;
  try {
    settings = parseSettings((name: InputName) => {
      if (name === Inputs.mode) return command;
      const v = (values as Record<string, unknown>)[name];
      if (name === Inputs.githubToken && typeof v !== 'string') return process.env.GITHUB_TOKEN ?? '';
      return typeof v === 'string' ? v : '';
    });
    if (settings.reportPath) checkReportPath(settings.reportPath);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    err(`kube-sweep: ${error.message.replace(/input '([^']+)'/g, '--$1')}\n`);
    return 2;
  }
  const progress = (line: string) => err(`• ${line}\n`);
  let report = await execute(settings, {
    info: progress,
    warning: (line) => err(`! ${line}\n`),
    group: async (title, fn) => {
      err(`▸ ${title}\n`);
      return fn();
    },
    commands: execaRunner,
    env: process.env,
    setSecret: () => {},
    removeKubeconfig: true,
  });
  if (settings.github.prComment || settings.github.checkRun) {
    const github = await publishToGitHub(settings.github, report, renderMarkdown(report), {
      env: process.env,
      info: progress,
      notice: progress,
      warning: (line) => err(`! ${line}\n`),
      setSecret: () => {},
    });
    report = { ...report, github };
  }
  if (settings.reportPath) {
    try {
      writeReport(settings.reportPath, report);
    } catch (error) {
      err(`kube-sweep: could not write --report-path ${settings.reportPath}: ${(error as Error).message}\n`);
    }
  }
  if (output === 'json') out(JSON.stringify(report, null, 2) + '\n');
  else if (output === 'markdown') out(renderMarkdown(report));
  else out(text(report));
  return exitCodeOf(report);
}
