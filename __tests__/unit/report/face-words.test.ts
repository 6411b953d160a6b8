/**
 * Messages that name an input carry the input as data (config/inputs.ts `inputWord`, `inputRef`,
 * `inputSet`, `inputEmpty`, `byFace`), and each face renders its own words (issue 25): the
 * action's `input 'x'` / `'x: v'`, the CLI's `--x` / `--x v`. Each message below is produced by
 * the code that writes it (the settings' errors have their own table in config/settings.test.ts),
 * then rendered in both faces. A source scan keeps new messages from writing an input by hand.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadKubeconfig } from '../../../src/cluster/kubeconfig.js';
import { ensureKindCluster } from '../../../src/cluster/kind.js';
import { Inputs } from '../../../src/words/input-words.js';
import { checkHelm } from '../../../src/helm/helm-cli.js';
import { OrderingCycleError } from '../../../src/plan/stages.js';
import { inFaceTerms } from '../../../src/report/face.js';
import { publishToGitHub } from '../../../src/report/github/publish.js';
import type { CommandRunner } from '../../../src/util/command.js';

const nothingOnPath: CommandRunner = {
  run: async () => ({ exitCode: 127, stdout: '', stderr: 'not found' }),
  find: async () => undefined,
};

async function messageOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a throw');
}

/** [what, the message, the inputs it names]. */
async function messages(): Promise<[string, string, string[]][]> {
  const warnings: string[] = [];
  await publishToGitHub(
    { prComment: true, checkRun: false, token: '' },
    {
      schemaVersion: 1,
      tool: 'kube-sweep',
      mode: 'scan',
      verdict: 'clean',
      cluster: { server: '', version: '', context: '' },
      warnings: [],
    },
    '',
    { env: {}, info: () => {}, notice: () => {}, warning: (w) => warnings.push(w), setSecret: () => {} },
  );
  return [
    [
      'kubeconfig, none found',
      await messageOf(() => loadKubeconfig('', '', { HOME: '/nonexistent-home' })),
      ['kubeconfig', 'cluster'],
    ],
    [
      'kubeconfig, no such file',
      await messageOf(() => loadKubeconfig('/no/such/kubeconfig', '', {})),
      ['kubeconfig'],
    ],
    ['helm missing', await messageOf(() => checkHelm('/no/such/helm', nothingOnPath)), ['helm']],
    [
      'kind missing',
      await messageOf(() =>
        ensureKindCluster(
          { clusterName: 'x', configPath: '', nodeImage: '', waitMs: 1000 } as never,
          nothingOnPath,
        ),
      ),
      ['cluster'],
    ],
    ['order cycle', new OrderingCycleError(['a', 'b', 'a']).message, ['order']],
    ['no GitHub token', warnings.join('\n'), ['github-token']],
  ];
}

test('every message that names an input names it in the action words and in the CLI words', async () => {
  expect.hasAssertions();
  for (const [what, message, inputs] of await messages()) {
    const action = inFaceTerms('action', message);
    const cli = inFaceTerms('cli', message);
    for (const text of [action, cli])
      expect([what, text]).not.toEqual([what, expect.stringMatching(/[\uE000-\uE002]/)]);
    for (const input of inputs) {
      expect([what, action]).toEqual([what, expect.stringMatching(new RegExp(`'${input}[':]`))]);
      expect([what, cli]).toEqual([what, expect.stringContaining(`--${input}`)]);
    }
    expect([what, cli]).not.toEqual([
      what,
      expect.stringMatching(/\binputs? '|'[a-z-]+: [a-z]+'|earlier step/),
    ]);
    expect([what, action]).not.toEqual([what, expect.stringMatching(/--[a-z]/)]);
  }
});

/** Files whose words are one face's only: the action's own step and GitHub output, the CLI, the inputs' data. */
const oneFace = new Set([
  'config/inputs.ts',
  'words/input-words.ts',
  'config/input-docs.ts',
  'main.ts',
  'post.ts',
  'report/face.ts',
  'report/github/check-run.ts',
  'report/github/pr-comment.ts',
  'rules/codes.ts',
]);

test('no message in src/ writes an input name by hand (the way the regular expression used to guess)', () => {
  const src = join(process.cwd(), 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );
  const hyphenated = Object.values(Inputs).filter((n) => n.includes('-'));
  const byHand = [
    /\binputs? '[a-z-]+'/,
    // 'stage-timeout' in prose (not an argument or a key: inputWord('x'), v['x'], === 'x').
    new RegExp(`(?<![[(\\w]|=== |, )'(${hyphenated.join('|')})'(?!\\])`),
    new RegExp(`'(${Object.values(Inputs).join('|')}): [^']*'`),
    new RegExp(`\\b(set|raise|drop) (${hyphenated.join('|')})\\b`),
  ];
  const found: string[] = [];
  for (const file of files(src)) {
    const name = relative(src, file);
    if (oneFace.has(name) || name.startsWith('cli/')) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
        if (byHand.some((p) => p.test(line))) found.push(`${name}:${i + 1}: ${line.trim()}`);
      });
  }
  expect(found).toEqual([]);
});
