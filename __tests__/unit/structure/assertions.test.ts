/**
 * A test whose every `expect` sits in a loop, a branch or a callback can pass having checked
 * nothing (an empty list, a helper that never calls back): such a test must say
 * `expect.hasAssertions()` (or `expect.assertions(n)`). Checked on the syntax of every test file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(process.cwd(), '__tests__');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
}

/** `test(...)`, `it(...)`, `test.each(...)(...)`, `test.skip(...)`. */
function isTestCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node)) return false;
  let callee: ts.Expression = node.expression;
  if (ts.isCallExpression(callee)) callee = callee.expression;
  if (ts.isPropertyAccessExpression(callee)) callee = callee.expression;
  return ts.isIdentifier(callee) && (callee.text === 'test' || callee.text === 'it');
}

/** Nodes under which an `expect` may run zero times. */
function mayNotRun(node: ts.Node, body: ts.Node): boolean {
  return (
    ts.isForStatement(node) ||
    ts.isForOfStatement(node) ||
    ts.isForInStatement(node) ||
    ts.isWhileStatement(node) ||
    ts.isIfStatement(node) ||
    ts.isConditionalExpression(node) ||
    ts.isCatchClause(node) ||
    ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && node !== body)
  );
}

/** `file:line test name` of each test with expects, none of them unconditional, and no hasAssertions. */
function unguardedTests(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isTestCall(node)) {
      const fn = node.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a));
      if (fn) {
        let unconditional = 0;
        let total = 0;
        let guarded = false;
        const walk = (n: ts.Node, conditional: boolean): void => {
          if (ts.isCallExpression(n)) {
            const callee = n.expression.getText(source);
            if (callee === 'expect.hasAssertions' || callee === 'expect.assertions') guarded = true;
            if (callee === 'expect') {
              total++;
              if (!conditional) unconditional++;
            }
          }
          const inner = conditional || mayNotRun(n, fn);
          ts.forEachChild(n, (child) => walk(child, inner));
        };
        walk(fn, false);
        if (total > 0 && unconditional === 0 && !guarded) {
          const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          found.push(`${relative(root, file)}:${line} ${node.arguments[0]?.getText(source).slice(0, 80)}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the test files were read', () => {
  expect(testFiles(root).length).toBeGreaterThan(50);
});

test('every test whose expects may all be skipped says expect.hasAssertions()', () => {
  expect(testFiles(root).flatMap(unguardedTests)).toEqual([]);
});
