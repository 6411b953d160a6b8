import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { Inputs, inputWord } from '../words/input-words.js';
import { parseReport } from './read-report.js';
import type { Report } from './report.js';
import type { UnreadableReport } from './fleet.js';

/**
 * `mode: merge`: the report files the `reports` globs match (tinyglobby; relative to `cwd`, or
 * absolute when every glob is; sorted), each read and parsed. A file that cannot be read or parsed is an `unreadable` entry
 * with its reason, never an exception.
 * @throws Error naming the `reports` input when the globs match no file at all.
 */
export async function readReportFiles(
  patterns: readonly string[],
  cwd: string,
): Promise<{ reports: { file: string; report: Report }[]; unreadable: UnreadableReport[] }> {
  // Absolute globs give absolute paths, relative ones paths relative to cwd (as the user wrote them).
  const absolute = patterns.every((p) => isAbsolute(p));
  const found = await glob([...patterns], { cwd, onlyFiles: true, dot: true, expandDirectories: false });
  const files = found.map((f) => (absolute ? resolve(cwd, f) : f)).sort();
  if (files.length === 0)
    throw new Error(
      `${inputWord(Inputs.reports)} (${patterns.join(', ')}) matches no file under ${cwd}; give globs of report files, e.g. reports/**/*.json (what actions/download-artifact wrote)`,
    );
  const reports: { file: string; report: Report }[] = [];
  const unreadable: UnreadableReport[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, file), 'utf8');
    } catch (error) {
      unreadable.push({
        file,
        problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      });
      continue;
    }
    const parsed = parseReport(text);
    if ('problem' in parsed) unreadable.push({ file, problem: parsed.problem });
    else reports.push({ file, report: parsed.report });
  }
  return { reports, unreadable };
}
