import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inputs, Outputs } from '../../../src/config/inputs.js';
import { findingCodes } from '../../../src/rules/codes.js';

const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');

test('the README documents every input, output and finding code', () => {
  const missing = [
    ...Object.values(Inputs).filter((n) => !readme.includes(`| \`${n}\` |`)),
    ...Object.values(Outputs).filter((n) => !readme.includes(`| \`${n}\` |`)),
    ...Object.keys(findingCodes).filter((c) => !readme.includes(`| \`${c}\` |`)),
  ];
  expect(missing).toEqual([]);
});
