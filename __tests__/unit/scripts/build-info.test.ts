/**
 * scripts/build-info.mjs on a scratch git repository: the commit stamped into the CLI's bundles
 * says honestly whether the bundle was built from that commit or from uncommitted changes on
 * top of it, and check-dist's mask ignores the stamp either way.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildInfo, maskCommit, restamp, stamp } from '../../../scripts/build-info.mjs';
import { versionLine } from '../../../src/cli/version.js';

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A scratch git repository with one commit: package.json, src/a.ts, dist/index.js. */
function checkout(): { root: string; head: string } {
  const root = mkdtempSync(join(tmpdir(), 'kube-sweep-build-info-'));
  roots.push(root);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
  git('init', '-q');
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'package.json'), '{ "version": "1.2.3" }\n');
  writeFileSync(join(root, 'src/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'dist/index.js'), 'old bundle\n');
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  return { root, head: git('rev-parse', 'HEAD') };
}

test('a clean checkout is stamped with its commit; a changed dist/ or an ignored file does not count', () => {
  const { root, head } = checkout();
  expect(head).toMatch(/^[0-9a-f]{40}$/);
  expect(buildInfo(root)).toEqual({ version: '1.2.3', commit: head });
  writeFileSync(join(root, 'dist/index.js'), 'new bundle\n');
  mkdirSync(join(root, 'node_modules'));
  writeFileSync(join(root, 'node_modules/x.js'), '');
  expect(buildInfo(root).commit).toBe(head);
});

test('uncommitted changes are stamped <commit>+dirty, and --version says what that means', () => {
  const changed = checkout();
  writeFileSync(join(changed.root, 'src/a.ts'), 'export const a = 2;\n');
  expect(buildInfo(changed.root).commit).toBe(`${changed.head}+dirty`);

  // A new file in src/ that git does not track yet may be in the bundle too.
  const added = checkout();
  writeFileSync(join(added.root, 'src/b.ts'), 'export const b = 1;\n');
  const info = buildInfo(added.root);
  expect(info.commit).toBe(`${added.head}+dirty`);
  expect(versionLine(info)).toBe(
    `kube-sweep 1.2.3 (commit ${added.head}+dirty: built from uncommitted changes on top of that commit)`,
  );
});

test('check-dist masks the stamp: one source bundled clean, dirty or at another commit compares equal', () => {
  const code = 'const stamped = { version: "@@KUBE_SWEEP_VERSION@@", commit: "@@KUBE_SWEEP_COMMIT@@" };';
  const at = (commit: string) => maskCommit(stamp(code, { version: '1.2.3', commit }));
  const [a, b] = ['a'.repeat(40), 'b'.repeat(40)];
  expect(at(a)).toBe('const stamped = { version: "1.2.3", commit: "COMMIT" };');
  expect(at(`${a}+dirty`)).toBe(at(b));
  expect(at(`${a}-dirty`)).toBe(at(b)); // as bundles stamped before +dirty read
  expect(at('unknown')).not.toBe(at(a));
});

test('restamp replaces the stamp of a bundle, whatever commit it named; a bundle with none is left as it is', () => {
  const head = 'a'.repeat(40);
  for (const old of [`${'b'.repeat(40)}+dirty`, 'b'.repeat(40), 'unknown'])
    expect(
      restamp(`x;const s={version:"0.0.9",commit:"${old}"};y`, { version: '1.0.0', commit: head }),
    ).toEqual({
      code: `x;const s={version:"1.0.0",commit:"${head}"};y`,
      count: 1,
    });
  expect(restamp('no stamp here @@KUBE_SWEEP_COMMIT@@', { version: '1', commit: head }).count).toBe(0);
});

test('the committed dist/cli carries exactly one stamp, a commit (not unknown, not the placeholders)', () => {
  const cli = join(process.cwd(), 'dist/cli');
  const stamps = readdirSync(cli)
    .filter((f) => f.endsWith('.js'))
    .flatMap((f) => [
      ...readFileSync(join(cli, f), 'utf8').matchAll(/\{version:"([^"]*)",commit:"([^"]*)"\}/g),
    ]);
  expect(stamps.map((m) => [m[1], m[2]])).toEqual([
    [
      JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).version,
      expect.stringMatching(/^[0-9a-f]{40}(\+dirty)?$/),
    ],
  ]);
  expect(readdirSync(cli).some((f) => readFileSync(join(cli, f), 'utf8').includes('@@KUBE_SWEEP_'))).toBe(
    false,
  );
});
