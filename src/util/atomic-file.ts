import {
  closeSync,
  fsyncSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';

/**
 * Pure: the sibling a file is written to before it is renamed into place (`writeFileAtomically`):
 * `<path>.unfinished`, next to the file a symbolic link at `path` points to (so the rename
 * replaces that file and keeps the link). The same name holds the "unfinished" marker of a run
 * that has not written its report yet (execute.ts `checkReportPath`).
 */
export function unfinishedPathOf(path: string): string {
  let target = path;
  try {
    target = realpathSync(path);
  } catch {
    // Not there yet: the file is created at `path` itself.
  }
  return `${target}.unfinished`;
}

/**
 * Writes `text` to `path` so that `path` never holds half of it: the text goes to
 * `unfinishedPathOf(path)`, is flushed to disk (fsync), and that file is renamed over `path`
 * (rename(2) replaces the old file in one step on the same file system). A run killed before the
 * rename leaves the earlier file untouched (or no file) and the sibling behind; never a 0-byte or
 * half-written file at `path`. A `path` that exists and is not a regular file (a character device
 * such as /dev/stdout or /dev/full, a FIFO) cannot be replaced by a rename: it is written directly.
 * @throws the file system's error (the sibling is removed first when the rename fails).
 */
export function writeFileAtomically(path: string, text: string): void {
  let regular = true;
  try {
    regular = statSync(path).isFile();
  } catch {
    // Not there (or not reachable): a new regular file.
  }
  if (!regular) {
    writeWhole(path, text);
    return;
  }
  const temp = unfinishedPathOf(path);
  const target = temp.slice(0, -'.unfinished'.length);
  try {
    writeWhole(temp, text, true);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Writes `text` to `path` (created or truncated), every byte, optionally flushed to disk. */
function writeWhole(path: string, text: string, sync = false): void {
  const fd = openSync(path, 'w');
  try {
    const bytes = Buffer.from(text, 'utf8');
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
