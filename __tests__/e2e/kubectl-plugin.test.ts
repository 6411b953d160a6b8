/**
 * `kubectl sweep`: the single executable on PATH as `kubectl-sweep`, found and run by the real
 * kubectl of the control-plane build (no node on PATH). Its kubeconfig follows kubectl's rules,
 * checked against kubectl itself: --kubeconfig, $KUBECONFIG as a colon-separated list merged as
 * kubectl merges it, --context. And the krew manifest plugins/sweep.yaml, checked with krew's
 * own code built from its Go module (test/krew/build.sh): validate-krew-manifest (the checks
 * krew-index runs: internal/index/validation, platform selectors), then `kubectl krew install
 * --manifest --archive` with the archive scripts/sea.mjs built, a license file among the
 * installed files (krew-index requires one), and the installed plugin runs.
 */
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { parse } from 'yaml';
import type { Report } from '../../src/report/report.js';
import { clusterEnv, repoRoot } from '../integration/support/cluster.js';
import { nothingListeningKubeconfig } from '../integration/support/identities.js';
import {
  buildSingleExecutable,
  exitCodeNamespaces,
  expectExitCodes,
  pathWithoutNode,
  type SeaBuild,
} from './support/cli-builds.js';

const names = exitCodeNamespaces();
let sea: SeaBuild;
let path: string;
let krewDir: string;
beforeAll(async () => {
  sea = await buildSingleExecutable();
  path = pathWithoutNode(['kubectl', clusterEnv().kubectl], ['kubectl-sweep', sea.executable]);
  krewDir = (await execa('bash', [join(repoRoot, 'test/krew/build.sh')])).stdout.trim();
}, 600_000);

/** Runs the real kubectl with PATH = kubectl + kubectl-sweep (no node), and `env` on top. */
const kubectl = (args: string[], env: Record<string, string> = {}, pathDirs: string[] = [path]) =>
  execa('kubectl', args, {
    reject: false,
    extendEnv: false,
    env: { HOME: mkdtempSync(join(tmpdir(), 'kube-sweep-home-')), ...env, PATH: pathDirs.join(delimiter) },
  });

test('kubectl plugin list finds kubectl-sweep, and kubectl sweep --version runs it', async () => {
  const list = await kubectl(['plugin', 'list']);
  expect(list.stdout).toContain(join(path, 'kubectl-sweep'));
  const version = await kubectl(['sweep', '--version']);
  expect(version.exitCode).toBe(0);
  expect(version.stdout).toMatch(/^kube-sweep \d+\.\d+\.\d+/);
});

test('kubectl sweep scan and plan: exit codes 0, 1 and 2 pass through kubectl', async () => {
  await expectExitCodes((args) => kubectl(['sweep', ...args]), names());
});

describe('the kubeconfig follows kubectl', () => {
  /**
   * Two files for $KUBECONFIG: `first` sets current-context to the local control plane's
   * context (defined only in `second`) and defines a context `unreachable` of its own.
   */
  function kubeconfigList() {
    const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-kubeconfigs-'));
    const local = parse(readFileSync(clusterEnv().kubeconfig, 'utf8'));
    const other = parse(nothingListeningKubeconfig());
    other['current-context'] = local['current-context'];
    other.contexts[0].name = 'unreachable';
    other.clusters[0].name = 'unreachable';
    other.users[0].name = 'unreachable';
    other.contexts[0].context = { cluster: 'unreachable', user: 'unreachable' };
    const first = join(dir, 'first');
    writeFileSync(first, JSON.stringify(other));
    return { first, second: clusterEnv().kubeconfig, KUBECONFIG: [first, clusterEnv().kubeconfig].join(':') };
  }
  const report = (stdout: string) => JSON.parse(stdout) as Report;
  const kubectlServer = async (env: Record<string, string>, args: string[] = []) =>
    (
      await kubectl(
        ['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}', ...args],
        env,
      )
    ).stdout;

  test('$KUBECONFIG with two files: the same context and server as kubectl, and a scan that works', async () => {
    const { KUBECONFIG } = kubeconfigList();
    const context = (await kubectl(['config', 'current-context'], { KUBECONFIG })).stdout;
    expect(context).toBe(parse(readFileSync(clusterEnv().kubeconfig, 'utf8'))['current-context']);
    expect((await kubectl(['get', 'namespace', 'default', '-o', 'name'], { KUBECONFIG })).stdout).toBe(
      'namespace/default',
    );
    const scan = await kubectl(['sweep', 'plan', '--namespaces', names().clean, '--output', 'json'], {
      KUBECONFIG,
    });
    expect(scan.exitCode).toBe(0);
    expect(report(scan.stdout).cluster).toMatchObject({
      context,
      server: await kubectlServer({ KUBECONFIG }),
    });
  });

  test('--context picks a context from any file of $KUBECONFIG, as kubectl does', async () => {
    const { KUBECONFIG } = kubeconfigList();
    expect(await kubectlServer({ KUBECONFIG }, ['--context', 'unreachable'])).toBe('https://127.0.0.1:1');
    const bykubectl = await kubectl(
      ['get', 'namespaces', '--context', 'unreachable', '--request-timeout', '5s'],
      {
        KUBECONFIG,
      },
    );
    expect(bykubectl.exitCode).not.toBe(0);
    const sweep = await kubectl(
      ['sweep', 'plan', '--context', 'unreachable', '--namespaces', names().clean, '--output', 'json'],
      {
        KUBECONFIG,
      },
    );
    expect(sweep.exitCode).toBe(2);
    expect(report(sweep.stdout).error).toMatch(/127\.0\.0\.1:1/);
  });

  test('--kubeconfig wins over $KUBECONFIG, as in kubectl', async () => {
    const { first } = kubeconfigList();
    const unreachableOnly = { KUBECONFIG: first };
    const args = ['--kubeconfig', clusterEnv().kubeconfig];
    expect(
      (await kubectl(['get', 'namespace', 'default', '-o', 'name', ...args], unreachableOnly)).exitCode,
    ).toBe(0);
    const sweep = await kubectl(
      ['sweep', 'plan', ...args, '--namespaces', names().clean, '--output', 'json'],
      unreachableOnly,
    );
    expect(sweep.exitCode).toBe(0);
    expect(report(sweep.stdout).cluster.server).toBe(await kubectlServer({}, args));
  });
});

