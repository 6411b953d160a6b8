/**
 * The single executable (scripts/sea.mjs: Node 24 and the bundled CLI in one file), run with
 * no `node` on PATH against the local control plane: --version, scan and plan, exit codes 0/1/2.
 */
import { execa } from 'execa';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import which from 'which';
import {
  buildSingleExecutable,
  exitCodeNamespaces,
  expectExitCodes,
  pathWithoutNode,
  type SeaBuild,
} from './support/cli-builds.js';
import { buildInfo } from '../../scripts/build-info.mjs';
import { clusterEnv, repoRoot } from '../integration/support/cluster.js';
import { versionLine } from '../../src/cli/version.js';

const names = exitCodeNamespaces();
let sea: SeaBuild;
let path: string;
beforeAll(async () => {
  sea = await buildSingleExecutable();
  path = pathWithoutNode();
}, 600_000);

/** The executable with PATH = a folder without node, and nothing else of this environment but HOME. */
const run = (args: string[]) =>
  execa(sea.executable, args, {
    reject: false,
    extendEnv: false,
    env: { PATH: path, HOME: process.env.HOME ?? '/' },
  });

test('it is one file, and the PATH it runs with has no node', () => {
  expect(statSync(sea.executable).isFile()).toBe(true);
  expect(which.sync('node', { path, nothrow: true })).toBeNull();
});

test('--version prints the version and the commit', async () => {
  const result = await run(['--version']);
  expect(result.exitCode).toBe(0);
  // scripts/sea.mjs stamps the checkout it builds from; a missing stamp or `unknown` fails here.
  const info = buildInfo(repoRoot);
  expect(info.commit).toMatch(/^[0-9a-f]{40}(\+dirty)?$/);
  expect(result.stdout).toBe(versionLine(info)); // execa strips the final new line
});

test('scan and plan without Node on PATH: exit codes 0, 1 and 2', async () => {
  await expectExitCodes(run, names());
});

test('merge finds report files by glob (the glob library loads in the executable)', async () => {
  // fdir (under tinyglobby) calls createRequire(import.meta.url) when it loads; the executable
  // died at start before scripts/sea.mjs defined import.meta.url.
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-sea-merge-'));
  const scan = await run([
    'scan',
    ...['--kubeconfig', clusterEnv().kubeconfig, '--scan-scope', 'environment'],
    ...['--namespaces', names().clean, '--report-path', join(dir, 'cluster-a', 'report.json')],
  ]);
  expect(scan.exitCode).toBe(0);
  const merged = await run(['merge', join(dir, '*', 'report.json'), '--output', 'json']);
  expect(merged.stderr).toContain('merging 1 report(s)');
  expect(merged.exitCode).toBe(0);
  expect(JSON.parse(merged.stdout)).toMatchObject({ mode: 'merge', verdict: 'clean' });
});
