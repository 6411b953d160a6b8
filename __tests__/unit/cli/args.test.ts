import { commandOf, parseCommandLine, usage } from '../../../src/cli/index.js';
import { maxDurationText } from '../../../src/config/input-values.js';
import { cli } from '../support/cli.js';

test('--mode is refused: the command word is the mode, so a "plan" can never run a teardown', async () => {
  const r = await cli(['teardown', '--namespaces', 'pr-1', '--mode', 'plan']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(
    /--mode is not a flag: the command word is the mode \(kube-sweep teardown\|plan\|scan\|inventory/,
  );
});

test('an unknown command and an unknown flag exit 2 before any cluster is touched', async () => {
  expect((await cli(['purge'])).code).toBe(2);
  const r = await cli(['scan', '--no-such-flag', 'x']);
  expect(r.code).toBe(2);
  expect(r.err).toBe(
    'kube-sweep: unknown option --no-such-flag\nrun kube-sweep --help for the commands and options\n',
  );
});

test.each([
  [['scan', '--namespace', 'pr-1'], 'unknown option --namespace; did you mean --namespaces?'],
  [['scan', '--request-timout=1m'], 'unknown option --request-timout; did you mean --request-timeout?'],
  [['teardown', '--dryrun', 'true'], 'unknown option --dryrun; did you mean --dry-run?'],
  [['scan', '--kubecon', 'k'], 'unknown option --kubecon; did you mean --kubeconfig?'],
  [['scan', '--foo'], 'unknown option --foo'],
  [['scan', '-x', 'pr-1'], 'unknown option -x'],
])('%j: our own message, the closest option, where to get help; exit 2', async (args, says) => {
  const r = await cli(args);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  expect(r.err).toBe(`kube-sweep: ${says}\nrun kube-sweep --help for the commands and options\n`);
  // Not node:util parseArgs' own text.
  expect(r.err).not.toMatch(/Unknown option|positional argument|ambiguous/);
});

test('bare kube-sweep prints the general help on stdout, exit 0 (as kubectl)', async () => {
  const r = await cli([]);
  expect([r.code, r.err]).toEqual([0, '']);
  expect(r.out).toContain('Usage: kube-sweep <command> [options]');
});

test('no command with flags: a line saying one is needed, then the usage, on stderr; exit 2', async () => {
  expect.hasAssertions();
  for (const args of [
    ['--namespaces', 'pr-1'],
    ['-n', 'pr-1'],
  ]) {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `kube-sweep: a command is needed: teardown, plan, scan, inventory, reap, merge (kube-sweep <command> [options])\n\n${usage}\n`,
    );
    expect(r.err).not.toContain("unknown command ''");
  }
});

test('a misspelt command is named with the closest command; a second word is refused, not ignored', () => {
  expect(commandOf(['scna'])).toEqual({
    error:
      "unknown command 'scna'; did you mean scan?; commands: teardown, plan, scan, inventory, reap, merge, help",
  });
  expect(commandOf(['wipe'])).toEqual({
    error: "unknown command 'wipe'; commands: teardown, plan, scan, inventory, reap, merge, help",
  });
  // merge takes its report globs as words.
  expect(commandOf(['merge', 'reports/*.json', 'more/*.json'])).toBe('merge');
  expect(commandOf(['scan', 'pr-12'])).toEqual({
    error:
      "'pr-12' follows the command 'scan', which takes no argument: give everything else as options (the scope with --namespaces, --selector or --releases)",
  });
  expect(commandOf(['plan'])).toBe('plan');
});

test('a negative number after a flag is its value, so the input says what it takes', async () => {
  const pageSize = await cli(['scan', '--page-size', '-1']);
  expect(pageSize.code).toBe(2);
  expect(pageSize.err).toBe("kube-sweep: --page-size is '-1'; it takes a whole number from 1 to 10000\n");
  const timeout = await cli(['teardown', '--namespaces', 'pr-1', '--timeout', '-5m']);
  expect(timeout.code).toBe(2);
  expect(timeout.err).toMatch(/^kube-sweep: --timeout is '-5m', which is not a positive duration/);
  expect(parseCommandLine(['scan', '--list-concurrency', '-2'])).toMatchObject({
    values: { 'list-concurrency': '-2' },
  });
});

test('any other value that starts with - after a flag: say to write --flag=<value>', async () => {
  const r = await cli(['scan', '--context', '-dev']);
  expect(r.code).toBe(2);
  expect(r.err).toBe(
    "kube-sweep: --context is followed by '-dev', which starts with '-' and so is not taken as its value; to give it as the value, write --context=-dev\n",
  );
  expect(parseCommandLine(['scan', '--context=-dev'])).toMatchObject({ values: { context: '-dev' } });
  // A flag that lost its value to the next flag says so.
  expect(parseCommandLine(['scan', '--context', '--kubeconfig', 'k'])).toEqual({
    error:
      '--context needs a value before --kubeconfig: --context <value>\nrun kube-sweep --help for the commands and options',
  });
  expect(parseCommandLine(['scan', '--context'])).toEqual({
    error: '--context needs a value: --context <value>\nrun kube-sweep --help for the commands and options',
  });
  expect(parseCommandLine(['--help=yes'])).toEqual({
    error: "--help takes no value (it is given 'yes')\nrun kube-sweep --help for the commands and options",
  });
});

test.each([
  ['--kubeconfig', ''],
  ['--context', ''],
  ['--namespaces', ' '],
])(
  '%s given an empty value (an unset variable) is an error, never a fallback to the default',
  async (flag, value) => {
    // Found by a tester: `--kubeconfig ''` tore down the namespace on the cluster $KUBECONFIG named.
    const r = await cli(['teardown', '--namespaces', 'pr-1', flag, value]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `kube-sweep: ${flag} is given an empty value; give it a value or leave the flag out (an unset shell variable gives this: ${flag} "$VARIABLE")\n` +
        'run kube-sweep --help for the commands and options\n',
    );
    expect(parseCommandLine([`${flag}=${value}`, 'scan'])).toHaveProperty('error');
  },
);

test(`a duration over ${maxDurationText} names the flag and its maximum; nothing runs`, async () => {
  expect.hasAssertions();
  for (const flag of ['--request-timeout', '--timeout', '--stage-timeout', '--kind-wait']) {
    const r = await cli(['teardown', '--namespaces', 'pr-1', flag, '99999h']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `kube-sweep: ${flag} is '99999h', longer than the maximum, ${maxDurationText} (2^31-1 ms, the longest timer Node.js can set); write ${maxDurationText} or less, e.g. 24d\n`,
    );
    expect(r.out).toBe('');
  }
});

test("--ignore '- {code: X}' (a YAML list, as the README writes it) is taken as the value", async () => {
  expect(parseCommandLine(['scan', '--ignore', '- {code: StuckFinalizer}', '--fail-on', 'never'])).toEqual({
    values: expect.objectContaining({ ignore: '- {code: StuckFinalizer}', 'fail-on': 'never' }),
    positionals: ['scan'],
  });
  // Parsed as the ignore input: a typo in the code is reported against --ignore, not as a bad flag.
  const r = await cli(['scan', '--ignore', '- {code: NoSuchCode}']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/--ignore entry 1 has code 'NoSuchCode', which matches no finding code/);
});
