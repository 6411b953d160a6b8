/**
 * One strategy per mode (inventory, plan, scan, teardown) over the open cluster: the table
 * `modes`. Each strategy's steps live in src/engine/ by mode: ports.ts (what they share),
 * scan.ts, plan.ts (the plan, the dry run and the prediction), teardown.ts (the proof after the
 * stages).
 */
import type { OpenCluster } from './cluster/open.js';
import type { Settings } from './config/settings.js';
import { InputDefaults } from './config/inputs.js';
import { inputRef, Inputs } from './words/input-words.js';
import { helmCli } from './helm/helm-cli.js';
import {
  inventoryVerdict,
  scanVerdict,
  summarizeInventory,
  summarizePlan,
  type Mode,
} from './report/report.js';
import { knownHangs } from './teardown/prediction.js';
import { contentCollections } from './teardown/namespace-content.js';
import { runTeardown, TeardownInterruptedError } from './teardown/run-teardown.js';
import type { TeardownResult } from './model/teardown-result.js';
import { type EnginePorts, type ReportBody, type RunInputs, readInventory } from './engine/ports.js';
import { type ScanOptions, namespacesOf, remediateThenRescan, scan, scanEnvironment } from './engine/scan.js';
import { resolveScope, scopeMatchRefusals } from './plan/scope.js';
import { checkBeforeTeardown, dryRunBody, plan, plannedBody, refusedBody } from './engine/plan.js';
import { provenTeardownBody, stoppedBody } from './engine/teardown.js';

/**
 * One strategy per mode: each reads what it needs from the cluster and returns the report
 * body (verdict included). They throw on errors that stop the run; main.ts turns those into
 * an `error` report.
 */
export const modes: Record<
  Exclude<Mode, 'merge' | 'reap'>,
  (settings: Settings, cluster: OpenCluster, ports: EnginePorts, run: RunInputs) => Promise<ReportBody>
> = {
  async inventory(settings, cluster, ports) {
    const inventory = summarizeInventory(await readInventory(settings, cluster, ports));
    return { verdict: inventoryVerdict(inventory), inventory, warnings: [] };
  },
  async scan(settings, cluster, ports, run) {
    const before = await readInventory(settings, cluster, ports);
    // require-match: a scope that matches no namespace is an error here too (a typo never scans clean).
    const unmatched = scopeMatchRefusals(settings.scope, resolveScope(settings.scope, namespacesOf(before)));
    if (unmatched.length > 0) return { verdict: 'error', error: unmatched.join('; '), warnings: [] };
    const environment = scanEnvironment(settings, before);
    const scanOptions: ScanOptions = run.baseline ? { baseline: run.baseline } : {};
    const first = await ports.group('Scanning for leftovers', async () =>
      scan(settings, before, environment, ports, scanOptions),
    );
    const { findings, failing, suppressed, inventory, remediation, error, baseline } =
      await remediateThenRescan(
        settings,
        cluster,
        ports,
        { ...first, inventory: before },
        environment,
        // The whole cluster is the scope only when scan-scope is cluster and no input narrows it.
        settings.scanScope === 'cluster' &&
          settings.scope.namespacePatterns.length === 0 &&
          settings.scope.selector.length === 0 &&
          settings.scope.releases.length === 0,
        scanOptions,
      );
    return {
      verdict: error ? 'error' : scanVerdict(failing, inventory.coverage.length),
      ...(error ? { error } : {}),
      inventory: summarizeInventory(inventory),
      findings,
      failing: failing.map((f) => f.key),
      ...(baseline ? { baseline } : {}),
      suppressed,
      ...(remediation ? { remediation } : {}),
      warnings: [],
    };
  },
  async plan(settings, cluster, ports, run) {
    const inventory = await readInventory(settings, cluster, ports);
    return plannedBody(settings, inventory, await plan(settings, cluster, inventory, ports), ports, run);
  },
  async teardown(settings, cluster, ports, run) {
    if (settings.stageTimeoutCapped) {
      ports.info(
        `${inputRef(Inputs.stageTimeout)} is capped at ${inputRef(Inputs.timeout)} (${settings.timeoutMs / 1000}s): the default ${InputDefaults['stage-timeout']} is longer, and ${inputRef(Inputs.stageTimeout)} was not set`,
      );
    }
    const inventory = await readInventory(settings, cluster, ports);
    const planned = await plan(settings, cluster, inventory, ports);
    if (planned.plan.refusals.length > 0) return refusedBody(inventory, planned);
    await checkBeforeTeardown(settings, planned, ports);
    const failedGroupVersions = new Set(inventory.failedGroupVersions.map((f) => f.groupVersion));
    if (settings.dryRun) return dryRunBody(settings, inventory, planned, ports, run);
    let teardown: TeardownResult;
    try {
      teardown = await runTeardown(
        planned.plan,
        {
          failedGroupVersions,
          timeoutMs: settings.timeoutMs,
          stageTimeoutMs: settings.stageTimeoutMs,
          uninstallConcurrency: settings.uninstallConcurrency,
          uninstallMode: settings.uninstallMode,
          knownHangs: knownHangs(planned.prediction),
          awaitKnownHangs: settings.awaitPredictedHangs,
        },
        {
          api: cluster.api,
          helm: helmCli(settings.helm, cluster.kubeconfigPath, ports.commands),
          resources: planned.resources,
          namespaceContent: (namespace) => contentCollections(inventory, namespace),
          log: ports.info,
          group: ports.group,
          ...(ports.progress ? { onReleaseDone: ports.progress.releaseDone } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof TeardownInterruptedError)) throw error;
      return stoppedBody(planned, error.partial, error.cause);
    }
    // Cancelled: what the teardown did, and no scan (main.ts writes the verdict and the message).
    if (ports.cancellation?.signal.aborted)
      return { verdict: 'error', plan: summarizePlan(planned.plan), teardown, warnings: planned.warnings };
    try {
      return await provenTeardownBody(settings, cluster, ports, planned, teardown, run);
    } catch (error) {
      // The scan afterwards failed: what the teardown did still goes into the report.
      return stoppedBody(planned, teardown, error);
    }
  },
};
