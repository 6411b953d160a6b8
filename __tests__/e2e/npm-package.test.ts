/**
 * The npm package as users get it: `npm pack` of this repository, installed from the tarball
 * into an empty folder (no network needed: the package has no dependencies, dist/cli is the
 * whole program), then `kube-sweep --version`, `--help`, and scan/plan against the local
 * control plane with their exit codes. Runs the committed dist/ (npm run bundle first locally).
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { buildInfo } from '../../scripts/build-info.mjs';
import { versionLine } from '../../src/cli/version.js';
import { repoRoot } from '../integration/support/cluster.js';
import { exitCodeNamespaces, expectExitCodes } from './support/cli-builds.js';

const names = exitCodeNamespaces();
const npm = (args: string[], cwd: string) =>
  // npm runs on the Node first on PATH: the same Node 24 as the tests.
  execa('npm', [...args, '--no-audit', '--no-fund'], {
    cwd,
    env: { PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) },
    extendEnv: true,
  });

let installed: string;
let tarball: string;
beforeAll(async () => {
  const packDir = mkdtempSync(join(tmpdir(), 'kube-sweep-pack-'));
  const packed = await npm(['pack', '--json', '--pack-destination', packDir], repoRoot);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(packDir, info!.filename);
  installed = mkdtempSync(join(tmpdir(), 'kube-sweep-install-'));
  await npm(['install', '--offline', tarball], installed);
}, 300_000);

const bin = (name: string) => join(installed, 'node_modules', '.bin', name);
const run = (args: string[], name = 'kube-sweep') =>
  execa(bin(name), args, {
    reject: false,
    env: { PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) },
    extendEnv: true,
  });

test('the package is publishable: name, version, license, repository, bin, engines, no install scripts', async () => {
  const pkg = JSON.parse(readFileSync(join(installed, 'node_modules/kube-sweep/package.json'), 'utf8'));
  expect(pkg.private).toBeUndefined();
  expect(pkg).toMatchObject({
    name: 'kube-sweep',
    license: 'MIT',
    engines: { node: '>=24' },
    bin: { 'kube-sweep': 'dist/cli/index.js', 'kubectl-sweep': 'dist/cli/index.js' },
  });
  expect(pkg.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(pkg.repository.url).toMatch(/kube-sweep\/kube-sweep/);
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
    expect(pkg.scripts?.[hook]).toBeUndefined();
  expect(pkg.dependencies).toBeUndefined();
  // Only what runs: the CLI bundle and the licenses of what it bundles, and what npm always adds.
  const { stdout } = await execa('tar', ['-tzf', tarball]);
  const files = stdout
    .split('\n')
    .filter((f) => f !== '')
    .sort();
  expect(files.filter((f) => !/^package\/dist\/cli\//.test(f))).toEqual([
    'package/LICENSE',
    'package/README.md',
    'package/package.json',
  ]);
  expect(files).toEqual(
    expect.arrayContaining(['package/dist/cli/index.js', 'package/dist/cli/licenses.txt']),
  );
});

test('kube-sweep --version prints the version and the commit it was built from', async () => {
  const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const result = await run(['--version']);
  expect(result.exitCode).toBe(0);
  // npm pack stamps the package with the commit it is packed from (scripts/stamp-package.mjs).
  const { commit } = buildInfo(repoRoot);
  expect(commit).toMatch(/^[0-9a-f]{40}(\+dirty)?$/);
  expect(result.stdout).toBe(versionLine({ version, commit })); // execa strips the final new line
});

test('kube-sweep --help starts with the ways to install that exist, and no npm command', async () => {
  const result = await run(['--help']);
  expect(result.exitCode).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines[0]).toMatch(/^Install/);
  expect(result.stdout).not.toMatch(/npm i -g kube-sweep|npx kube-sweep/);
  expect(result.stdout).toContain('the npm name is reserved for a future release');
  expect(result.stdout).toMatch(/single executable/);
  expect(result.stdout).toMatch(/kubectl sweep/);
});

test('scan and plan from the installed package: exit codes 0, 1 and 2', async () => {
  await expectExitCodes((args) => run(args), names());
});

test('the package also installs kubectl-sweep, the same program', async () => {
  const result = await run(['--version'], 'kubectl-sweep');
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toMatch(/^kube-sweep /);
});
