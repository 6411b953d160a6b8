// The version and commit stamped into the CLI's bundles (src/cli/version.ts holds the placeholders):
// the version from package.json, the commit from `git rev-parse HEAD`, or `unknown` outside a git
// checkout. `<commit>+dirty` says the bundle was built from uncommitted changes on top of that
// commit: a tracked file outside dist/ differed from it, or src/ held a file git does not track
// (either may be in the bundle). `--version` says so in words (src/cli/version.ts).
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
    const changed = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)dist');
    const untracked = git('ls-files', '--others', '--exclude-standard', '--', 'src');
    if (changed !== '' || untracked !== '') commit += '+dirty';
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
 * `code` with every 40-hex-digit word (a stamped commit, with its `+dirty`, or `-dirty` as bundles
 * before 2026-12-01 wrote it) replaced by COMMIT, so that the same source bundled at two commits,
 * or from a clean and a dirty checkout, compares equal (check-dist).
 */
export function maskCommit(code) {
  return code.replace(/\b[0-9a-f]{40}([+-]dirty)?\b/g, 'COMMIT');
}

/** The stamp as it stands in a bundle: `{version:"…",commit:"…"}` (whatever the minifier's spacing). */
const stampedPattern = /\{\s*version:\s*"[^"]*",\s*commit:\s*"(?:[0-9a-f]{40}(?:[+-]dirty)?|unknown)"\s*\}/g;

/**
 * `code` (an already stamped bundle) stamped again with `info`: what `npm pack` does to dist/cli
 * (scripts/stamp-package.mjs), so that the package names the commit it is packed from, not the
 * one before the commit that added the bundle.
 * @returns the code and how many stamps were replaced.
 */
export function restamp(code, info) {
  let count = 0;
  const out = code.replace(stampedPattern, () => {
    count += 1;
    return `{version:${JSON.stringify(info.version)},commit:${JSON.stringify(info.commit)}}`;
  });
  return { code: out, count };
}
