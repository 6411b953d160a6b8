#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { InputDefaults, Inputs, type InputName } from '../config/inputs.js';
import { parseSettings } from '../config/settings.js';
import { openCluster, type OpenCluster } from '../cluster/open.js';
import { collectInventory } from '../inventory/collect.js';
import { buildInventoryReport } from '../report/inventory-report.js';
import { renderInventoryMarkdown } from '../report/markdown.js';
import { execaRunner } from '../util/command.js';

const usage = `Usage: kube-sweep inventory [options]

Reads the whole cluster (discovery + a metadata list of every resource) and reports what it
read and what it could not read.

Options (each is the action input of the same name):
${Object.values(Inputs)
  .filter((n) => n !== Inputs.mode)
  .map((n) => `  --${n.padEnd(20)} default: ${InputDefaults[n] === '' ? '(none)' : InputDefaults[n]}`)
  .join('\n')}
  --output <format>      text (default), markdown or json
  --help

Exit codes: 0 the run completed (see the verdict), 2 it could not run (bad input, cluster unreachable).`;

/**
 * The CLI: the same engine as the action, with inputs as flags.
 * @returns the process exit code: 0 done, 2 could not run.
 */
export async function main(
  argv: string[],
  out: (s: string) => void,
  err: (s: string) => void,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...Object.fromEntries(Object.values(Inputs).map((n) => [n, { type: 'string' as const }])),
        output: { type: 'string', default: 'text' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    err(`kube-sweep: ${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(usage + '\n');
    return 0;
  }
  const command = positionals[0] ?? '';
  if (command !== 'inventory') {
    err(`kube-sweep: unknown command '${command}'; commands: inventory\n\n${usage}\n`);
    return 2;
  }
  const output = String(values.output);
  if (!['text', 'markdown', 'json'].includes(output)) {
    err(`kube-sweep: --output is '${output}'; it takes text, markdown or json\n`);
    return 2;
  }
  let cluster: OpenCluster | undefined;
  try {
    const settings = parseSettings((name: InputName) => {
      if (name === Inputs.mode) return command;
      const v = (values as Record<string, unknown>)[name];
      return typeof v === 'string' ? v : '';
    });
    const progress = (line: string) => err(`• ${line}\n`);
    cluster = await openCluster(settings, {
      env: process.env,
      commands: execaRunner,
      setSecret: () => {},
      log: progress,
    });
    const inventory = await collectInventory(cluster.api, {
      pageSize: settings.pageSize,
      concurrency: settings.listConcurrency,
      log: progress,
    });
    const report = buildInventoryReport(inventory, cluster.loaded.context);
    if (output === 'json') out(JSON.stringify(report, null, 2) + '\n');
    else if (output === 'markdown') out(renderInventoryMarkdown(report));
    else {
      out(
        `verdict: ${report.verdict}\nobjects: ${report.objectCount} in ${report.namespaceCount} namespaces\n`,
      );
      const width = Math.max(8, ...Object.keys(report.counts).map((k) => k.length));
      for (const [resource, count] of Object.entries(report.counts))
        out(`  ${resource.padEnd(width)} ${count}\n`);
      for (const gap of report.coverage)
        out(`could not read ${gap.resource} (${gap.reason}): ${gap.message}\n`);
    }
    return 0;
  } catch (error) {
    err(`kube-sweep: ${(error as Error)?.message || String(error)}\n`);
    return 2;
  } finally {
    await cluster?.api.close();
  }
}

process.exitCode = await main(
  process.argv.slice(2),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
