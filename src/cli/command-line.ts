import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { modeNames, type ModeName } from '../config/inputs.js';
import { Inputs, type InputName } from '../words/input-words.js';
import { closestMatch } from '../util/edit-distance.js';

/**
 * Inputs that take a list: repeating the flag adds to it (`--namespaces a --namespaces b`
 * scopes both), as does one value with commas or new lines where the input splits at them.
 * The values are joined with a new line, which every one of these inputs reads as a separator.
 */
export const listInputs: ReadonlySet<InputName> = new Set<InputName>([
  Inputs.namespaces,
  Inputs.releases,
  Inputs.protect,
  Inputs.order,
  Inputs.failOn,
  Inputs.ignore,
  Inputs.forceRemoveFinalizers,
  Inputs.reports,
  Inputs.environments,
]);

/**
 * Inputs that are true or false: the bare flag means true (`--dry-run`), `--flag=false` and
 * `--flag false` (a `true` or `false` word right after it) give the value.
 */
export const booleanInputs: ReadonlySet<InputName> = new Set<InputName>([
  Inputs.deleteNamespaces,
  Inputs.requireMatch,
  Inputs.dryRun,
  Inputs.kindKeep,
  Inputs.prComment,
  Inputs.checkRun,
  Inputs.publishServer,
  Inputs.failOnNew,
]);

/**
 * The CLI's flags for node:util parseArgs: every input but `mode` (the command word is the mode:
 * a `--mode plan` beside `teardown` must not be ignored), --namespaces also as -n; then --output
 * (-o), --all-contexts (scan: every context of the kubeconfig), --help (-h) and --version. parseArgs only cuts the command line into tokens: the values are read from them
 * here (repeats, lists, booleans).
 */
const flags = {
  ...Object.fromEntries(
    Object.values(Inputs)
      .filter((n) => n !== Inputs.mode)
      .map((n) => [
        n,
        {
          type: booleanInputs.has(n) ? ('boolean' as const) : ('string' as const),
          // As kubectl: -n for the namespaces.
          ...(n === Inputs.namespaces ? { short: 'n' } : {}),
        },
      ]),
  ),
  output: { type: 'string', short: 'o' },
  'all-contexts': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} satisfies ParseArgsOptionsConfig;

/** What the command line holds once it parsed: the flags' values and the command word(s). */
export interface CommandLine {
  /**
   * Input flags as the input's text (a list flag's values joined by new lines, a boolean flag's
   * `true` or `false`), `output` (default `text`), `help` and `version` as booleans.
   */
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** How to get help: the last line of a usage error about an option. */
export const seeHelp = 'run kube-sweep --help for the commands and options';

/**
 * A value after a flag may start with `-` when it is a negative number or duration (`-1`,
 * `-5m`: the input then says what it takes) or a YAML list item (`- {code: X}`, as the README
 * writes `ignore`); anything else that starts with `-` is taken for a flag given no value.
 */
const dashValue = /^-(\d|\.\d|\s)/;

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];
type OptionToken = Extract<Token, { kind: 'option' }>;

/** Pure: the usage error of a string flag's value, or undefined when the value is one. */
function valueError(t: OptionToken): string | undefined {
  const flag = t.rawName;
  if (t.value === undefined) return `${flag} needs a value: ${flag} <value>\n${seeHelp}`;
  // `--kubeconfig "$STAGING_KUBECONFIG"` with the variable unset must not fall back to the
  // default cluster (nor `--namespaces "$PREFIX"` to anything): an empty value is an error.
  if (t.value.trim() === '')
    return (
      `${flag} is given an empty value; give it a value or leave the flag out ` +
      `(an unset shell variable gives this: ${flag} "$VARIABLE")\n${seeHelp}`
    );
  if (t.inlineValue || !t.value.startsWith('-') || dashValue.test(t.value)) return undefined;
  const next = t.value.replace(/^--?([^=]*).*$/s, '$1');
  return next === Inputs.mode || Object.hasOwn(flags, next)
    ? `${flag} needs a value before ${t.value}: ${flag} <value>\n${seeHelp}`
    : `${flag} is followed by '${t.value}', which starts with '-' and so is not taken as its value; ` +
        `to give it as the value, write ${flag}=${t.value}`;
}

