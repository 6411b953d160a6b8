import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../integration/support/cluster.js';

/** Parses the `name<<delimiter ... delimiter` entries @actions/core writes to GITHUB_OUTPUT/STATE. */
export function fileCommands(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(path, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join('\n');
  }
  return out;
}

/** Runs a bundled entry (`dist/index.js`, `dist/post/index.js`) as the runner does: `node <script>`. */
export async function runStep(script: string, env: Record<string, string>) {
  return execa(process.execPath, [join(repoRoot, script)], { env, extendEnv: true, reject: false });
}

/** The files and variables a runner gives one step of a job. */
export interface StepFiles {
  /** The job's temporary folder: the same for every step of the job. */
  readonly RUNNER_TEMP: string;
  readonly GITHUB_STEP_SUMMARY: string;
  readonly GITHUB_OUTPUT: string;
  readonly GITHUB_STATE: string;
  /** The step's id (`id:`), else `__self`, `__self_2`, ... for `uses: ./` steps without one. */
  readonly GITHUB_ACTION: string;
}

/** A job as a runner runs it: one RUNNER_TEMP, and the steps that share it. */
export interface RunnerJob {
  readonly RUNNER_TEMP: string;
  /** The next step of the job: its own file-command files, in the job's RUNNER_TEMP. */
  step(id?: string): StepFiles;
}

/**
 * A job as GitHub's runner (and nektos/act) gives it to its steps: ONE RUNNER_TEMP, created
 * when the job starts and shared by all its steps (main and post); each step gets its own
 * GITHUB_OUTPUT, GITHUB_STATE and GITHUB_STEP_SUMMARY files (the runner keeps them under
 * `$RUNNER_TEMP/_runner_file_commands/`) and GITHUB_ACTION (its id; without one, `__self` for the
 * first `uses: ./` step, then `__self_2`, ...). Two steps of one job therefore see the same
 * RUNNER_TEMP, as they do on a runner.
 */
export function runnerJob(): RunnerJob {
  const temp = mkdtempSync(join(tmpdir(), 'kube-sweep-e2e-'));
  const commands = join(temp, '_runner_file_commands');
  mkdirSync(commands);
  let steps = 0;
  let anonymous = 0;
  return {
    RUNNER_TEMP: temp,
    step(id?: string): StepFiles {
      steps++;
      const files = {
        GITHUB_STEP_SUMMARY: join(commands, `step_summary_${steps}`),
        GITHUB_OUTPUT: join(commands, `set_output_${steps}`),
        GITHUB_STATE: join(commands, `save_state_${steps}`),
      };
      for (const f of Object.values(files)) writeFileSync(f, '');
      if (id === undefined) anonymous++;
      const action = id ?? (anonymous === 1 ? '__self' : `__self_${anonymous}`);
      return { RUNNER_TEMP: temp, ...files, GITHUB_ACTION: action };
    },
  };
}

/** The files a runner gives the only step of a new job (`runnerJob().step()`). */
export function runnerFiles(): StepFiles {
  return runnerJob().step();
}
