import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inputs, Outputs } from '../../../src/config/inputs.js';
import { findingCodes } from '../../../src/rules/codes.js';

const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');

/** Whether a markdown table in the README has a row whose first cell is `name` in backticks. */
const documented = (name: string) => new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`, 'm').test(readme);

test('the README documents every input, output and finding code', () => {
  const missing = [
    ...Object.values(Inputs).filter((n) => !documented(n)),
    ...Object.values(Outputs).filter((n) => !documented(n)),
    ...Object.keys(findingCodes).filter((c) => !documented(c)),
  ];
  expect(missing).toEqual([]);
});
