import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectories } from '../../../src/util/make-directories.js';

const code = (run: () => void): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
};

test('makes the missing parents, with the mode given, and accepts a folder that exists', () => {
  const root = mkdtempSync(join(tmpdir(), 'kube-sweep-mkdir-'));
  const deep = join(root, 'a', 'b', 'c');
  makeDirectories(deep, 0o700);
  expect(statSync(deep).isDirectory()).toBe(true);
  expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
  expect(() => makeDirectories(deep)).not.toThrow();
});

test('ends in the file system error: a file in the way, and a pseudo file system that answers ENOENT forever', () => {
  const root = mkdtempSync(join(tmpdir(), 'kube-sweep-mkdir-'));
  writeFileSync(join(root, 'file'), '');
  expect(code(() => makeDirectories(join(root, 'file')))).toBe('EEXIST');
  expect(code(() => makeDirectories(join(root, 'file', 'sub')))).toBe('ENOTDIR');
  // Node's own recursive mkdir never returns here (Node 24.22.3): the reason this function exists.
  expect(code(() => makeDirectories('/proc/kube-sweep-none/deeper'))).toBe('ENOENT');
});