/** Pure: the usage error of an option that is not one of ours, or `--mode`. */
function unknownError(t: OptionToken): string {
  if (t.name === Inputs.mode)
    return `--mode is not a flag: the command word is the mode (kube-sweep ${modeNames.join('|')} ...)`;
  const near = t.rawName.startsWith('--') ? closestMatch(t.name, Object.keys(flags)) : undefined;
  return `unknown option ${t.rawName}${near ? `; did you mean --${near}?` : ''}\n${seeHelp}`;
}

/**
 * Pure: reads the command line (node:util parseArgs cuts it into tokens; the checks and
 * messages are ours). A usage error is a message naming the flag and the fix: an unknown option
 * (with the closest known one, util/edit-distance.ts), `--mode`, a flag with no value or an
 * empty or blank one (an unset shell variable: never a fallback to a default), a value that
 * looks like a flag, a value given to --help or --version, a single-value flag given twice.
 * List flags (listInputs) accumulate; boolean flags (booleanInputs) may stand alone.
 * @returns the values and positionals, or `{ error }` (the CLI exits 2 with it).
 */
export function parseCommandLine(argv: readonly string[]): CommandLine | { readonly error: string } {
  const { tokens } = parseArgs({
    args: [...argv],
    options: flags,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const values: Record<string, string | boolean | undefined> = {
    output: 'text',
    'all-contexts': false,
    help: false,
    version: false,
  };
  const given = new Map<string, string>();
  const positionals: string[] = [];
  const taken = new Set<number>();
  for (const [i, t] of tokens.entries()) {
    if (t.kind === 'positional' && !taken.has(i)) positionals.push(t.value);
    if (t.kind !== 'option') continue;
    const spec = (flags as Record<string, { type: 'string' | 'boolean' }>)[t.name];
    if (!spec || t.name === Inputs.mode) return { error: unknownError(t) };
    let value = t.value;
    if (t.name === 'help' || t.name === 'version' || t.name === 'all-contexts') {
      if (value !== undefined)
        return { error: `${t.rawName} takes no value (it is given '${value}')\n${seeHelp}` };
      values[t.name] = true;
      continue;
    }
    if (spec.type === 'boolean' && value === undefined) {
      const next = tokens[i + 1];
      const word = next?.kind === 'positional' ? next.value.trim().toLowerCase() : '';
      if (word === 'true' || word === 'false') taken.add(i + 1);
      value = word === 'true' || word === 'false' ? word : 'true';
    } else if (spec.type === 'string') {
      const error = valueError(t);
      if (error) return { error };
    }
    const previous = given.get(t.name);
    if (previous !== undefined && !listInputs.has(t.name as InputName))
      return {
        error: `--${t.name} is given twice ('${previous}' and '${value}'); it takes one value: give it once\n${seeHelp}`,
      };
    given.set(t.name, value!);
    values[t.name] = previous === undefined ? value : `${String(values[t.name])}\n${value}`;
  }
  return { values, positionals };
}

/**
 * Pure: the command word, or a usage error: none given, more than one, or not a command (with
 * the closest command). `merge` takes words after it: the report files (globs).
 */
export function commandOf(positionals: readonly string[]): ModeName | { readonly error: string } {
  const [command, ...extra] = positionals;
  if (command === 'merge') return command;
  if (command === undefined)
    return { error: `a command is needed: ${modeNames.join(', ')} (kube-sweep <command> [options])` };
  if (!(modeNames as readonly string[]).includes(command)) {
    const near = closestMatch(command, [...modeNames, 'help']);
    return {
      error: `unknown command '${command}'${near ? `; did you mean ${near}?` : ''}; commands: ${modeNames.join(', ')}, help`,
    };
  }
  if (extra.length)
    return {
      error: `'${extra[0]}' follows the command '${command}', which takes no argument: give everything else as options (the scope with --namespaces, --selector or --releases)`,
    };
  return command as ModeName;
}
