// Types of publish-release.mjs, for the tests that import it
// (__tests__/unit/scripts/publish-release.test.ts).

/** The `## <version>` section of a changelog, trimmed; throws when it is missing or empty. */
export function changelogSection(changelog: string, version: string): string;
/** The version a tag names; throws unless the tag is `v` + `packageVersion`. */
export function tagVersion(tag: string, packageVersion: string): string;
/**
 * Throws unless sweep.yaml among `files` names `tag` as its version, and this release's download
 * URL and sha256 of the krew archive among them.
 */
export function checkKrewManifest(
  files: readonly string[],
  read: (file: string) => Buffer,
  release: { tag: string; server: string; repository: string },
): void;
