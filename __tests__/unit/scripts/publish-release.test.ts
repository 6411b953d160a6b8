/**
 * scripts/publish-release.mjs's checks (the release workflow's; docs/release.md): the notes are
 * the tag's CHANGELOG.md section, the tag must be package.json's version, and a krew manifest is
 * published only with the sha256 of the archive published beside it. The release itself is made
 * under act in __tests__/act/release.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { changelogSection, checkKrewSha, tagVersion } from '../../../scripts/publish-release.mjs';

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

test("the krew manifest must name the archive's sha256", () => {
  const archive = Buffer.from('archive bytes');
  const sha = createHash('sha256').update(archive).digest('hex');
  const files = (manifest: string) => ({
    'dir/kubectl-sweep-linux-x64.tar.gz': archive,
    'dir/sweep.yaml': Buffer.from(manifest),
  });
  const check = (contents: Record<string, Buffer>) => () =>
    checkKrewSha(Object.keys(contents), (f) => contents[f]!);
  expect(check(files(`    sha256: '${sha}'\n`))).not.toThrow();
  expect(check(files(`    sha256: '${'0'.repeat(64)}'\n`))).toThrow(
    `not kubectl-sweep-linux-x64.tar.gz's ${sha}`,
  );
  expect(check(files('    uri: x\n'))).toThrow('names sha256 (none)');
  expect(check({ 'dir/sweep.yaml': Buffer.from(`sha256: '${sha}'`) })).toThrow('without its krew archive');
  expect(check({ 'dir/kube-sweep-linux-x64': archive })).not.toThrow(); // no manifest: nothing to check
});
