import { Inputs, type InputName } from '../config/inputs.js';

/**
 * Who reads a rendering: the GitHub Action (its inputs, `stage-timeout`; its messages say
 * `input 'x'`) or the CLI (flags, `--stage-timeout`). The run's messages are written for the
 * action; the CLI's renderings pass them through `inFlagTerms`.
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

/** Pure: a message written for the action, in `face`'s words (unchanged for the action). */
export function inFaceTerms(face: Face, message: string): string {
  return face === 'cli' ? inFlagTerms(message) : message;
}

/**
 * Pure: a message written for the action's inputs, in the CLI's words: `input 'x'` becomes
 * `--x`, `'cluster: kind'` becomes `--cluster kind`, a quoted input name becomes its flag (not a
 * quoted value after "is" or "has"), `--x is empty` becomes `--x is not given`, and "in an
 * earlier step" (of a workflow) becomes "first".
 */
export function inFlagTerms(message: string): string {
  const names = new Set<string>(Object.values(Inputs));
  return (
    message
      .replace(/\binputs? '([a-z-]+)(?:: ([^']+))?'/g, (m, name: string, value?: string) =>
        names.has(name) ? `--${name}${value ? ` ${value}` : ''}` : m,
      )
      // A quoted value (after "is", "has", "line") stays as it is, even when it spells an input's name.
      .replace(/(?<!\b(?:is|has|line|code) )'([a-z-]+)(?:: ([^']+))?'/g, (m, name: string, value?: string) =>
        names.has(name) ? `--${name}${value ? ` ${value}` : ''}` : m,
      )
      .replace(/(--[a-z-]+) is empty/g, '$1 is not given')
      .replace(/ in an earlier step\b/g, ' first')
  );
}
