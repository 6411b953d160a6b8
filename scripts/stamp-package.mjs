// npm pack's prepack and postpack (package.json): the package must name the commit it is packed
// from. The committed dist/cli was bundled before the commit that holds it, so its stamp names the
// commit before, with `+dirty` (scripts/build-info.mjs). `prepack` stamps dist/cli again with this
// checkout's commit (`+dirty` only when a tracked file outside dist/ differs from it) and keeps the
// files as they were in build/stamp-package/; `postpack` puts them back, so packing leaves the
// checkout as it found it. No stamp in dist/cli is an error: `npm run bundle` first.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfo, restamp } from './build-info.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/cli');
const kept = join(root, 'build/stamp-package');

if (process.argv[2] === 'restore') {
  if (existsSync(kept)) {
    for (const file of readdirSync(kept)) copyFileSync(join(kept, file), join(cli, file));
    rmSync(kept, { recursive: true, force: true });
  }
} else {
  const info = buildInfo(root);
  let stamps = 0;
  mkdirSync(kept, { recursive: true });
  for (const file of readdirSync(cli).filter((f) => f.endsWith('.js'))) {
    const code = readFileSync(join(cli, file), 'utf8');
    const { code: stamped, count } = restamp(code, info);
    if (count === 0) continue;
    copyFileSync(join(cli, file), join(kept, file));
    writeFileSync(join(cli, file), stamped);
    stamps += count;
  }
  if (stamps !== 1) {
    console.error(`stamp-package: dist/cli holds ${stamps} version stamps, not 1; run npm run bundle`);
    process.exit(1);
  }
  console.error(`stamp-package: dist/cli stamped ${info.version} (commit ${info.commit})`);
}
