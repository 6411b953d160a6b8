// Bundles bench/inventory-runner.ts (or the entry given) with @vercel/ncc, minified, the way
// scripts/bundle.mjs builds dist/, so measurement (a) loads the code as the action does.
//   node bench/bundle-runner.mjs <out dir> [entry.ts]   -> <out dir>/index.js (+ package.json)
import ncc from '@vercel/ncc';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [out, entry] = process.argv.slice(2);
if (!out) throw new Error('usage: node bench/bundle-runner.mjs <out dir> [entry.ts]');
const here = dirname(fileURLToPath(import.meta.url));
const { code, assets } = await ncc(entry ? resolve(entry) : join(here, 'inventory-runner.ts'), {
  minify: true,
  sourceMap: false,
  quiet: true,
});
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'index.js'), code);
// The chunks of dynamic imports (the relaunched work, client-node for exec plugins).
for (const [name, asset] of Object.entries(assets ?? {})) writeFileSync(join(out, name), asset.source);
writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n');
console.log(join(out, 'index.js'));
