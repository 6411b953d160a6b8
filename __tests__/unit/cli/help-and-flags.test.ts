/**
 * The CLI as kubectl and helm users expect it (issue 25): help as a command and as -h, list
 * flags that accumulate, a repeated single-value flag refused, bare boolean flags, and a help
 * that describes each flag from the same data as action.yml.
 */
import { parseCommandLine } from '../../../src/cli/index.js';
import { commandHelp, generalHelp, helpWidth } from '../../../src/cli/help.js';
import { InputDocs } from '../../../src/config/input-docs.js';
import { InputDefaults, modeNames } from '../../../src/config/inputs.js';
import { Inputs, renderFaceWords } from '../../../src/words/input-words.js';
import { cli } from '../support/cli.js';

test.each([[['help']], [['-h']], [['--help']]])(
  'kube-sweep %j prints the general help on stdout, exit 0',
  async (args) => {
    const r = await cli(args);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).toContain('Usage: kube-sweep <command> [options]');
    for (const mode of modeNames) expect(r.out).toMatch(new RegExp(`^ {2}${mode} `, 'm'));
    expect(r.out).toContain('--dry-run[=false]');
  },
);

test.each([[['help', 'scan']], [['scan', '-h']], [['scan', '--help']], [['-h', 'scan']]])(
  'kube-sweep %j prints the help of scan alone, exit 0',
  async (args) => {
    const r = await cli(args);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).toBe(commandHelp('scan'));
    expect(r.out).toMatch(/^Usage: kube-sweep scan \[options\]/);
    // scan reads the scope and fail-on, never the teardown's budget or Helm.
    expect(r.out).toContain('--fail-on <value>');
    expect(r.out).toContain('--namespaces <value>');
    expect(r.out).not.toContain('--dry-run');
    expect(r.out).not.toContain('--helm ');
    expect(r.out).not.toContain('--timeout ');
  },
);

test('help <command> shows exactly the flags whose input that command reads', () => {
  for (const mode of modeNames) {
    const shown = [...commandHelp(mode).matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]);
    const expected = Object.values(Inputs).filter((n) => InputDocs[n].commands.includes(mode));
    const notInputs = ['output', 'version', 'all-contexts'];
    expect([mode, shown.filter((f) => !notInputs.includes(f!))]).toEqual([mode, expected]);
    expect([mode, shown.includes('all-contexts')]).toEqual([mode, mode === 'scan']);
  }
  expect(commandHelp('inventory')).not.toContain('--namespaces');
});

test('help for no such command is a usage error naming the closest, exit 2', async () => {
  const r = await cli(['help', 'scna']);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toBe(
    "kube-sweep: unknown command 'scna'; did you mean scan?; commands: teardown, plan, scan, inventory, reap, merge, help\n",
  );
});

/**
 * A flag's rows in a help text, wrapped lines joined: its summary (the flag's line and those
 * under it before `default:`) and its default (from `default:` to the next flag or blank line).
 */
function flagBlock(text: string, flag: string): { summary: string; default: string } {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`  --${flag} `) || l.startsWith(`  --${flag}[`));
  const rest = lines.slice(at + 1);
  const end = rest.findIndex((l) => l.startsWith('  -') || l.trim() === '');
  const block = rest.slice(0, end === -1 ? undefined : end).map((l) => l.trim());
  const d = block.findIndex((l) => l.startsWith('default: '));
  const head = lines[at]!.replace(/^ {2}--\S+(?: <value>)?\s+/, '');
  return { summary: [head, ...block.slice(0, d)].join(' '), default: block.slice(d).join(' ') };
}

test('every flag in the help has its one-line summary and default from the inputs data', async () => {
  const { out } = await cli(['--help']);
  for (const name of Object.values(Inputs).filter((n) => n !== Inputs.mode)) {
    const summary = renderFaceWords('cli', InputDocs[name].summary);
    expect(summary.length).toBeLessThanOrEqual(80);
    const block = flagBlock(out, name);
    expect([name, block.summary]).toEqual([name, expect.stringContaining(summary)]);
    expect([name, block.default]).toEqual([name, expect.stringMatching(/^default: /)]);
    if (InputDefaults[name] !== '')
      expect([name, block.default]).toEqual([
        name,
        expect.stringContaining(`default: ${InputDefaults[name].replace(/\n/g, ' ')}`),
      ]);
  }
  // A CLI user has no action.yml: the help does not send them to it, nor speak action inputs.
  expect(out).not.toContain('action.yml');
  expect(out).not.toMatch(/[\uE000-\uE002]/);
  expect(out).toContain('(with --cluster kind)');
});

test('the help says which list flags take commas: --order and --ignore take one entry per value', async () => {
  const { out } = await cli(['help', 'teardown']);
  for (const flag of ['order', 'ignore'])
    expect(flagBlock(out, flag).default).toMatch(/; repeat the flag, one entry per value$/);
  expect(flagBlock(out, 'namespaces').default).toMatch(/; repeat the flag or separate values with commas$/);
  // As the inputs read them: an order line with a comma is one (refused) line, not two.
  expect((await cli(['plan', '--namespaces', 'pr-1', '--order', 'a -> b, c -> d'])).code).toBe(2);
});

