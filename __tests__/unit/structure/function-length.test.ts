/**
 * No function in src/ (declarations, methods, arrow functions and function expressions, nested
 * ones included) is longer than 80 lines, counted from its first line to its last (docstring
 * not included): a longer one reads better as named parts. Checked on the syntax of every src file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const maxLines = 80;

/**
 * Functions allowed to be longer, as `<file under src/> <name>`, each with why. An entry that is
 * no longer too long fails the test too, so the list only shrinks.
 */
const allowed: Readonly<Record<string, string>> = {};

const src = join(process.cwd(), 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** A function's name: its own, the variable or property it is assigned to, else `(anonymous)`. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(file);
  return '(anonymous)';
}

/** `<file under src/> <name>` → length in lines, for every function in src/. */
function functionLengths(): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const path of sourceFiles(src)) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
        const key = `${relative(src, path)} ${nameOf(node as ts.FunctionLikeDeclaration, file)}`;
        lengths.set(key, Math.max(lengths.get(key) ?? 0, last - first + 1));
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return lengths;
}

const lengths = functionLengths();

test('the functions of src/ were read', () => {
  expect(lengths.size).toBeGreaterThan(500);
  expect(lengths.get('cluster/api-client.ts createApiClient')).toBeGreaterThan(10);
});

test(`no function in src/ is longer than ${maxLines} lines (split it into named parts)`, () => {
  const tooLong = [...lengths]
    .filter(([key, lines]) => lines > maxLines && !(key in allowed))
    .map(([key, lines]) => `${key}: ${lines} lines`);
  expect(tooLong).toEqual([]);
});

test('every allowed long function is still there and still too long (else drop it from the list)', () => {
  const stale = Object.keys(allowed).filter((key) => (lengths.get(key) ?? 0) <= maxLines);
  expect(stale).toEqual([]);
});
