// Writes the `inputs:` of action.yml from src/config/input-docs.ts, src/config/inputs.ts and src/words/input-words.ts, the
// one source of every input's description and default (the CLI's help reads the same data).
// `node scripts/action-yml.mjs` rewrites action.yml; `--check` exits 1 when it differs.
// __tests__/unit/config/action-yml.test.ts checks the same on every test run.
import { build } from 'esbuild';
import { format, resolveConfig } from 'prettier';
import { parse } from 'yaml';
import { Buffer } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The inputs data, bundled from the TypeScript sources in memory. */
async function inputsData() {
  const result = await build({
    stdin: {
      contents:
        "export { InputDocs } from './src/config/input-docs.ts';\n" +
        "export { InputDefaults, RunnerDefaults } from './src/config/inputs.ts';\n" +
        "export { Inputs, renderFaceWords } from './src/words/input-words.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}

const quote = (s) => `'${s.replaceAll("'", "''")}'`;

/** A default as action.yml writes it: bare when YAML reads it back as the same string. */
function scalar(value) {
  if (value.startsWith('${{')) return value;
  return value !== '' && parse(value) === value ? value : quote(value);
}

/** The `inputs:` block of action.yml. */
export async function inputsBlock() {
  const { InputDocs, InputDefaults, RunnerDefaults, Inputs, renderFaceWords } = await inputsData();
  const lines = ['inputs:'];
  for (const name of Object.values(Inputs)) {
    const doc = InputDocs[name];
    const description = renderFaceWords(
      'action',
      [doc.summary, doc.details].filter((s) => s !== '').join(' '),
    );
    lines.push(
      `  ${name}:`,
      `    description: ${quote(description)}`,
      '    required: false',
      `    default: ${scalar(RunnerDefaults[name] ?? InputDefaults[name])}`,
    );
  }
  return lines.join('\n') + '\n';
}

/** action.yml with its `inputs:` block replaced (everything before and from `outputs:` kept). */
export async function actionYml(text) {
  const start = text.indexOf('\ninputs:\n') + 1;
  const end = text.indexOf('\noutputs:\n') + 1;
  if (start === 0 || end === 0) throw new Error('action.yml: no inputs: or outputs: block');
  const path = join(root, 'action.yml');
  const options = { ...(await resolveConfig(path)), filepath: path };
  return format(text.slice(0, start) + (await inputsBlock()) + text.slice(end), options);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(root, 'action.yml');
  const text = readFileSync(path, 'utf8');
  const wanted = await actionYml(text);
  if (process.argv.includes('--check')) {
    if (wanted !== text) {
      console.error('action.yml is not what src/config/input-docs.ts says: run node scripts/action-yml.mjs');
      process.exit(1);
    }
  } else writeFileSync(path, wanted);
}
