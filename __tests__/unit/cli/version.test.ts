import { buildInfo, versionLine } from '../../../src/cli/version.js';

test('--version names the version and the commit', () => {
  expect(versionLine({ version: '0.1.0', commit: 'a'.repeat(40) })).toBe(
    `kube-sweep 0.1.0 (commit ${'a'.repeat(40)})`,
  );
  expect(versionLine({ version: '1.2.3', commit: 'unknown' })).toBe('kube-sweep 1.2.3 (commit unknown)');
});

test('run from source, nothing is stamped, and --version says so instead of inventing a version', () => {
  expect(buildInfo()).toBeUndefined();
  expect(versionLine(buildInfo())).toMatch(/run from source/);
});