test('list flags accumulate, and take commas', () => {
  expect(parseCommandLine(['scan', '--namespaces', 'a', '--namespaces', 'b,c'])).toMatchObject({
    values: { namespaces: 'a\nb,c' },
  });
  expect(
    parseCommandLine([
      'teardown',
      '--releases=a/x',
      '--releases',
      'b/y',
      '--fail-on',
      'warning',
      '--fail-on',
      'StuckFinalizer',
    ]),
  ).toMatchObject({ values: { releases: 'a/x\nb/y', 'fail-on': 'warning\nStuckFinalizer' } });
});

test('a repeated list flag scopes every value it was given', async () => {
  // Through the settings: both namespaces are in the scope (the last one alone was before).
  const r = await cli(['plan', '--namespaces', 'pr-1', '--namespaces', 'Bad_Name']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/--namespaces has 'Bad_Name'/);
});

test.each([
  [['scan', '--output', 'text', '--output', 'jsonx'], "--output is given twice ('text' and 'jsonx')"],
  [['scan', '--context', 'a', '--context=b'], "--context is given twice ('a' and 'b')"],
  [['teardown', '--dry-run', '--dry-run=false'], "--dry-run is given twice ('true' and 'false')"],
  [['scan', '--selector', 'a=b', '--selector', 'c=d'], "--selector is given twice ('a=b' and 'c=d')"],
])('%j: a repeated single-value flag is an error naming it, exit 2', async (args, says) => {
  const r = await cli(args);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toBe(
    `kube-sweep: ${says}; it takes one value: give it once\nrun kube-sweep --help for the commands and options\n`,
  );
});

test.each([
  [['teardown', '--dry-run'], 'true', ['teardown']],
  [['--dry-run', 'teardown'], 'true', ['teardown']],
  [['teardown', '--dry-run', '--namespaces', 'a'], 'true', ['teardown']],
  [['teardown', '--dry-run=false'], 'false', ['teardown']],
  [['teardown', '--dry-run=true'], 'true', ['teardown']],
  [['teardown', '--dry-run', 'true'], 'true', ['teardown']],
  [['teardown', '--dry-run', 'false'], 'false', ['teardown']],
  [['teardown', '--dry-run', 'FALSE'], 'false', ['teardown']],
])('%j: dry-run is %s', (args, value, positionals) => {
  expect(parseCommandLine(args)).toEqual({
    values: expect.objectContaining({ 'dry-run': value }),
    positionals,
  });
});

test('every boolean input is a bare flag', () => {
  expect.hasAssertions();
  for (const name of [Inputs.deleteNamespaces, Inputs.kindKeep, Inputs.prComment, Inputs.checkRun])
    expect([name, parseCommandLine(['scan', `--${name}`])]).toEqual([
      name,
      { values: expect.objectContaining({ [name]: 'true' }), positionals: ['scan'] },
    ]);
});

test('a bare boolean flag then a value it cannot take: the value is a command word, refused as such', async () => {
  const r = await cli(['teardown', '--dry-run', 'yes']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/^kube-sweep: 'yes' follows the command 'teardown'/);
  const bad = await cli(['teardown', '--namespaces', 'a', '--dry-run=yes']);
  expect(bad.code).toBe(2);
  expect(bad.err).toBe("kube-sweep: --dry-run is 'yes'; it takes true or false\n");
});

test('-n is --namespaces and -o is --output, as in kubectl', () => {
  const short = parseCommandLine(['plan', '-n', 'pr-1', '-n', 'pr-2', '-o', 'json']);
  const long = parseCommandLine(['plan', '--namespaces', 'pr-1', '--namespaces', 'pr-2', '--output', 'json']);
  expect(short).toEqual(long);
  expect('values' in short && short.values.namespaces).toBe('pr-1\npr-2');
});

test('the help advertises no unpublished package', async () => {
  expect.hasAssertions();
  for (const args of [['--help'], ...modeNames.map((m) => [m, '--help'])]) {
    const { out } = await cli(args);
    expect(out).not.toMatch(/npm i(nstall)? (-g )?kube-sweep|npx kube-sweep/);
  }
  expect((await cli(['--help'])).out).toContain('the npm name is reserved for a future release');
});

test("no help line is wider than 100 columns: the general help and every command's wrap their descriptions", () => {
  expect(helpWidth).toBe(100);
  const texts = [generalHelp(), ...modeNames.map((m) => commandHelp(m))];
  const wide = texts.flatMap((t) => t.split('\n')).filter((l) => l.length > helpWidth);
  expect(wide).toEqual([]);
  // Wrapped, not cut: every word of a long summary is still there, on the lines under its flag.
  const help = commandHelp('teardown');
  const summary = renderFaceWords('cli', InputDocs[Inputs.namespaces].summary);
  const at = help.split('\n').findIndex((l) => l.trimStart().startsWith('--namespaces <value>'));
  const block = help
    .split('\n')
    .slice(at, at + 4)
    .map((l) => l.trim())
    .join(' ');
  for (const word of summary.split(' ')) expect(block).toContain(word);
});
