// The version and commit stamped into the CLI's bundles (src/cli/version.ts holds the placeholders):
// the version from package.json, the commit from `git rev-parse HEAD`, with `-dirty` when a tracked
// file outside dist/ differs from it, or `unknown` outside a git checkout.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const placeholders = { version: '@@KUBE_SWEEP_VERSION@@', commit: '@@KUBE_SWEEP_COMMIT@@' };

/** { version, commit } of the checkout at `root`. */
export function buildInfo(root) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  let commit = 'unknown';
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    commit = git('rev-parse', 'HEAD');
    if (git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)dist') !== '')
      commit += '-dirty';
  } catch {
    // not a git checkout (a source tarball): the commit stays unknown
  }
  return { version, commit };
}

/** Whether `code` holds the placeholders of src/cli/version.ts. */
export function hasPlaceholders(code) {
  return code.includes(placeholders.version);
}

/** `code` with the placeholders replaced by `info`. */
export function stamp(code, info) {
  return code.replaceAll(placeholders.version, info.version).replaceAll(placeholders.commit, info.commit);
}

/**
 * `code` with every 40-hex-digit word (a stamped commit, `-dirty` included) replaced by COMMIT, so
 * that the same source bundled at two commits compares equal (check-dist).
 */
export function maskCommit(code) {
  return code.replace(/\b[0-9a-f]{40}(-dirty)?\b/g, 'COMMIT');
}