describe('krew', () => {
  const krew = (args: string[], root: string) =>
    kubectl(['krew', ...args], { KREW_ROOT: root }, [join(root, 'bin'), path, krewDir]);
  const validate = (manifest: string) =>
    execa(join(krewDir, 'validate-krew-manifest'), ['-manifest', manifest, '-skip-install'], {
      reject: false,
    });

  test('plugins/sweep.yaml passes validate-krew-manifest, and so does the built one', async () => {
    const committed = await validate(join(repoRoot, 'plugins/sweep.yaml'));
    expect(committed.stderr).toContain('structural validation OK');
    expect(committed.exitCode).toBe(0);
    const built = await validate(sea.manifest);
    expect(built.stderr).toContain('no overlapping spec.platform[].selector');
    expect(built.exitCode).toBe(0);
    // The built manifest is plugins/sweep.yaml with only the archive's sha256 filled in.
    const text = readFileSync(sea.manifest, 'utf8');
    const sha256 = /sha256: '([0-9a-f]{64})'/.exec(text)![1]!;
    expect(sha256).toBe(createHash('sha256').update(readFileSync(sea.archive)).digest('hex'));
    expect(text).toBe(
      readFileSync(join(repoRoot, 'plugins/sweep.yaml'), 'utf8').replace(
        /sha256: '[0-9a-f]{64}'/,
        `sha256: '${sha256}'`,
      ),
    );
  });

  test('validate-krew-manifest refuses a manifest that breaks krew rules (so the check above can fail)', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'kube-sweep-krew-')), 'sweep.yaml');
    writeFileSync(broken, readFileSync(sea.manifest, 'utf8').replace(/^ {2}version: .*$/m, '  version: 0.1'));
    const result = await validate(broken);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/failed to parse plugin version/);
  });

  test('krew installs it from the archive, with its licenses, and kubectl sweep runs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kube-sweep-krew-'));
    const install = await krew(['install', `--manifest=${sea.manifest}`, `--archive=${sea.archive}`], root);
    expect(install.stderr).toMatch(/Installed plugin: sweep/);
    expect(install.exitCode).toBe(0);
    const installed = readdirSync(join(root, 'store', 'sweep'), { recursive: true, encoding: 'utf8' });
    expect(installed.map((f) => basename(f))).toEqual(
      expect.arrayContaining(['LICENSE', 'kubectl-sweep', 'licenses.txt']),
    );
    // krew's record of the install (`krew list` reads these, but needs the index, which needs the network).
    expect(parse(readFileSync(join(root, 'receipts', 'sweep.yaml'), 'utf8')).spec.version).toBe(
      parse(readFileSync(sea.manifest, 'utf8')).spec.version,
    );
    const version = await kubectl(['sweep', '--version'], { KREW_ROOT: root }, [
      join(root, 'bin'),
      dirname(clusterEnv().kubectl),
    ]);
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toMatch(/^kube-sweep /);
  });
});
