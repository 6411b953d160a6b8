/**
 * The CLI as a new user meets it: `node dist/cli/index.js` (the npm package's bin, relaunch
 * included) with usage errors and bad durations, and `--output markdown` against the local
 * control plane. Usage errors are our own one-line messages on stderr with exit 2 (README
 * "CLI"); a duration no timer can hold is refused before anything runs; the markdown names the
 * CLI's flags and command, not the action's inputs. Runs the committed dist/ (npm run bundle
 * first locally).
 */
import { execa } from 'execa';
import { join } from 'node:path';
import type { ApiClient } from '../../src/cluster/api-client.js';
import { usage } from '../../src/cli/index.js';
import { auditMark, kubeSweepRequestsSince } from '../integration/support/audit.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  repoRoot,
  uniqueName,
} from '../integration/support/cluster.js';

const cli = (args: string[]) =>
  execa(process.execPath, [join(repoRoot, 'dist/cli/index.js'), ...args], {
    reject: false,
    env: { KUBECONFIG: clusterEnv().kubeconfig },
  });

const help = 'run kube-sweep --help for the commands and options';
let api: ApiClient;
const ns = uniqueName('cli-usage');
beforeAll(async () => {
  api = await adminApi();
  await createNamespace(api, ns);
});
afterAll(async () => {
  await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  await api.close();
});

test.each([
  [['scan', '--foo'], `unknown option --foo\n${help}`],
  [['teardown', '--namespace', ns], `unknown option --namespace; did you mean --namespaces?\n${help}`],
  [['scan', '--page-size', '-1'], "--page-size is '-1'; it takes a whole number from 1 to 10000"],
  [
    ['scan', '--context', '-dev'],
    "--context is followed by '-dev', which starts with '-' and so is not taken as its value; to give it as the value, write --context=-dev",
  ],
])('kube-sweep %j: exit 2 with our own message, nothing else', async (args, message) => {
  const r = await cli(args);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`kube-sweep: ${message}`);
});

test('kube-sweep with no command and no flag prints the general help; exit 0', async () => {
  const r = await cli([]);
  expect(r.exitCode).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.stdout).toContain(usage);
});

test('kube-sweep with flags but no command: a command is needed, then the usage, on stderr; exit 2', async () => {
  const r = await cli(['-n', 'pr-1']);
  expect(r.exitCode).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(
    `kube-sweep: a command is needed: teardown, plan, scan, inventory, reap, merge (kube-sweep <command> [options])\n\n${usage}`,
  );
});

test.each(['--timeout', '--stage-timeout', '--request-timeout'])(
  'teardown %s 99999h: refused naming the flag and its maximum; nothing is sent, the namespace stays',
  async (flag) => {
    const [mark, since] = [auditMark(), new Date()];
    const r = await cli(['teardown', '--namespaces', ns, flag, '99999h']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `kube-sweep: ${flag} is '99999h', longer than the maximum, 24d20h31m23s (2^31-1 ms, the longest timer Node.js can set); write 24d20h31m23s or less, e.g. 24d`,
    );
    expect(r.stdout).toBe('');
    // No request at all from the CLI (the test's own client also says kube-sweep: it sent none since).
    const sent = kubeSweepRequestsSince(mark).filter(
      (e) => Date.parse(e.requestReceivedTimestamp) >= since.getTime(),
    );
    expect(sent).toEqual([]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
  },
);

test('--output markdown names the flags and the command, not the action inputs and mode', async () => {
  const plan = await cli(['plan', '--namespaces', ns, '--output', 'markdown']);
  expect(plan.exitCode).toBe(0);
  expect(plan.stdout).toContain('## 📋 kube-sweep: teardown plan (nothing was changed)');
  expect(plan.stdout).toContain('command `plan`');
  expect(plan.stdout).not.toContain('mode `plan`');

  const missing = await cli(['scan', '--kubeconfig', '/nonexistent/kubeconfig', '--output', 'markdown']);
  expect(missing.exitCode).toBe(2);
  expect(missing.stdout).toContain("--kubeconfig: no such file '/nonexistent/kubeconfig'");
  expect(missing.stdout).not.toMatch(/input '/);
});
