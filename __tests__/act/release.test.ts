/**
 * The publishing half of a release, .github/workflows/release-publish.yml (release.yml's `publish`
 * job, after its `test` job), run unchanged by an independent runner (nektos/act, on this host)
 * for a version tag (issue 25, "Releases as action users expect": the krew item proven, not
 * promised). Nothing leaves the machine: the repository is a fresh git repository of this working
 * tree whose `origin` is a local bare repository (the major tag's push lands there), the GitHub API
 * is the local recorder (GITHUB_API_URL; the release and its asset uploads go to it), and `npm ci`
 * installs from npm's local cache only (npm_config_offline). The tag is package.json's version, as
 * the workflow's own check demands.
 *
 * The assertions read what the recorder received, not what the workflow says it did: the krew
 * manifest's sha256 is compared with the sha256 of the archive bytes that were uploaded, computed
 * here. A manifest with 64 zeros (plugins/sweep.yaml as committed) or the sha256 of any other
 * archive fails that comparison (and publish-release.mjs refuses it before uploading, which
 * leaves no upload: the test then fails on the missing assets).
 */
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../integration/support/cluster.js';
import {
  recorderIds,
  startGitHubRecorder,
  type GitHubRecorder,
  type RecordedRequest,
} from '../integration/support/github-recorder.js';
import { actSkipReason, runAct, type ActRun } from './support.js';

const reason = actSkipReason();
const suite = reason ? describe.skip : describe;
const minutes = 60_000;
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;
const tag = `v${version}`;
const repository = 'kube-sweep/kube-sweep';
const token = 'release-test-token';
/** The assets release-publish.yml attaches, by name. */
const assetNames = [
  `kube-sweep-${version}.tgz`,
  'kube-sweep-linux-x64',
  'kubectl-sweep-linux-x64.tar.gz',
  'sweep.yaml',
];

/** Temporary folders of this file, removed after it. */
const scratch: string[] = [];

const git = (cwd: string, ...args: string[]) =>
  execa('git', ['-c', 'user.name=release test', '-c', 'user.email=release@test.invalid', ...args], {
    cwd,
    timeout: 60_000,
  });

/**
 * A new git repository holding this working tree as one commit (tracked and untracked files that
 * are not ignored, as they are now), tagged `tag`, with a bare `origin` beside it that has the
 * branch and the tag. Returns both paths and the commit.
 */
async function taggedRepository(): Promise<{ repo: string; origin: string; sha: string }> {
  const work = mkdtempSync(join(tmpdir(), 'kube-sweep-act-release-'));
  scratch.push(work);
  const repo = join(work, 'repo');
  const origin = join(work, 'origin.git');
  const { stdout } = await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    timeout: 60_000,
  });
  for (const file of stdout.split('\0').filter((f) => f !== '')) {
    const from = join(repoRoot, file);
    let stat;
    try {
      stat = lstatSync(from);
    } catch {
      continue; // deleted in the working tree, not yet committed
    }
    if (!stat.isFile()) continue;
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    copyFileSync(from, join(repo, file));
    chmodSync(join(repo, file), stat.mode & 0o777);
  }
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', `release ${tag} (act test)`);
  await git(repo, 'tag', tag);
  await git(work, 'init', '-q', '--bare', origin);
  await git(repo, 'remote', 'add', 'origin', origin);
  await git(repo, 'push', '-q', 'origin', 'main', tag);
  const sha = (await git(repo, 'rev-parse', 'HEAD')).stdout.trim();
  return { repo, origin, sha };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

