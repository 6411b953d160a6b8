// Builds the single executable of the CLI for this platform (Node's single executable
// applications, as Node 24 ships them: `node --experimental-sea-config` writes the blob,
// postject injects it into a copy of the Node 24 binary from scripts/node24.sh):
//   1. esbuild bundles src/cli/sea.ts into ONE CommonJS file (a SEA's main script cannot be an
//      ES module nor load chunks from disk, so client-node's lazy chunk is inlined), stamped
//      with the version and commit (scripts/build-info.mjs);
//      (`import.meta.url` is defined as the executable's file URL, for modules that call
//      createRequire(import.meta.url) when they load);
//   2. the SEA config sets the V8 flags (execArgv, util/relaunch.ts v8Flags) and no warning;
//      no V8 code cache by default: then two builds of one commit are byte-identical (a code
//      cache starts faster but differs from build to build: --code-cache; docs/install.md);
//   3. the result is cached by version: ~/.cache/kube-sweep/sea/<version>-<node>-<hash>/, where
//      the hash covers the bundle, the Node version and the SEA config; a rebuild with nothing
//      changed copies the cached file (well under a second).
// Writes build/sea/kube-sweep-<os>-<arch> (override with --out <file>), a reproducible tar.gz
// of it as `kubectl-sweep` for krew (build/sea/kubectl-sweep-<os>-<arch>.tar.gz), and
// build/sea/sweep.yaml: plugins/sweep.yaml with that archive's sha256 (for `kubectl krew install
// --manifest build/sea/sweep.yaml --archive <tar.gz>`). Prints the executable's path.
// Usage: node scripts/sea.mjs [--out <file>] [--code-cache]     (Node 24 first on PATH; npm ci done)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildInfo, hasPlaceholders, stamp } from './build-info.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const platform = `${process.platform}-${process.arch}`;
const outArg = process.argv.indexOf('--out');
const out =
  outArg > 0 ? resolve(process.argv[outArg + 1]) : join(root, 'build', 'sea', `kube-sweep-${platform}`);
const log = (line) => process.stderr.write(`[sea] ${line}\n`);

// The Node 24 binary that the executable carries (the same pinned one CI runs on).
const nodeBin = join(
  execFileSync('bash', [join(root, 'scripts', 'node24.sh')], { encoding: 'utf8' }).trim(),
  'node',
);
const nodeVersion = execFileSync(nodeBin, ['--version'], { encoding: 'utf8' }).trim();

