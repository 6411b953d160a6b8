import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';

/*
 * The runner's file commands written without @actions/core, for the entry points before the
 * Node version is known to be right (src/index.ts, src/post-entry.ts): this module may use
 * nothing newer than Node 18, since it runs on whatever `node` the runner has.
 */

/**
 * Appends `name=value` to the runner's GITHUB_OUTPUT file in the multi-line form
 * @actions/core writes (`name<<delimiter`, the value, the delimiter). Does nothing when
 * GITHUB_OUTPUT is not set (outside a runner); a file that cannot be written is ignored (the
 * step fails anyway, and says why on stdout).
 */
export function appendOutput(env: NodeJS.ProcessEnv, name: string, value: string): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  const delimiter = `ghadelimiter_${randomUUID()}`;
  try {
    appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
  } catch {
    // the ::error:: line on stdout still explains the failure
  }
}

/** Appends markdown to the runner's GITHUB_STEP_SUMMARY file; nothing when it is not set or not writable. */
export function appendSummary(env: NodeJS.ProcessEnv, markdown: string): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return;
  try {
    appendFileSync(file, markdown);
  } catch {
    // the ::error:: line on stdout still explains the failure
  }
}
