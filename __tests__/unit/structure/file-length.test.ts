/**
 * No file in src/ is longer than 500 lines (as `wc -l` counts them): a longer one is a room with
 * several jobs, which reads better split where the pipeline has its seams (as teardown/run-teardown.ts
 * and config/settings.ts were: the stage runner, its steps and the namespace phase; the inputs
 * by group, their schema and the conversion to Settings; engine.ts by mode into engine/;
 * report/markdown.ts by section). Checked on every src file, with no exceptions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const maxLines = 500;

const src = join(process.cwd(), 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `<file under src/>` → its number of lines (line breaks, as `wc -l` counts). */
const lengths = new Map(
  sourceFiles(src).map((path) => [relative(src, path), readFileSync(path, 'utf8').split('\n').length - 1]),
);

test('the files of src/ were read', () => {
  expect(lengths.size).toBeGreaterThan(100);
  expect(lengths.get('teardown/run-teardown.ts')).toBeGreaterThan(50);
});

test(`no file in src/ is longer than ${maxLines} lines (split it where the pipeline has a seam)`, () => {
  const tooLong = [...lengths]
    .filter(([, lines]) => lines > maxLines)
    .map(([file, lines]) => `${file}: ${lines} lines`);
  expect(tooLong).toEqual([]);
});
