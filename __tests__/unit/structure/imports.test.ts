/**
 * The dependency directions ARCHITECTURE.md describes, checked on the import statements of src/
 * (static and type imports, and dynamic `import()`): the layers ("Layers" in ARCHITECTURE.md),
 * where an import only points down, and the rules within them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const src = resolve(process.cwd(), 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each src file (relative, e.g. `rules/codes.ts`) with the src files it imports. */
const graph = new Map<string, string[]>(
  sourceFiles(src).map((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
    const targets = specifiers.map((s) => relative(src, resolve(dirname(file), s)).replace(/\.js$/, '.ts'));
    return [relative(src, file), targets];
  }),
);
/** `[importer, imported]` pairs of the files under `prefix`. */
const importsOf = (prefix: string): [string, string][] =>
  [...graph]
    .filter(([file]) => file.startsWith(prefix))
    .flatMap(([file, targets]) => targets.map((t): [string, string] => [file, t]));

test('the import graph was read', () => {
  expect(graph.size).toBeGreaterThan(50);
  expect(graph.get('rules/findings.ts')).toContain('rules/codes.ts');
});

test('util/ is generic: it imports nothing of the project outside util/', () => {
  expect(importsOf('util/').filter(([, t]) => !t.startsWith('util/'))).toEqual([]);
});

test('two doors into one engine: cli/ and action/ import nothing of each other; only they import execute.ts', () => {
  expect(importsOf('cli/').filter(([, t]) => t.startsWith('action/'))).toEqual([]);
  expect(importsOf('action/').filter(([, t]) => t.startsWith('cli/'))).toEqual([]);
  const importers = [...graph].filter(([, targets]) => targets.includes('execute.ts')).map(([file]) => file);
  expect(importers.filter((f) => !f.startsWith('cli/') && !f.startsWith('action/'))).toEqual([]);
  // The root of src/ holds the shared run only (execute.ts, the strategies of engine.ts, and the two
  // modes that run over many environments or many reports); each entry point lives in its door's folder.
  expect(
    readdirSync(src)
      .filter((name) => name.endsWith('.ts'))
      .sort(),
  ).toEqual(['engine.ts', 'execute.ts', 'merge.ts', 'reap.ts']);
});

test('the finding model is the rules’: rules/ imports nothing from report/', () => {
  expect(importsOf('rules/').filter(([, t]) => t.startsWith('report/'))).toEqual([]);
});

test('no import cycle between files (type imports included)', () => {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
      return;
    }
    state.set(file, 'open');
    for (const t of graph.get(file) ?? []) visit(t, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  expect(cycles).toEqual([]);
});

/**
 * The layers of src/, bottom first: a folder (or a file at the root) imports only its own files and
 * those of lower layers. Same layer, different folder: no import either. teardown/ sits above rules/:
 * its prediction reads the rules' deletion forecast and kubectl commands, so the prediction and the
 * scan never disagree. Top: the two doors and the run they share (checked above).
 */
const layers: readonly (readonly string[])[] = [
  ['util', 'kube', 'words'],
  ['cluster'],
  ['helm'],
  ['inventory'],
  ['plan'],
  ['model'],
  ['rules'],
  ['teardown'],
  ['remediate'],
  ['report'],
  ['config'],
  ['engine'],
  ['reap', 'merge'],
  ['execute', 'action', 'cli'],
];
/** The part of src/ a file belongs to: its top folder, or the file at the root (engine.ts with engine/). */
const partOf = (file: string) => file.split('/')[0]!.replace(/\.ts$/, '');
const layerOf = (part: string) => layers.findIndex((l) => l.includes(part));

test('every part of src/ has its layer', () => {
  expect([...new Set([...graph.keys()].map(partOf))].filter((p) => layerOf(p) < 0)).toEqual([]);
});

test('imports only point down the layers (or stay in their folder)', () => {
  const top = layers.length - 1;
  const up = [...graph]
    .flatMap(([file, targets]) => targets.map((t): [string, string] => [file, t]))
    .filter(([file, target]) => {
      const [from, to] = [partOf(file), partOf(target)];
      if (from === to) return false;
      if (layerOf(from) === top && layerOf(to) === top) return false; // the doors and execute.ts: checked above
      return layerOf(to) >= layerOf(from);
    })
    .map(([file, target]) => `${file} -> ${target}`);
  expect(up).toEqual([]);
});

test('the leaves import nothing of the project: util/, kube/ (Kubernetes vocabulary) and words/ (input words)', () => {
  const leaves = ['util/', 'kube/', 'words/'];
  expect(leaves.flatMap((leaf) => importsOf(leaf).filter(([, t]) => !t.startsWith(leaf)))).toEqual([]);
});

test('no stage imports config/; report/, rules/ and plan/ read the model, never cluster/ or teardown/', () => {
  const stages = [
    'plan/',
    'rules/',
    'inventory/',
    'cluster/',
    'helm/',
    'teardown/',
    'util/',
    'remediate/',
    'report/',
  ];
  expect(stages.flatMap((s) => importsOf(s)).filter(([, t]) => t.startsWith('config/'))).toEqual([]);
  const readers = ['report/', 'rules/', 'plan/'].flatMap((s) => importsOf(s));
  expect(readers.filter(([, t]) => t.startsWith('cluster/') || t.startsWith('teardown/'))).toEqual([]);
});
