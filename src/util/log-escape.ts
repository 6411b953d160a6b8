import { showInvisible } from './show-invisible.js';

/**
 * The runner log is a command channel: the GitHub Actions runner reads every line a step writes
 * to stdout or stderr, and a line that starts with `::` (after white space) is a workflow command
 * (`::add-mask::`, `::stop-commands::`, `::error::`, `::set-output`…); the legacy form `##[…]`
 * is a command wherever it stands in the line. Text from the cluster (release names decoded from
 * Secrets, condition messages, object names) is untrusted, so every line kube-sweep logs passes
 * `escapeLogLine` at the log port (the action's `info`; the CLI's stdout and stderr pass
 * `escapeLogStream`), and the action's annotations, group titles and failure pass
 * `showInvisible` (@actions/core percent-escapes their `%`, CR and LF itself).
 */

/**
 * Pure: `line` as one log line that cannot start or carry a workflow command nor read as other
 * text: `%`, CR and LF are percent-escaped as the runner's own command data is (`%25`, `%0D`,
 * `%0A`; so the line stays one line), a `::` at the start (after white space) becomes `%3A%3A`,
 * every `##[` becomes `#%23[`, and every other invisible character (bidi, zero-width, controls,
 * U+2028, U+2029; util/show-invisible.ts) is shown as its JSON escape (`\u202e`). Text without
 * those characters is returned unchanged.
 */
export function escapeLogLine(line: string): string {
  const oneLine = line.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
  return showInvisible(oneLine)
    .replace(/^(\s*)::/, '$1%3A%3A')
    .replaceAll('##[', '#%23[');
}

/**
 * Pure: a chunk of a text stream (several lines: the CLI's report, its progress) with every
 * invisible character but tab, LF and CRLF shown as its JSON escape (`showInvisible` with
 * `keepLineFeeds`: ESC, a lone CR, bidi, zero-width, U+2028… cannot drive a terminal or make a
 * line read as other text) and each line made unable to start a workflow command: a line that
 * starts with `::` (after white space) and every `##[` are escaped as by `escapeLogLine`. A
 * JSON report stays JSON of the same value, and text without those characters is unchanged.
 */
export function escapeLogStream(chunk: string): string {
  return showInvisible(chunk, { keepLineFeeds: true })
    .split(/(\r\n|\n)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/^(\s*)::/, '$1%3A%3A').replaceAll('##[', '#%23[')))
    .join('');
}
