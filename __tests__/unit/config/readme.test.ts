import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Outputs } from '../../../src/config/inputs.js';
import { Inputs } from '../../../src/words/input-words.js';
import { retryableStatuses } from '../../../src/cluster/retry-policy.js';
import { findingCodes } from '../../../src/rules/codes.js';
import { maxDurationText } from '../../../src/config/input-values.js';
import { parse } from 'yaml';

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

test('the README and action.yml name exactly the HTTP statuses that are retried', () => {
  const action = readFileSync(join(process.cwd(), 'action.yml'), 'utf8');
  const row = readme.split('\n').find((l) => l.startsWith('| `request-timeout`'))!;
  const description = (parse(action) as { inputs: Record<string, { description: string }> }).inputs[
    'request-timeout'
  ]!.description;
  const statuses = [...retryableStatuses].sort((a, b) => a - b);
  expect(statuses).toEqual([429, 500, 502, 503, 504]);
  for (const text of [row, description]) {
    expect(text).not.toMatch(/5xx/);
    expect(text).toContain(`${statuses.slice(0, -1).join(', ')} and ${statuses.at(-1)}`);
  }
});

test('the README and action.yml give the longest duration the code takes, for the inputs it caps', () => {
  const action = parse(readFileSync(join(process.cwd(), 'action.yml'), 'utf8')) as {
    inputs: Record<string, { description: string }>;
  };
  expect(readme).toContain(
    `\`timeout\`, \`stage-timeout\`, \`request-timeout\` and \`kind-wait\` take at most \`${maxDurationText}\``,
  );
  for (const input of ['timeout', 'stage-timeout', 'request-timeout', 'kind-wait'])
    expect([input, action.inputs[input]!.description]).toEqual([
      input,
      expect.stringContaining(`at most ${maxDurationText}`),
    ]);
  expect(action.inputs['stuck-after']!.description).not.toContain(maxDurationText);
});
