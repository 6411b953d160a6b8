import { EventEmitter } from 'node:events';
import { CancelledError, cancelOnSignals } from '../../../src/util/cancellation.js';
import { cancellableRunner, execaRunner } from '../../../src/util/command.js';

const fakeProcess = () => new EventEmitter() as unknown as Pick<NodeJS.Process, 'on' | 'off'> & EventEmitter;

test('SIGINT: nothing new at once, processes stopped after the grace, the report written after the unwind', async () => {
  const target = fakeProcess();
  const log: string[] = [];
  const c = cancelOnSignals(
    (l) => log.push(l),
    { processGraceMs: 50, unwindMs: 20 },
    target,
    () => 1000,
  );
  expect([c.signal.aborted, c.stopProcesses.aborted, c.cause()]).toEqual([false, false, undefined]);
  target.emit('SIGINT');
  target.emit('SIGINT'); // a terminal's Ctrl-C arrives twice: directly and through the launcher
  expect(c.signal.aborted).toBe(true);
  expect(c.signal.reason).toBeInstanceOf(CancelledError);
  expect((c.signal.reason as Error).message).toBe('not started: kube-sweep was cancelled (SIGINT)');
  expect(c.stopProcesses.aborted).toBe(false);
  expect(c.cause()).toEqual({ signal: 'SIGINT', at: 1000 });
  await c.writeNow;
  expect(c.stopProcesses.aborted).toBe(true);
  expect(log).toEqual([
    'SIGINT: cancelling: nothing new is started (no delete, no helm); running helm processes may finish for 0.05 s',
    '0.05 s after SIGINT: stopping the processes still running; the report is written in 0.02 s at the latest',
  ]);
  c.dispose();
  expect(target.listenerCount('SIGINT') + target.listenerCount('SIGTERM')).toBe(0);
});

test('SIGTERM after SIGINT stops the processes at once', async () => {
  const target = fakeProcess();
  const c = cancelOnSignals(() => {}, { processGraceMs: 60_000, unwindMs: 10 }, target);
  target.emit('SIGINT');
  expect(c.stopProcesses.aborted).toBe(false);
  target.emit('SIGTERM');
  expect(c.stopProcesses.aborted).toBe(true);
  await c.writeNow; // 10 ms, not the minute of grace
  expect(c.cause()?.signal).toBe('SIGINT');
  c.dispose();
});

test('cancellableRunner: a running command is stopped with SIGTERM, and none is started after the signal', async () => {
  const target = fakeProcess();
  const c = cancelOnSignals(() => {}, { processGraceMs: 100, unwindMs: 10 }, target);
  const stopped: string[] = [];
  const runner = cancellableRunner(execaRunner, c, (file, args) => stopped.push([file, ...args].join(' ')));
  const sleeping = runner.run('sleep', ['30']);
  await new Promise((resolve) => setTimeout(resolve, 200)); // let it start
  target.emit('SIGINT');
  const result = await sleeping; // stopped 100 ms after SIGINT
  expect(result).toMatchObject({ exitCode: 143, cancelled: true });
  expect(stopped).toEqual(['sleep 30']);
  expect(await runner.run('echo', ['never'])).toEqual({
    exitCode: 130,
    stdout: '',
    stderr: 'not started: kube-sweep was cancelled (SIGINT)\n',
    cancelled: true,
  });
  c.dispose();
});
