import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

/** The files a runner gives a step: RUNNER_TEMP, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_STATE. */
export function runnerFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-e2e-'));
  const files = {
    RUNNER_TEMP: dir,
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STATE: join(dir, 'state'),
  };
  for (const f of [files.GITHUB_STEP_SUMMARY, files.GITHUB_OUTPUT, files.GITHUB_STATE]) writeFileSync(f, '');
  return files;
}
