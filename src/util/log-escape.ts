/**
 * The runner log is a command channel: the GitHub Actions runner reads every line a step writes
 * to stdout or stderr, and a line that starts with `::` (after white space) is a workflow command
 * (`::add-mask::`, `::stop-commands::`, `::error::`, `::set-output`…); the legacy form `##[…]`
 * is a command wherever it stands in the line. Text from the cluster (release names decoded from
 * Secrets, condition messages, object names) is untrusted, so every line kube-sweep logs passes
 * `escapeLogLine` at the log port (the action's `info`, the CLI's stdout and stderr).
 */

/**
 * Pure: `line` as one log line that cannot start or carry a workflow command: `%`, CR and LF
 * are percent-escaped as the runner's own command data is (`%25`, `%0D`, `%0A`; so the line
 * stays one line), a `::` at the start (after white space) becomes `%3A%3A`, and every `##[`
 * becomes `#%23[`. Text without those characters is returned unchanged.
 */
export function escapeLogLine(line: string): string {
  return line
    .replaceAll('%', '%25')
    .replaceAll('\r', '%0D')
    .replaceAll('\n', '%0A')
    .replace(/^(\s*)::/, '$1%3A%3A')
    .replaceAll('##[', '#%23[');
}

/**
 * Pure: a chunk of a text stream (several lines, the CLI's report or progress) with each of its
 * lines made unable to start a workflow command, line breaks kept: a line that starts with `::`
 * (after white space) and every `##[` are escaped as by `escapeLogLine`; nothing else changes,
 * so a JSON or markdown report stays byte for byte what it was unless cluster text tried this.
 */
export function escapeLogStream(chunk: string): string {
  return chunk
    .split(/(\r\n|\r|\n)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/^(\s*)::/, '$1%3A%3A').replaceAll('##[', '#%23[')))
    .join('');
}

/**
 * Characters a terminal acts on instead of showing: C0 controls but tab and line feed (ESC
 * starts colour, title and hyperlink sequences; a lone CR overwrites the start of its line; BEL,
 * BS, VT, FF), DEL, the C1 controls (U+0080–U+009F: CSI and OSC in one byte) and the bidi
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what is shown. A CR that
 * ends a line (CRLF) is kept.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what this is for
const terminalControls = /\r(?!\n)|[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Pure: `text` with every character a terminal would act on (`terminalControls`) shown as its
 * JSON escape, `\u001b`, so cluster text printed by the CLI (a name in `--output text`, a
 * condition message in the progress on stderr) cannot drive the terminal of whoever reads it.
 * In JSON output (where JSON.stringify has escaped the C0 ones already) the escape is a valid
 * JSON escape of the same character, so the report parses to the same value. Text without
 * them is returned unchanged.
 */
export function showTerminalControls(text: string): string {
  return text.replace(terminalControls, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
