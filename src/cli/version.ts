/**
 * The version and the commit a bundle was built from. scripts/build-info.mjs replaces the two
 * placeholders in the bundled code (dist/cli by scripts/bundle.mjs, the single executable by
 * scripts/sea.mjs): the version from package.json, the commit from `git rev-parse HEAD`, with
 * `+dirty` when the bundle was built from uncommitted changes on top of it. Run from source
 * (tests), they stay unreplaced.
 */
const stamped = { version: '@@KUBE_SWEEP_VERSION@@', commit: '@@KUBE_SWEEP_COMMIT@@' };

/** What `--version` prints about a build. */
export interface BuildInfo {
  /** package.json `version`, e.g. `0.1.0`. */
  readonly version: string;
  /**
   * 40 hex digits; `<40 hex digits>+dirty` when built from uncommitted changes on top of that
   * commit (a tracked file outside dist/ changed, or an untracked file in src/); `unknown` when
   * the bundle was built outside git.
   */
  readonly commit: string;
}

/** The stamped build info, or undefined when this code runs unbundled (from src/). */
export function buildInfo(): BuildInfo | undefined {
  return stamped.version.startsWith('@@') ? undefined : stamped;
}

/**
 * Pure: the `--version` line, e.g. `kube-sweep 0.1.0 (commit 1a2b…)`, or for a dirty build
 * `kube-sweep 0.1.0 (commit 1a2b…+dirty: built from uncommitted changes on top of that commit)`.
 */
export function versionLine(info: BuildInfo | undefined): string {
  if (!info) return 'kube-sweep (run from source: the version and commit are stamped at bundle time)';
  const dirty = info.commit.endsWith('+dirty')
    ? ': built from uncommitted changes on top of that commit'
    : '';
  return `kube-sweep ${info.version} (commit ${info.commit}${dirty})`;
}
