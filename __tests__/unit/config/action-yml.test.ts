import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { InputDocs } from '../../../src/config/input-docs.js';
import { InputDefaults, Outputs, RunnerDefaults } from '../../../src/config/inputs.js';
import { Inputs, renderFaceWords } from '../../../src/words/input-words.js';

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

test("each input's description in action.yml is its summary and details in src/config/input-docs.ts (one source)", () => {
  expect.hasAssertions();
  for (const name of Object.values(Inputs)) {
    const doc = InputDocs[name];
    const wanted = renderFaceWords('action', [doc.summary, doc.details].filter((s) => s !== '').join(' '));
    expect([name, action.inputs[name]?.description]).toEqual([name, wanted]);
    // The CLI help's line is the description's first sentence.
    for (const face of ['action', 'cli'] as const)
      expect([name, renderFaceWords(face, doc.summary)]).toEqual([
        name,
        expect.stringMatching(/^[^]{10,80}[.)]$/),
      ]);
  }
});

test('the action.yml generator (node scripts/action-yml.mjs) writes exactly the committed action.yml', async () => {
  const { actionYml } = (await import(join(process.cwd(), 'scripts/action-yml.mjs'))) as {
    actionYml: (text: string) => Promise<string>;
  };
  const text = readFileSync(join(process.cwd(), 'action.yml'), 'utf8');
  expect(await actionYml(text)).toBe(text);
  // It can fail: a changed description is rewritten back.
  expect(await actionYml(text.replace('Context of the kubeconfig to use.', 'Context.'))).toBe(text);
});

test('action.yml declares exactly the outputs of config/inputs.ts', () => {
  expect(Object.keys(action.outputs).sort()).toEqual(Object.values(Outputs).sort());
});

test('the action runs on node24 with a post step', () => {
  expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js', post: 'dist/post/index.js' });
});
