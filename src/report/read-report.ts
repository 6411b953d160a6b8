import { readFileSync } from 'node:fs';
import { inputRef, Inputs, inputWord } from '../words/input-words.js';
import type { Baseline } from './baseline.js';
import type { Report } from './report.js';
import { findingsOfReport } from './fleet.js';

/** The report schema versions this kube-sweep reads (schema/report.v<N>.schema.json). */
export const readableSchemaVersions: readonly number[] = [1];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Pure: a report from the text of a report file, or why it cannot be read: not JSON (a file cut
 * short while written or uploaded), not a kube-sweep report, a schemaVersion this version does
 * not know, or the fields a reader needs missing. Only the shape readers rely on is checked
 * (verdict, cluster, findings); the file is otherwise trusted as kube-sweep wrote it.
 */
export function parseReport(text: string): { report: Report } | { problem: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const why = text.trim() === '' ? 'the file is empty' : (error as Error).message;
    return { problem: `not complete JSON, truncated or not a report (${why})` };
  }
  if (!isObject(doc) || doc.tool !== 'kube-sweep')
    return { problem: 'not a kube-sweep report (no `tool: kube-sweep`)' };
  if (!readableSchemaVersions.includes(doc.schemaVersion as number))
    return {
      problem: `schemaVersion ${JSON.stringify(doc.schemaVersion)}, which this kube-sweep does not read (it reads ${readableSchemaVersions.join(', ')}); merge with the kube-sweep version that wrote it`,
    };
  if (typeof doc.verdict !== 'string' || !isObject(doc.cluster))
    return { problem: 'no verdict or cluster: not a complete report' };
  const findingLists = [
    doc.findings,
    ...(Array.isArray(doc.environments)
      ? doc.environments.map((e) => (isObject(e) ? e.findings : undefined))
      : []),
  ];
  if (findingLists.some((l) => l !== undefined && !Array.isArray(l)))
    return { problem: '`findings` is not a list: not a complete report' };
  return { report: doc as unknown as Report };
}

/**
 * Reads the `baseline` input's file.
 * @throws Error naming the input, the file and what is wrong with it, and the fix.
 */
export function readBaseline(path: string): Baseline {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `${inputWord(Inputs.baseline)} is '${path}', which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the ${inputRef(Inputs.reportPath)} file of an earlier run, or leave it empty (nothing was done)`,
    );
  }
  const parsed = parseReport(text);
  if ('problem' in parsed)
    throw new Error(
      `${inputWord(Inputs.baseline)} is '${path}': ${parsed.problem}; give the ${inputRef(Inputs.reportPath)} file of an earlier run, or leave it empty (nothing was done)`,
    );
  return {
    path,
    ...(parsed.report.generatedAt ? { generatedAt: parsed.report.generatedAt } : {}),
    findings: findingsOfReport(parsed.report),
  };
}
