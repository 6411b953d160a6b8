import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unsupportedNode } from '../../../src/util/relaunch.js';
import { waitFor } from '../../../src/util/wait.js';

const repo = join(fileURLToPath(import.meta.url), '..', '..', '..', '..');

test('unsupportedNode: Node 24 and newer run; older ones get the fix', () => {
  expect(unsupportedNode('24.0.0')).toBeUndefined();
  expect(unsupportedNode('25.1.0')).toBeUndefined();
  expect(unsupportedNode('20.20.2')).toMatch(
    /^kube-sweep needs Node 24 or newer, and this is Node 20\.20\.2; put Node 24 first on PATH/,
  );
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the relaunched process runs with the V8 flags and stops when its launcher is SIGKILLed', async () => {
  const launcher = spawn(
    process.execPath,
    [
      '--experimental-transform-types',
      '--disable-warning=ExperimentalWarning',
      '--import',
      join(repo, 'bench/ts-hooks.mjs'),
      join(repo, '__tests__/fixtures/relaunch/long-run.ts'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KUBE_SWEEP_RELAUNCHED: '' } },
  );
  const line = await new Promise<string>((resolve) =>
    launcher.stdout!.once('data', (b: Buffer) => resolve(String(b))),
  );
  const child = JSON.parse(line) as { pid: number; execArgv: string[] };
  expect(child.pid).not.toBe(launcher.pid);
  expect(child.execArgv).toContain('--max-semi-space-size=8');
  expect(child.execArgv).toContain('--heap-growing-percent=100');
  expect(alive(child.pid)).toBe(true);
  launcher.kill('SIGKILL');
  await waitFor(async () => ({ done: !alive(child.pid), value: undefined }), {
    timeoutMs: 10_000,
    description: 'the relaunched process to stop after its launcher died',
  });
}, 20_000);
