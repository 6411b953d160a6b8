/**
 * What every mode's strategy shares (engine.ts `modes`): the ports the engine is given, what a run
 * brings besides the settings, the report body a strategy returns, and reading the inventory.
 */
import { coverageWarnings } from '../report/coverage-lines.js';
import type { OpenCluster } from '../cluster/open.js';
import type { Settings } from '../config/settings.js';
import { collectInventory } from '../inventory/collect.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { Report } from '../report/report.js';
import type { CommandRunner } from '../util/command.js';
import type { Baseline } from '../report/baseline.js';
import type { Cancellation } from '../util/cancellation.js';
import type { ProgressRecorder } from '../report/cancelled.js';

/** What the engine needs besides the open cluster: logs, log groups and a command runner. */
export interface EnginePorts {
  readonly info: (line: string) => void;
  readonly warning: (line: string) => void;
  /** An error annotation (`::error::` in a workflow); findings that fail the step. Default: `warning`. */
  readonly error?: (line: string) => void;
  readonly group: <T>(title: string, fn: () => Promise<T>) => Promise<T>;
  readonly commands: CommandRunner;
  /**
   * The action's SIGINT/SIGTERM state (util/cancellation.ts): once aborted, execute.ts sends no
   * request and starts no command, and a teardown ends after its stage's work in flight.
   */
  readonly cancellation?: Cancellation;
  /** Records what the run did, for the report of a cancelled run (report/cancelled.ts). */
  readonly progress?: ProgressRecorder;
}

/** What a mode's strategy returns: the report without its head (schema version, tool, mode, cluster). */
export type ReportBody = Omit<Report, 'schemaVersion' | 'tool' | 'mode' | 'cluster'>;

/** What a run brings besides the settings, read by execute.ts before the cluster is opened. */
export interface RunInputs {
  /** The `baseline` input's report, read (report/read-report.ts). */
  readonly baseline?: Baseline;
}

/** Reads the cluster's inventory in a log group, and warns of each resource it could not read. */
export async function readInventory(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts,
): Promise<Inventory> {
  const inventory = await ports.group('Reading the cluster (inventory)', () =>
    collectInventory(cluster.api, {
      pageSize: settings.pageSize,
      concurrency: settings.listConcurrency,
      log: ports.info,
      ...(settings.etcd ? { etcd: settings.etcd, etcdTimeoutMs: settings.requestTimeoutMs } : {}),
    }),
  );
  for (const line of coverageWarnings(inventory.coverage, settings.mode)) ports.warning(line);
  return inventory;
}
