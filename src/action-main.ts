import * as core from '@actions/core';
import { run } from './main.js';
import { execaRunner } from './util/command.js';
import { escapeLogLine } from './util/log-escape.js';
import type { Cancellation } from './util/cancellation.js';

/**
 * The action's main step, run by src/index.ts in the relaunched process with the SIGINT/SIGTERM
 * state it installed first. A cancelled run ends the process once its report, outputs and
 * summary are written: what it left running (a wait, a request) is not waited for.
 */
export async function runActionStep(cancellation: Cancellation): Promise<void> {
  core.debug(`node ${process.version} ${process.execArgv.join(' ')}`);
  await run({
    readInput: (name) => core.getInput(name),
    // core.info writes the line as it is; warning, error, notice, group and setFailed escape their
    // text themselves (@actions/core escapeData), so only info needs escapeLogLine.
    info: (line) => core.info(escapeLogLine(line)),
    warning: (line) => core.warning(line),
    error: (line) => core.error(line),
    group: (title, fn) => core.group(title, fn),
    setSecret: (value) => core.setSecret(value),
    setOutput: (name, value) => core.setOutput(name, value),
    saveState: (name, value) => core.saveState(name, value),
    writeSummary: async (markdown) => {
      await core.summary.addRaw(markdown).write();
    },
    setFailed: (message) => core.setFailed(message),
    notice: (message) => core.notice(message),
    env: process.env,
    commands: execaRunner,
    cancellation,
  }).catch((error: unknown) =>
    core.setFailed(`kube-sweep crashed: ${(error as Error)?.message || String(error)}`),
  );
  const cancelled = cancellation.cause() !== undefined;
  cancellation.dispose();
  if (cancelled) process.exit();
}
