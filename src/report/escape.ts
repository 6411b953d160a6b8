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

/**
 * Text as a code span that is safe inside a GFM table cell: backticks cannot close it early,
 * `|` cannot split the cell (GFM reads `\|` as a pipe there), `<` cannot open a tag, newlines fold.
 */
export function codeSpan(text: string): string {
  const clean = text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
  const fence = clean.includes('`') ? '``' : '`';
  return `${fence}${fence.length > 1 ? ' ' : ''}${clean.replace(/</g, '&lt;')}${fence.length > 1 ? ' ' : ''}${fence}`;
}
