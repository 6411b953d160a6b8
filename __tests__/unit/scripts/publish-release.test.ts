/**
 * scripts/publish-release.mjs's checks (the release workflow's; docs/release.md): the notes are
 * the tag's CHANGELOG.md section, the tag must be package.json's version, and a krew manifest is
 * published only as this release's: its version, and the URL and sha256 of the archive published
 * beside it. The release itself is made
 * under act in __tests__/act/release.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { changelogSection, checkKrewManifest, tagVersion } from '../../../scripts/publish-release.mjs';

const changelog = `# Changelog

Intro.

## 0.2.0

- Second.

## 0.1.0

- First.
- More.
`;

test('the notes are the lines of the version section up to the next one, trimmed', () => {
  expect(changelogSection(changelog, '0.2.0')).toBe('- Second.');
  expect(changelogSection(changelog, '0.1.0')).toBe('- First.\n- More.');
  expect(() => changelogSection(changelog, '0.3.0')).toThrow("CHANGELOG.md has no '## 0.3.0' section");
  expect(() => changelogSection('## 1.0.0\n\n## 0.9.0\nx', '1.0.0')).toThrow('is empty');
  // This repository's own changelog has the section of its version.
  const root = process.cwd();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  expect(changelogSection(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), version)).not.toBe('');
});

test('the tag must be v + package.json version', () => {
  expect(tagVersion('v1.2.3', '1.2.3')).toBe('1.2.3');
  expect(() => tagVersion('v1.2.4', '1.2.3')).toThrow("tag 'v1.2.4' is not package.json's version v1.2.3");
  expect(() => tagVersion('1.2.3', '1.2.3')).toThrow('not package.json');
});

test("the krew manifest must be this release's: its version, this release's archive URL and sha256", () => {
  const archive = Buffer.from('archive bytes');
  const sha = createHash('sha256').update(archive).digest('hex');
  const release = { tag: 'v1.2.3', server: 'https://github.com', repository: 'o/r' };
  const uri = 'https://github.com/o/r/releases/download/v1.2.3/kubectl-sweep-linux-x64.tar.gz';
  const manifest = (version: string, platforms: string) =>
    `apiVersion: krew.googlecontainertools.github.com/v1alpha2\nkind: Plugin\nspec:\n  version: ${version}\n  platforms:\n${platforms}`;
  const platform = (u: string, s: string) =>
    `    - uri: ${u}\n      sha256: '${s}'\n      bin: kubectl-sweep\n`;
  const check =
    (text: string, names = ['d/kubectl-sweep-linux-x64.tar.gz', 'd/sweep.yaml']) =>
    () =>
      checkKrewManifest(names, (f) => (f.endsWith('.tar.gz') ? archive : Buffer.from(text)), release);
  expect(check(manifest('v1.2.3', platform(uri, sha)))).not.toThrow();
  expect(check(manifest('v1.2.3', platform(uri, '0'.repeat(64))))).toThrow(
    `the sha256 is '${'0'.repeat(64)}', not kubectl-sweep-linux-x64.tar.gz's ${sha}`,
  );
  expect(check(manifest('v1.2.2', platform(uri, sha)))).toThrow("spec.version is 'v1.2.2', not 'v1.2.3'");
  expect(check(manifest('v1.2.3', platform(uri.replace('v1.2.3', 'v1.2.2'), sha)))).toThrow(
    `the uri is '${uri.replace('v1.2.3', 'v1.2.2')}', not '${uri}'`,
  );
  expect(check(manifest('v1.2.3', platform(uri, sha) + platform(uri, sha)))).toThrow('2 platforms');
  expect(check(manifest('v1.2.3', platform(uri, sha)), ['d/sweep.yaml'])).toThrow('without its krew archive');
  expect(check('', ['d/kube-sweep-linux-x64'])).not.toThrow(); // no manifest: nothing to check
  // The committed manifest names package.json's version and its release's URL (only the sha256 is
  // left to scripts/sea.mjs).
  const root = process.cwd();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const committed = readFileSync(join(root, 'plugins/sweep.yaml'), 'utf8');
  expect(checkKrewManifestProblems(committed, `v${version}`, archive)).toEqual([
    `the sha256 is '${'0'.repeat(64)}', not kubectl-sweep-linux-x64.tar.gz's ${sha}`,
  ]);
});

/** What checkKrewManifest says of `text` for `tag` (as kube-sweep/kube-sweep on GitHub), one problem a line. */
function checkKrewManifestProblems(text: string, tag: string, archive: Buffer): string[] {
  try {
    checkKrewManifest(
      ['d/kubectl-sweep-linux-x64.tar.gz', 'd/sweep.yaml'],
      (f) => (f.endsWith('.tar.gz') ? archive : Buffer.from(text)),
      { tag, server: 'https://github.com', repository: 'kube-sweep/kube-sweep' },
    );
    return [];
  } catch (error) {
    return String((error as Error).message)
      .replace(/^sweep.yaml is not this release's manifest: /, '')
      .replace(/ \(plugins\/sweep.yaml gives.*$/, '')
      .split('; ');
  }
}
