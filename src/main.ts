import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { Outputs, State } from './config/inputs.js';
import { parseSettings, type InputReader, type Settings } from './config/settings.js';
import { openCluster, type OpenCluster } from './cluster/open.js';
import { collectInventory } from './inventory/collect.js';
import { buildInventoryReport, type InventoryReport } from './report/inventory-report.js';
import { renderInventoryMarkdown } from './report/markdown.js';
import type { CommandRunner } from './util/command.js';

/** Everything the action touches outside itself; built from @actions/core in index.ts. */
export interface ActionPorts {
  readonly readInput: InputReader;
  readonly info: (line: string) => void;
  readonly warning: (line: string) => void;
  readonly group: <T>(title: string, fn: () => Promise<T>) => Promise<T>;
  readonly setSecret: (value: string) => void;
  readonly setOutput: (name: string, value: string) => void;
  readonly saveState: (name: string, value: string) => void;
  readonly writeSummary: (markdown: string) => Promise<void>;
  readonly setFailed: (message: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly commands: CommandRunner;
}

function errorMessage(error: unknown): string {
  const message = (error as Error)?.message;
  return message && message.trim() !== '' ? message : `unexpected error: ${String(error)}`;
}

function reportPathFor(settings: Settings | undefined, env: NodeJS.ProcessEnv): string {
  if (settings?.reportPath) return settings.reportPath;
  return join(env.RUNNER_TEMP ?? tmpdir(), 'kube-sweep-report.json');
}

/**
 * The action's main step: settings → cluster → inventory → report → verdict. The summary and
 * outputs are written in `finally`, so a failed run still explains itself; any error makes
 * the verdict `error` and fails the step (never a green "clean").
 * @returns the report (also written as JSON to `report-path`).
 */
export async function run(ports: ActionPorts): Promise<InventoryReport | undefined> {
  let settings: Settings | undefined;
  let cluster: OpenCluster | undefined;
  let report: InventoryReport | undefined;
  let failure: string | undefined;
  try {
    settings = parseSettings(ports.readInput);
    const s = settings;
    cluster = await ports.group('Connecting to the cluster', () =>
      openCluster(s, {
        env: ports.env,
        commands: ports.commands,
        setSecret: ports.setSecret,
        log: ports.info,
        onKindCluster: (kind) => {
          ports.saveState(State.kindClusterName, kind.name);
          ports.saveState(State.kindClusterCreated, String(kind.created));
          ports.saveState(State.kindKeep, String(s.kind.keep));
        },
      }),
    );
    ports.setOutput(Outputs.kubeconfigPath, cluster.kubeconfigPath);
    const open = cluster;
    const inventory = await ports.group('Reading the cluster (inventory)', () =>
      collectInventory(open.api, { pageSize: s.pageSize, concurrency: s.listConcurrency, log: ports.info }),
    );
    report = buildInventoryReport(inventory, open.loaded.context);
    for (const gap of report.coverage)
      ports.warning(`could not read ${gap.resource} (${gap.reason}): ${gap.message}`);
  } catch (error) {
    failure = errorMessage(error);
  } finally {
    await cluster?.api.close();
  }
  const path = reportPathFor(settings, ports.env);
  const final: InventoryReport =
    failure !== undefined || !report
      ? {
          schemaVersion: 1,
          tool: 'kube-sweep',
          mode: 'inventory',
          verdict: 'error',
          cluster: {
            server: cluster?.loaded.server ?? '',
            version: cluster?.serverVersion ?? '',
            context: cluster?.loaded.context ?? '',
          },
          takenAt: new Date().toISOString(),
          counts: {},
          objectCount: 0,
          namespaceCount: 0,
          failedGroupVersions: [],
          coverage: [],
          stats: { discoveryMs: 0, listMs: 0, resourcesListed: 0, pages: 0, requests: 0 },
          error: failure ?? 'no report was produced',
        }
      : report;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(final, null, 2) + '\n');
    ports.setOutput(Outputs.reportPath, path);
    ports.setOutput(Outputs.verdict, final.verdict);
    ports.setOutput(Outputs.objectCount, String(final.objectCount));
    ports.setOutput(Outputs.coverageGaps, String(final.coverage.length));
    await ports.writeSummary(renderInventoryMarkdown(final));
  } catch (error) {
    ports.warning(`could not write the report or summary: ${errorMessage(error)}`);
  }
  if (final.verdict === 'error') ports.setFailed(final.error ?? 'kube-sweep could not run');
  else ports.info(`verdict: ${final.verdict} (${final.objectCount} objects; report: ${path})`);
  return final;
}
