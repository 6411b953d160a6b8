import { invisibleCharacterClass } from './show-invisible.js';

/**
 * POSIX shell quoting for the command lines kube-sweep prints (remedies in findings, the
 * summary, the PR comment, the check run, the CLI). Every value that came from the cluster or
 * the user and is printed inside a command goes through `shellWord`; nothing else may build a
 * command by string interpolation.
 *
 * Why our own ten lines and not a library: the npm quoting libraries either escape with
 * backslashes and double quotes (shell-quote), which keeps `$`, backticks and `!` live in some
 * shells, or target several shells at once and pull in more than this needs. POSIX single
 * quotes are the one form in which no byte but `'` itself is special (POSIX.1-2017 XCU 2.2.2:
 * "Enclosing characters in single-quotes shall preserve the literal value of each character
 * within the single-quotes"), so the function is: wrap in `'…'`, and write each `'` as `'\''`
 * (close, an escaped quote, reopen). Words made only of characters that no POSIX shell treats
 * specially anywhere in a word are left bare, so ordinary commands read as before.
 */

/** Characters that are literal in every position of an unquoted POSIX shell word. */
const bareWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Pure: `value` as one POSIX shell word: bare when it holds only `[A-Za-z0-9_@%+=:,./-]`,
 * otherwise in single quotes with every `'` written as `'\''`. The empty string is `''`.
 * Handles every byte and code point (the shell reads the quoted text literally); whether the
 * result can be *shown* (line breaks, control characters) is `unshowableCharacter`'s question.
 */
export function shellWord(value: string): string {
  if (bareWord.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Pure: a command line of `words`, each quoted by `shellWord`, separated by one space. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/**
 * Characters that must never appear in a printed command line or comment, even quoted: every
 * invisible character of util/show-invisible.ts, tab included (controls such as line feed,
 * carriage return and escape; the Unicode line and paragraph separators; the bidi and
 * zero-width format characters, which can make a line read as something other than what the
 * shell runs: CVE-2021-42574 "Trojan Source"). The summary's code block would show them as
 * escapes, which would alter the command, so such a command is not printed at all.
 */
const unshowable = new RegExp(`[${invisibleCharacterClass}]`, 'u');

/**
 * Pure: the first character of `text` that cannot be shown safely in a printed command (see
 * `unshowable`), as `U+XXXX`, or undefined when every character can be shown. A line break
 * would end a markdown code block's line, and a pasted comment line would run its second half.
 */
export function unshowableCharacter(text: string): string | undefined {
  const match = unshowable.exec(text);
  return match ? `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}
