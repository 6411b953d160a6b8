import { showInvisible } from '../util/show-invisible.js';

/**
 * Makes text from the cluster (names, annotations, condition messages) inert in GitHub
 * markdown and HTML: HTML-significant characters become entities, markdown punctuation is
 * backslash-escaped, newlines become spaces so a value cannot break a table row, every other
 * invisible character (bidi, zero-width, controls, U+2028, U+2029) is shown as its escape
 * (`\u202e`, util/show-invisible.ts) so the text cannot read as something else, and the
 * triggers of GFM's extended autolinks (`://`, `www.`, `@`; GitHub Flavored Markdown spec,
 * "Autolinks (extension)") become entities, so a URL in cluster text stays text, not a link.
 */
export function escapeMarkdown(text: string): string {
  return showInvisible(foldLineFeeds(text))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/([\\`*_{}[\]()#+!|~])/g, '\\$1')
    .replace(/:\/\//g, '&#58;//')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}&#46;`)
    .replace(/@/g, '&#64;');
}

/** Pure: `text` with each run of CR and LF (markdown's line ends) as one space. */
function foldLineFeeds(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/** Pure: the length of the longest run of backticks in `text` (0 when it has none): a code fence must be longer. */
function longestBacktickRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

/**
 * Text as a code span that is safe inside a GFM table cell: backticks cannot close it early
 * (the fence is one backtick longer than the longest run of backticks in the text: a code span
 * ends only at a run of exactly its fence's length, CommonMark "Code spans"), `|` cannot split
 * the cell (GFM reads `\|` as a pipe there), `<` cannot open a tag, newlines fold, and every
 * other invisible character is shown as its escape (`\u202e`, util/show-invisible.ts).
 */
export function codeSpan(text: string): string {
  const clean = showInvisible(foldLineFeeds(text)).replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(clean) + 1);
  return `${fence}${fence.length > 1 ? ' ' : ''}${clean.replace(/</g, '&lt;')}${fence.length > 1 ? ' ' : ''}${fence}`;
}

/**
 * Pure: `lines` as a fenced code block (GFM "Fenced code blocks") whose fence is one backtick
 * longer than the longest run of backticks in any line (at least three), so no line can close
 * it, and the lines are shown exactly as given: a command is never altered to fit the block.
 * The lines must hold no line break nor other invisible character (remedy lines are checked by
 * rules/kubectl.ts `showableCommands`); as a last guard, CR and LF fold to a space here and
 * the others are shown as their escapes (`\u202e`, util/show-invisible.ts).
 */
export function codeBlock(info: string, lines: readonly string[]): string[] {
  const shown = lines.map((l) => showInvisible(foldLineFeeds(l)));
  const longest = Math.max(0, ...shown.map(longestBacktickRun));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, ...shown, fence];
}
