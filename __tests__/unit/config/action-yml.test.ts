import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { InputDefaults, Inputs, Outputs, RunnerDefaults } from '../../../src/config/inputs.js';

const action = parse(readFileSync(join(process.cwd(), 'action.yml'), 'utf8')) as {
  inputs: Record<string, { description: string; default: string }>;
  outputs: Record<string, { description: string }>;
  runs: { using: string; main: string; post: string };
};

test('action.yml declares exactly the inputs of config/inputs.ts, with the same defaults', () => {
  expect(Object.keys(action.inputs).sort()).toEqual(Object.values(Inputs).sort());
  for (const [name, spec] of Object.entries(action.inputs)) {
    const key = name as keyof typeof InputDefaults;
    expect([name, String(spec.default)]).toEqual([name, RunnerDefaults[key] ?? InputDefaults[key]]);
    expect(spec.description.length).toBeGreaterThan(10);
  }
});

test('action.yml declares exactly the outputs of config/inputs.ts', () => {
  expect(Object.keys(action.outputs).sort()).toEqual(Object.values(Outputs).sort());
});

test('the action runs on node24 with a post step', () => {
  expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js', post: 'dist/post/index.js' });
});