// 1. One CommonJS file.
const bundled = await build({
  entryPoints: [join(root, 'src', 'cli', 'sea.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  minify: true,
  legalComments: 'none',
  // ES modules bundled into CommonJS lose `import.meta.url` (esbuild leaves it undefined): fdir
  // (through tinyglobby, `mode: merge`) calls createRequire(import.meta.url) when it loads, and
  // the executable died at start. Give them the executable's own file URL (in a SEA, __filename
  // is process.execPath; Node's single-executable-applications doc).
  define: { 'import.meta.url': 'seaImportMetaUrl' },
  banner: { js: 'var seaImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
  write: false,
  logLevel: 'warning',
});
const code = bundled.outputFiles[0].text;
const thirdParty = thirdPartyLicenses(Object.keys(bundled.metafile.inputs));
if (!hasPlaceholders(code)) throw new Error('sea: the bundle has no placeholders of src/cli/version.ts');
const info = buildInfo(root);
const main = stamp(code, info);

// 2. The SEA config (execArgv: the flags util/relaunch.ts would relaunch with, read from its source).
const flagsModule = await build({
  stdin: { contents: "export { v8Flags } from './src/util/relaunch.ts';", resolveDir: root, loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  write: false,
  logLevel: 'warning',
});
const { v8Flags } = await import(
  `data:text/javascript,${encodeURIComponent(flagsModule.outputFiles[0].text)}`
);
const config = {
  disableExperimentalSEAWarning: true,
  useSnapshot: false,
  useCodeCache: process.argv.includes('--code-cache'),
  execArgv: v8Flags,
};

// 3. Cached by version (and by content, so a changed source never reuses a stale binary; the
//    archive's licenses are part of the content).
const key = createHash('sha256')
  .update(main)
  .update(thirdParty)
  .update(readFileSync(join(root, 'LICENSE')))
  .update(nodeVersion)
  .update(JSON.stringify(config))
  .digest('hex')
  .slice(0, 16);
const cacheDir = join(
  process.env.KUBE_SWEEP_CACHE ?? join(process.env.HOME ?? tmpdir(), '.cache', 'kube-sweep'),
  'sea',
  `${info.version}-${nodeVersion}-${platform}-${key}`,
);
const cached = join(cacheDir, 'kube-sweep');
if (existsSync(cached)) {
  log(`reusing ${cached}`);
} else {
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'kube-sweep-sea-'));
  try {
    writeFileSync(join(work, 'main.cjs'), main);
    writeFileSync(
      join(work, 'sea-config.json'),
      JSON.stringify({ main: 'main.cjs', output: 'sea.blob', ...config }, null, 2),
    );
    execFileSync(nodeBin, ['--experimental-sea-config', 'sea-config.json'], {
      cwd: work,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exe = join(work, 'kube-sweep');
    copyFileSync(nodeBin, exe);
    chmodSync(exe, 0o755);
    const { inject } = require('postject');
    await inject(exe, 'NODE_SEA_BLOB', readFileSync(join(work, 'sea.blob')), {
      sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    });
    mkdirSync(cacheDir, { recursive: true });
    copyFileSync(exe, `${cached}.tmp`);
    chmodSync(`${cached}.tmp`, 0o755);
    renameSync(`${cached}.tmp`, cached);
    log(`built ${cached} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
mkdirSync(dirname(out), { recursive: true });
rmSync(out, { force: true });
copyFileSync(cached, out);
chmodSync(out, 0o755);

// The krew archive: `kubectl-sweep`, LICENSE and licenses.txt (the bundled packages' licenses) at
// its root, tar'd reproducibly (fixed order, times, owners), made once per cached executable.
const cachedArchive = join(cacheDir, `kubectl-sweep-${platform}.tar.gz`);
if (!existsSync(cachedArchive)) {
  const stage = mkdtempSync(join(tmpdir(), 'kube-sweep-krew-'));
  try {
    copyFileSync(cached, join(stage, 'kubectl-sweep'));
    chmodSync(join(stage, 'kubectl-sweep'), 0o755);
    copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));
    writeFileSync(join(stage, 'licenses.txt'), thirdParty);
    for (const f of ['LICENSE', 'licenses.txt']) chmodSync(join(stage, f), 0o644);
    const tar = execFileSync(
      'tar',
      [
        '--sort=name',
        '--mtime=@0',
        '--owner=0',
        '--group=0',
        '--numeric-owner',
        '-C',
        stage,
        '-cf',
        '-',
        'LICENSE',
        'kubectl-sweep',
        'licenses.txt',
      ],
      { maxBuffer: 1 << 30 },
    );
    writeFileSync(`${cachedArchive}.tmp`, execFileSync('gzip', ['-n'], { input: tar, maxBuffer: 1 << 30 }));
    renameSync(`${cachedArchive}.tmp`, cachedArchive);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
const archive = join(dirname(out), `kubectl-sweep-${platform}.tar.gz`);
copyFileSync(cachedArchive, archive);
const sha256 = createHash('sha256').update(readFileSync(archive)).digest('hex');
const manifest = readFileSync(join(root, 'plugins', 'sweep.yaml'), 'utf8');
const filled = manifest.replace(/sha256: *["']?[0-9a-f]{64}["']?/, `sha256: '${sha256}'`);
if (filled === manifest && !manifest.includes(sha256))
  throw new Error('sea: plugins/sweep.yaml has no sha256 line to fill');
writeFileSync(join(dirname(out), 'sweep.yaml'), filled);
log(`krew archive ${archive} (sha256 ${sha256})`);
console.log(out);

/**
 * The licenses of the npm packages whose files esbuild bundled (`inputs`: the metafile's paths),
 * one section per package (name, version, license field, its LICENSE file), sorted by name.
 */
function thirdPartyLicenses(inputs) {
  const dirs = new Set();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file
      ? readFileSync(join(root, dir, file), 'utf8').trim()
      : '(no license file in the package)';
    return `${pkg.name}@${pkg.version} (${pkg.license ?? 'license field missing'})\n\n${text}\n`;
  });
  // The executable is a Node binary: Node's own LICENSE (node24.sh installs it beside bin/).
  const node = `node@${nodeVersion.slice(1)}\n\n${readFileSync(join(dirname(nodeBin), '..', 'LICENSE'), 'utf8').trim()}\n`;
  return `Node and the packages bundled into kube-sweep's single executable, and their licenses.\n\n${[node, ...sections].join('\n---\n\n')}`;
}
