import * as core from '@actions/core';
import { run } from './main.js';
import { execaRunner } from '../util/command.js';
import { escapeLogLine } from '../util/log-escape.js';
import { showInvisible } from '../util/show-invisible.js';
import type { Cancellation } from '../util/cancellation.js';

/**
 * Pure: text for an annotation, group title or failure message with every invisible character
 * but LF and tab shown as its escape (`\u202e`; util/show-invisible.ts); @actions/core then
 * writes LF as `%0A`, so the text stays one workflow command.
 */
function shown(text: string): string {
  return showInvisible(text, { keepLineFeeds: true });
}

/**
 * The action's main step, run by src/action/index.ts in the relaunched process with the SIGINT/SIGTERM
 * state it installed first. A cancelled run ends the process once its report, outputs and
 * summary are written: what it left running (a wait, a request) is not waited for.
 */
export async function runActionStep(cancellation: Cancellation): Promise<void> {
  core.debug(`node ${process.version} ${process.execArgv.join(' ')}`);
  await run({
    readInput: (name) => core.getInput(name),
    // core.info writes the line as it is; warning, error, notice, group and setFailed escape their
    // `%`, CR and LF themselves (@actions/core escapeData), so they need only `shown`.
    info: (line) => core.info(escapeLogLine(line)),
    warning: (line) => core.warning(shown(line)),
    error: (line) => core.error(shown(line)),
    group: (title, fn) => core.group(shown(title), fn),
    setSecret: (value) => core.setSecret(value),
    setOutput: (name, value) => core.setOutput(name, value),
    saveState: (name, value) => core.saveState(name, value),
    writeSummary: async (markdown) => {
      await core.summary.addRaw(markdown).write();
    },
    setFailed: (message) => core.setFailed(shown(message)),
    notice: (message) => core.notice(shown(message)),
    env: process.env,
    commands: execaRunner,
    cancellation,
  }).catch((error: unknown) =>
    core.setFailed(shown(`kube-sweep crashed: ${(error as Error)?.message || String(error)}`)),
  );
  const cancelled = cancellation.cause() !== undefined;
  cancellation.dispose();
  if (cancelled) process.exit();
}
