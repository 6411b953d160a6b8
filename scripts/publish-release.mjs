// The release workflow's own checks and its GitHub release (.github/workflows/release.yml and
// release-publish.yml; docs/release.md), through @actions/github's Octokit, which talks to
// $GITHUB_API_URL (GitHub's API on GitHub; the act test's recorder on this machine).
//
//   node scripts/publish-release.mjs check <tag>
//     Fails unless <tag> is `v` + package.json's version and CHANGELOG.md has its `## <version>`
//     section (the release notes).
//   node scripts/publish-release.mjs publish <tag> <file>...
//     The same checks; refuses a krew manifest (sweep.yaml among the files) that is not this
//     release's: its version must be <tag>, its uri this release's download URL of the krew
//     archive among the files (kubectl-sweep-*.tar.gz) and its sha256 that archive's; then creates the
//     release <tag> (title `kube-sweep <tag>`, notes: the CHANGELOG.md section) in
//     $GITHUB_REPOSITORY with the token $GITHUB_TOKEN, and uploads each file as an asset named
//     as the file, to the upload_url the API returned. Prints each asset's download URL.
// Exits 1 with the reason on any failure (nothing is uploaded when a check fails).
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The `## <version>` section of a changelog: the lines after its heading up to the next `## `
 * heading, trimmed. Throws when the section is missing or empty.
 */
export function changelogSection(changelog, version) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${version}`);
  if (start < 0) throw new Error(`CHANGELOG.md has no '## ${version}' section: add it (the release notes)`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const section = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .join('\n')
    .trim();
  if (section === '') throw new Error(`CHANGELOG.md's '## ${version}' section is empty`);
  return section;
}

/** The version a tag names (`v1.2.3` → `1.2.3`); throws unless it is `v` + `packageVersion`. */
export function tagVersion(tag, packageVersion) {
  if (tag !== `v${packageVersion}`)
    throw new Error(`tag '${tag}' is not package.json's version v${packageVersion}: tag v${packageVersion}`);
  return packageVersion;
}

/**
 * Throws unless the krew manifest among `files` (sweep.yaml) is the one of this release: its
 * `spec.version` is `tag`, and its one platform's `uri` is this release's download URL of the
 * krew archive among `files` (kubectl-sweep-*.tar.gz; `<server>/<repository>/releases/download/
 * <tag>/<name>`) and its `sha256` that archive's sha256. `read` returns a file's bytes. No
 * manifest among `files`: nothing to check.
 */
export function checkKrewManifest(files, read, { tag, server, repository }) {
  const manifest = files.find((f) => basename(f) === 'sweep.yaml');
  if (!manifest) return;
  const archive = files.find((f) => /^kubectl-sweep-.*\.tar\.gz$/.test(basename(f)));
  if (!archive) throw new Error('sweep.yaml is published without its krew archive kubectl-sweep-*.tar.gz');
  const spec = parse(read(manifest).toString('utf8'))?.spec ?? {};
  const platforms = spec.platforms ?? [];
  const sha = createHash('sha256').update(read(archive)).digest('hex');
  const uri = `${server}/${repository}/releases/download/${tag}/${basename(archive)}`;
  const problems = [
    spec.version === tag ? '' : `spec.version is '${spec.version}', not '${tag}'`,
    platforms.length === 1 ? '' : `it has ${platforms.length} platforms, not the one archive`,
    platforms[0]?.uri === uri ? '' : `the uri is '${platforms[0]?.uri}', not '${uri}'`,
    platforms[0]?.sha256 === sha
      ? ''
      : `the sha256 is '${platforms[0]?.sha256}', not ${basename(archive)}'s ${sha}`,
  ].filter((p) => p !== '');
  if (problems.length > 0)
    throw new Error(
      `sweep.yaml is not this release's manifest: ${problems.join('; ')} (plugins/sweep.yaml gives version and uri, scripts/sea.mjs the sha256)`,
    );
}

/** The release's notes after the checks of `check` (reads package.json and CHANGELOG.md). */
function notesOf(tag) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return changelogSection(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), tagVersion(tag, version));
}

/** Creates the release and uploads `files`; returns the assets' download URLs. */
async function publish(tag, files) {
  const notes = notesOf(tag);
  const token = process.env.GITHUB_TOKEN;
  const repository = process.env.GITHUB_REPOSITORY ?? '';
  const [owner, repo] = repository.split('/');
  if (!token) throw new Error('GITHUB_TOKEN is not set: give the job token (github.token)');
  if (!owner || !repo) throw new Error('GITHUB_REPOSITORY is not owner/name (the runner sets it)');
  const server = process.env.GITHUB_SERVER_URL ?? 'https://github.com';
  checkKrewManifest(files, (f) => readFileSync(f), { tag, server, repository });
  const { getOctokit } = await import('@actions/github');
  const octokit = getOctokit(token);
  const { data: release } = await octokit.rest.repos.createRelease({
    owner,
    repo,
    tag_name: tag,
    name: `kube-sweep ${tag}`,
    body: notes,
  });
  const urls = [];
  for (const file of files) {
    const { data: asset } = await octokit.rest.repos.uploadReleaseAsset({
      owner,
      repo,
      release_id: release.id,
      url: release.upload_url,
      name: basename(file),
      data: readFileSync(file),
      headers: { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size },
    });
    urls.push(asset.browser_download_url);
  }
  return [release.html_url, ...urls];
}

const usage = 'usage: node scripts/publish-release.mjs check <tag> | publish <tag> <file>...';
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [command, tag, ...files] = process.argv.slice(2);
  try {
    if (!tag || !['check', 'publish'].includes(command) || (command === 'publish' && files.length === 0))
      throw new Error(usage);
    if (command === 'check') notesOf(tag);
    else for (const url of await publish(tag, files)) console.log(url);
  } catch (error) {
    process.stderr.write(`publish-release: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
