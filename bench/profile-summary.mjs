// Summarises a V8 .cpuprofile (node --cpu-prof) by self time: top functions, and totals per
// source (a package under node_modules, a file of src/, or a V8 pseudo-node such as
// "(garbage collector)"). For the inventory benchmark's profiled run of (a):
//   node bench/profile-summary.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

function source(url) {
  if (!url) return '(native / V8 builtin)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

const fns = new Map();
const sources = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const pseudo = callFrame.functionName.startsWith('(');
  const src = pseudo ? callFrame.functionName : source(callFrame.url);
  const key = `${callFrame.functionName || '(anonymous)'}  ${src}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  sources.set(src, (sources.get(src) ?? 0) + us);
}
const pct = (us) =>
  `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
console.log('\nself time by source');
for (const [k, us] of [...sources].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log('\nself time by function');
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
