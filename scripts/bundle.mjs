// Bundles the three entry points with @vercel/ncc into dist/ (committed: GitHub runs dist/):
//   src/action/index.ts -> dist/index.js, src/action/post-entry.ts -> dist/post/index.js, src/cli/bin.ts -> dist/cli/index.js
// (plus the chunks of their dynamic imports, <id>.index.js, minified with terser).
// The CLI and action bundles are stamped with the version and commit (scripts/build-info.mjs;
// `kube-sweep --version`, the report's toolVersion).
// With --check, bundles into a temporary folder and fails when dist/ differs (stale bundle); the
// stamped commit is masked in that comparison, so a bundle committed after its source stays fresh.
import ncc from '@vercel/ncc';
import { minify } from 'terser';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfo, hasPlaceholders, maskCommit, stamp } from './build-info.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entries = [
  ['src/action/index.ts', ''],
  ['src/action/post-entry.ts', 'post'],
  ['src/cli/bin.ts', 'cli'],
];
const check = process.argv.includes('--check');
// Bundle into a fresh folder; dist/ is replaced only when every entry bundled.
const outRoot = mkdtempSync(join(tmpdir(), 'kube-sweep-dist-'));
const info = buildInfo(root);
let stamped = false;
/** The code (entry or chunk) with the build info stamped in; `stamped` says the CLI's was. */
const stampCli = (sub, code) => {
  if (!hasPlaceholders(code)) return code;
  if (sub === 'cli') stamped = true;
  return stamp(code, info);
};

for (const [entry, sub] of entries) {
  const { code, assets } = await ncc(join(root, entry), {
    minify: true,
    sourceMap: false,
    quiet: true,
    license: sub === 'post' ? undefined : 'licenses.txt', // the CLI is shipped on its own (npm package)
  });
  const dir = join(outRoot, sub);
  mkdirSync(dir, { recursive: true });
  const banner = sub === 'cli' ? '#!/usr/bin/env node\n' : '';
  const body = code.replace(/^#!.*\n/, '');
  writeFileSync(join(dir, 'index.js'), banner + stampCli(sub, body), {
    mode: sub === 'cli' ? 0o755 : 0o644,
  });
  for (const [name, asset] of Object.entries(assets ?? {})) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    // ncc minifies the entry only; its lazily loaded chunks (e.g. @kubernetes/client-node,
    // imported only for exec credential plugins) come out as written: minify them the same way.
    const source = name.endsWith('.js')
      ? stampCli(
          sub,
          (await minify(asset.source.toString(), { module: true, compress: false, mangle: true })).code,
        )
      : asset.source;
    writeFileSync(join(dir, name), source);
  }
}
writeFileSync(join(outRoot, 'package.json'), '{ "type": "module" }\n');
if (!stamped) throw new Error('bundle: no CLI file holds the placeholders of src/cli/version.ts');

if (!check) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  cpSync(outRoot, join(root, 'dist'), { recursive: true });
  rmSync(outRoot, { recursive: true, force: true });
}

if (check) {
  const list = (base) => {
    const files = [];
    const walk = (d) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(relative(base, p));
      }
    };
    walk(base);
    return files.sort();
  };
  let fresh;
  const same = (f) => {
    const [a, b] = [readFileSync(join(outRoot, f)), readFileSync(join(root, 'dist', f))];
    return f.endsWith('.js') ? maskCommit(a.toString()) === maskCommit(b.toString()) : a.equals(b);
  };
  try {
    const a = list(outRoot);
    const b = list(join(root, 'dist'));
    fresh = a.length === b.length && a.every((f, i) => f === b[i] && same(f));
    if (!fresh) {
      const differ = a.filter((f) => !b.includes(f) || !same(f));
      console.error(
        `dist/ is stale: ${[...differ, ...b.filter((f) => !a.includes(f))].slice(0, 10).join(', ')}`,
      );
    }
  } catch (error) {
    console.error(`dist/ is stale or missing: ${error.message}`);
    fresh = false;
  }
  rmSync(outRoot, { recursive: true, force: true });
  if (!fresh) {
    console.error('Run `npm run bundle` and commit dist/.');
    process.exit(1);
  }
  console.log('dist/ is fresh');
}