suite(`release-publish.yml under act, for ${tag}${reason ? ` (skipped: ${reason})` : ''}`, () => {
  let recorder: GitHubRecorder;
  let repo: { repo: string; origin: string; sha: string };
  let run: ActRun;
  /** The uploaded assets, by name: their bytes as the recorder received them. */
  const uploaded = new Map<string, Buffer>();
  let releases: RecordedRequest[] = [];

  beforeAll(async () => {
    recorder = await startGitHubRecorder();
    repo = await taggedRepository();
    run = await runAct({
      directory: repo.repo,
      workflow: '.github/workflows/release-publish.yml',
      // On GitHub this workflow is called by release.yml's `publish` job with the tag push's context;
      // act runs it as the workflow_call event, with the ref of that push.
      event: 'workflow_call',
      job: 'publish',
      secrets: { GITHUB_TOKEN: token },
      env: {
        GITHUB_API_URL: recorder.url,
        GITHUB_REPOSITORY: repository,
        GITHUB_REF: `refs/tags/${tag}`,
      },
      processEnv: { npm_config_offline: 'true' },
      timeoutMs: 20 * minutes,
    });
    for (const r of recorder.requests) {
      const m = /\/releases\/\d+\/assets\?(.*)$/.exec(r.path);
      if (r.method === 'POST' && m && Buffer.isBuffer(r.body))
        uploaded.set(new URLSearchParams(m[1]).get('name') ?? '', r.body);
    }
    releases = recorder.requests.filter((r) => r.method === 'POST' && /\/releases$/.test(r.path));
  }, 25 * minutes);

  afterAll(async () => {
    await recorder?.close();
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  test('the job succeeds, every step as the workflow expects', () => {
    if (run.jobResult !== 'success' || run.exitCode !== 0)
      throw new Error(`act exited ${run.exitCode} (job ${run.jobResult}); its log:\n${run.text}`);
    // actions/checkout of the repository is act's copy of it; nothing was fetched.
    expect(run.text).not.toContain('LocalRepositoryCache not matched');
    expect(run.text).not.toContain(token);
  });

  test('one release, for the tag, titled with it, with the CHANGELOG section as its notes', () => {
    expect(releases.map((r) => [r.path, r.authorization])).toEqual([
      [`/repos/${repository}/releases`, `token ${token}`],
    ]);
    const body = releases[0]!.body as { tag_name: string; name: string; body: string };
    expect(body.tag_name).toBe(tag);
    expect(body.name).toBe(`kube-sweep ${tag}`);
    // The section: what follows `## <version>` in CHANGELOG.md up to the next `## `.
    const changelog = readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8');
    const section = changelog.split(`\n## ${version}\n`)[1]!.split('\n## ')[0]!.trim();
    expect(section.length).toBeGreaterThan(0);
    expect(body.body).toBe(section);
  });

  test('the four assets, named as the workflow says, uploaded to the upload_url of that release', () => {
    const uploads = recorder.requests.filter((r) => /\/assets\?/.test(r.path));
    expect(
      uploads.every((r) => r.path.startsWith(`/repos/${repository}/releases/${recorderIds.releaseId}/`)),
    ).toBe(true);
    expect([...uploaded.keys()].sort()).toEqual([...assetNames].sort());
    for (const [name, bytes] of uploaded) expect([name, bytes.length > 0]).toEqual([name, true]);
  });

  test("the uploaded krew manifest is this release's: its version, the uploaded archive's URL and sha256", () => {
    const manifest = uploaded.get('sweep.yaml')?.toString('utf8') ?? '';
    const archive = uploaded.get('kubectl-sweep-linux-x64.tar.gz') ?? Buffer.alloc(0);
    // Zeros (plugins/sweep.yaml as committed) or another archive's sha256 fail here: the sha256 is
    // computed from the bytes the recorder received.
    const named = [...manifest.matchAll(/sha256: *["']?([0-9a-f]{64})/g)].map((m) => m[1]);
    expect(named).toEqual([sha256(archive)]);
    const plugin = parse(manifest) as {
      metadata: { name: string };
      spec: { version: string; platforms: { uri: string; sha256: string; bin: string }[] };
    };
    expect(plugin.metadata.name).toBe('sweep');
    expect(plugin.spec.version).toBe(tag);
    // What krew downloads: the archive this release uploaded, at GitHub's download URL of it.
    expect(plugin.spec.platforms).toEqual([
      expect.objectContaining({
        uri: `https://github.com/${repository}/releases/download/${tag}/kubectl-sweep-linux-x64.tar.gz`,
        sha256: sha256(archive),
        bin: 'kubectl-sweep',
      }),
    ]);
  });

  test('the uploaded executable runs and names the tag and the tagged commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-act-release-exe-'));
    scratch.push(dir);
    const exe = join(dir, 'kube-sweep');
    writeFileSync(exe, uploaded.get('kube-sweep-linux-x64') ?? Buffer.alloc(0));
    chmodSync(exe, 0o755);
    const { stdout } = await execa(exe, ['--version'], { timeout: 60_000 });
    expect(stdout.trim()).toBe(`kube-sweep ${version} (commit ${repo.sha})`);
  });

  test('the major tag on origin points at the released commit', async () => {
    const major = tag.split('.')[0]!;
    const { stdout } = await git(repo.origin, 'rev-parse', `refs/tags/${major}^{commit}`);
    expect(stdout.trim()).toBe(repo.sha);
  });
});
