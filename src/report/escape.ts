/**
 * Makes text from the cluster (names, annotations, condition messages) inert in GitHub
 * markdown and HTML: HTML-significant characters become entities, markdown punctuation is
 * backslash-escaped, newlines become spaces so a value cannot break a table row, and the
 * triggers of GFM's extended autolinks (`://`, `www.`, `@`; GitHub Flavored Markdown spec,
 * "Autolinks (extension)") become entities, so a URL in cluster text stays text, not a link.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\r\n]+/g, ' ')
    .replace(/([\\`*_{}[\]()#+!|~])/g, '\\$1')
    .replace(/:\/\//g, '&#58;//')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}&#46;`)
    .replace(/@/g, '&#64;');
}

/** Pure: the length of the longest run of backticks in `text` (0 when it has none): a code fence must be longer. */
function longestBacktickRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}

/**
 * Text as a code span that is safe inside a GFM table cell: backticks cannot close it early
 * (the fence is one backtick longer than the longest run of backticks in the text: a code span
 * ends only at a run of exactly its fence's length, CommonMark "Code spans"), `|` cannot split
 * the cell (GFM reads `\|` as a pipe there), `<` cannot open a tag, newlines fold.
 */
export function codeSpan(text: string): string {
  const clean = text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
  const fence = '`'.repeat(longestBacktickRun(clean) + 1);
  return `${fence}${fence.length > 1 ? ' ' : ''}${clean.replace(/</g, '&lt;')}${fence.length > 1 ? ' ' : ''}${fence}`;
}

/**
 * Pure: `lines` as a fenced code block (GFM "Fenced code blocks") whose fence is one backtick
 * longer than the longest run of backticks in any line (at least three), so no line can close
 * it, and the lines are shown exactly as given: a command is never altered to fit the block.
 * The lines must hold no line break (remedy lines are checked by rules/kubectl.ts
 * `showableCommands`); one that does is folded to a space here as a last guard.
 */
export function codeBlock(info: string, lines: readonly string[]): string[] {
  const longest = Math.max(0, ...lines.map(longestBacktickRun));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, ...lines.map((l) => l.replace(/[\r\n\u2028\u2029]+/g, ' ')), fence];
}
