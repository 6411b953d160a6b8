import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type ActionPorts } from '../../../src/action/main.js';
import type { Report } from '../../../src/report/report.js';
import { execaRunner } from '../../../src/util/command.js';
import { clusterEnv } from './cluster.js';

/** What an in-process action run produced. */
export interface ActionRun {
  readonly report: Report;
  readonly outputs: ReadonlyMap<string, string>;
  readonly failures: readonly string[];
  readonly log: readonly string[];
  readonly summary: string;
}

/**
 * Runs the action's main step in-process with these inputs against the local control plane
 * (kubeconfig and Helm 4 filled in unless given); `env` is added to, or replaces variables
 * of, the environment the step sees (GITHUB_* of a runner; KUBECONFIG or HOME for the
 * kubeconfig fallback; undefined removes one); `cwd` is the working folder (`mode: merge`'s globs).
 * `afterGroup` runs after each log group of the run ends, with its title (e.g. to change the
 * cluster right after the plan was taken). `onLine` sees each log line as it is written (e.g. to
 * act on the cluster while a teardown waits).
 */
export async function runAction(
  inputs: Record<string, string>,
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
  afterGroup?: (title: string) => Promise<void>,
  onLine?: (line: string) => void,
): Promise<ActionRun> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-run-'));
  const outputs = new Map<string, string>();
  const failures: string[] = [];
  const log: string[] = [];
  if (onLine)
    log.push = (...lines: string[]) => (lines.forEach(onLine), Array.prototype.push.apply(log, lines));
  let summary = '';
  const all: Record<string, string> = {
    kubeconfig: clusterEnv().kubeconfig,
    helm: clusterEnv().helm4,
    ...inputs,
  };
  const ports: ActionPorts = {
    readInput: (name) => all[name] ?? '',
    info: (l) => log.push(l),
    warning: (l) => log.push(`warning: ${l}`),
    group: async (title, fn) => {
      log.push(`## ${title}`);
      const out = await fn();
      await afterGroup?.(title);
      return out;
    },
    setSecret: () => {},
    setOutput: (k, v) => outputs.set(k, v),
    saveState: () => {},
    writeSummary: async (m) => {
      summary = m;
    },
    setFailed: (m) => failures.push(m),
    notice: (l) => log.push(`notice: ${l}`),
    env: { ...process.env, RUNNER_TEMP: dir, ...env },
    commands: execaRunner,
    ...(cwd ? { cwd } : {}),
  };
  const report = await run(ports);
  return { report, outputs, failures, log, summary };
}
