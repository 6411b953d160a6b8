/**
 * Text kube-sweep did not write (names, annotations, release records, condition messages) may
 * hold characters that are not seen but change what is seen: controls a terminal acts on (ESC
 * starts colour, title and hyperlink sequences; a lone CR overwrites the start of its line),
 * line breaks that print a line of their own (`verdict: clean`), and the Unicode format
 * characters that reorder or hide text: the bidi marks, embeddings, overrides and isolates
 * (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069; CVE-2021-42574 "Trojan Source") and
 * the zero-width ones (U+200B–U+200D, U+2060, U+FEFF). Every output path shows them through
 * `showInvisible`: the CLI's text lines and streams, the action's log, the markdown summary.
 */

/**
 * The characters `showInvisible` shows, as a regular-expression class body (flag `u`): every
 * control (Cc: C0, DEL, C1 with NEL U+0085), every format character (Cf: the bidi and
 * zero-width characters above, the soft hyphen, the tag characters U+E0000–U+E007F…) and the
 * line and paragraph separators (Zl U+2028, Zp U+2029). Tab is among them; `showInvisible`
 * keeps it, a printed command refuses it (util/shell-quote.ts `unshowableCharacter`).
 */
export const invisibleCharacterClass = '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}';

/** Every invisible character but tab: what one line may not hold. */
const inLine = new RegExp(`(?!\\t)[${invisibleCharacterClass}]`, 'gu');

/** Every invisible character but tab, LF and the CR of a CRLF: what a stream of lines may not hold. */
const inStream = new RegExp(`(?!\\t|\\n|\\r\\n)[${invisibleCharacterClass}]`, 'gu');

/** Pure: `c` (one code point) as a JSON escape: `\n`, `\r`, else `\uXXXX` per UTF-16 unit (lower case). */
function escapeOf(c: string): string {
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  let escaped = '';
  for (let i = 0; i < c.length; i++) escaped += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}

/**
 * Pure: `text` with every invisible character (`invisibleCharacterClass`) but tab shown as its
 * JSON escape (`\u202e`, `\u200b`, `\u001b`, `\n`, `\r`, `\u2028`, an astral one as its two
 * surrogate escapes), so it reads as what it is. By default line breaks are shown too: the
 * result is one line (for a value put into a line). With `keepLineFeeds` (a whole stream of
 * lines, e.g. the CLI's stdout) LF and CRLF stay and every other character is shown. The escapes
 * are valid JSON escapes of the same characters, so a JSON text stays JSON of the same value
 * (JSON.stringify leaves U+2028, U+2029 and the format characters raw inside strings). Text
 * without such characters is returned unchanged.
 */
export function showInvisible(text: string, options: { readonly keepLineFeeds?: boolean } = {}): string {
  return text.replace(options.keepLineFeeds ? inStream : inLine, escapeOf);
}
