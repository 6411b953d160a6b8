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
