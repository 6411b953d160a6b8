/**
 * The dependency directions ARCHITECTURE.md describes, checked on the import statements of src/
 * (static and type imports, and dynamic `import()`).
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
