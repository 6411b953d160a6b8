import { joinYamlListValues, main } from '../../../src/cli/index.js';

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await main(
    args,
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

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
  expect(r.err).toMatch(/Unknown option '--no-such-flag'/);
});

test("--ignore '- {code: X}' (a YAML list, as the README writes it) is taken as the value", async () => {
  expect(joinYamlListValues(['scan', '--ignore', '- {code: StuckFinalizer}', '--fail-on', 'never'])).toEqual([
    'scan',
    '--ignore=- {code: StuckFinalizer}',
    '--fail-on',
    'never',
  ]);
  // Parsed as the ignore input: a typo in the code is reported against --ignore, not as a bad flag.
  const r = await cli(['scan', '--ignore', '- {code: NoSuchCode}']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/--ignore entry 1 has code 'NoSuchCode', which matches no finding code/);
});
