/**
 * The machine-checkable parts of the docs (issue 25): every input and output of action.yml has a
 * row in the README's tables, with the same default; every finding code of src/rules/codes.ts has
 * a section in docs/finding-codes.md, and every section there is a code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findingCodes } from '../../../src/rules/codes.js';

const read = (path: string) => readFileSync(join(process.cwd(), path), 'utf8');
const readme = read('README.md');
const action = parse(read('action.yml')) as {
  inputs: Record<string, { default: string }>;
  outputs: Record<string, unknown>;
};

/** The cells of the README table row whose first cell is `name` in backticks, or undefined. */
function row(name: string): string[] | undefined {
  const line = readme.split('\n').find((l) => new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`).test(l));
  return line
    ?.split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

/** A README default cell as the value it stands for. */
function defaultOf(cell: string): string {
  if (cell === '(empty)') return '';
  if (cell === '(job token)') return '${{ github.token }}';
  return cell.replace(/^`(.*)`$/, '$1');
}

test('every input of action.yml is in the README with the same default', () => {
  const rows = Object.keys(action.inputs).map((name) => [name, row(name)?.[1]]);
  expect(rows.filter(([, cell]) => cell === undefined)).toEqual([]);
  expect(rows.map(([name, cell]) => [name, defaultOf(cell!)])).toEqual(
    Object.entries(action.inputs).map(([name, spec]) => [name, String(spec.default)]),
  );
});

test('every output of action.yml is in the README', () => {
  expect(Object.keys(action.outputs).filter((name) => row(name) === undefined)).toEqual([]);
});

test('every finding code has a section in docs/finding-codes.md, and every section is a code', () => {
  const sections = [...read('docs/finding-codes.md').matchAll(/^## `([A-Za-z]+)`$/gm)].map((m) => m[1]);
  expect([...sections].sort()).toEqual(Object.keys(findingCodes).sort());
  expect(new Set(sections).size).toBe(sections.length);
});
