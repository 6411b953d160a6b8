import { renderFaceWords, type InputName } from '../words/input-words.js';

/**
 * Who reads a rendering: the GitHub Action (its inputs, `stage-timeout`; its messages say
 * `input 'x'`) or the CLI (flags, `--stage-timeout`). The run's messages carry both faces'
 * words where they name an input (config/inputs.ts `byFace`); each face renders its own.
 */
export type Face = 'action' | 'cli';

/** Pure: how `face` names an input: `stage-timeout` (action) or `--stage-timeout` (CLI). */
export function inputName(face: Face, name: InputName): string {
  return face === 'cli' ? `--${name}` : name;
}

/** Pure: an input with its value as `face` writes it: `remediate: safe` or `--remediate safe`. */
export function inputSetting(face: Face, name: InputName, value: string): string {
  return face === 'cli' ? `--${name} ${value}` : `${name}: ${value}`;
}

/**
 * Pure: a message in `face`'s words. A message names an input with the words of
 * config/inputs.ts (`inputWord`, `inputRef`, `inputSet`, `inputEmpty`, `byFace`), which carry
 * both faces' words as data; this picks `face`'s and removes the marks. Nothing is guessed from
 * the prose: an input name written any other way is left as it is.
 */
export function inFaceTerms(face: Face, message: string): string {
  return renderFaceWords(face, message);
}

/** Pure: a message in the CLI's words (`inFaceTerms('cli', message)`). */
export function inFlagTerms(message: string): string {
  return renderFaceWords('cli', message);
}

/**
 * Pure: `value` (a report, or any JSON-like data) with every string in `face`'s words: what a
 * face does to the run's report before it writes, prints or publishes it, so that no mark of
 * `byFace` reaches a reader.
 */
export function inFaceTermsDeep<T>(face: Face, value: T): T {
  if (typeof value === 'string') return renderFaceWords(face, value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => inFaceTermsDeep(face, v)) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, inFaceTermsDeep(face, v)]),
  ) as T;
}
