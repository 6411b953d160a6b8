import { WaitTimeoutError, waitFor, type Clock } from '../../../src/util/wait.js';

function fakeClock(): Clock & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

test('returns the value once the check is done, backing off between checks', async () => {
  const clock = fakeClock();
  let calls = 0;
  const value = await waitFor(async () => ({ done: ++calls === 4, value: calls }), {
    timeoutMs: 10_000,
    intervalMs: 100,
    clock,
    description: 'x',
  });
  expect(value).toBe(4);
  expect(clock.sleeps).toEqual([100, 150, 225]);
});

test('times out with the last value and the description', async () => {
  const clock = fakeClock();
  const error = await waitFor(async () => ({ done: false, value: 'still there' }), {
    timeoutMs: 1000,
    intervalMs: 300,
    maxIntervalMs: 300,
    clock,
    description: 'namespace a to be gone',
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect((error as WaitTimeoutError<string>).last).toBe('still there');
  expect((error as Error).message).toBe('timed out after 1000 ms waiting for namespace a to be gone');
  expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(1000);
});
