import { inFlight } from '../../../src/util/in-flight.js';

const later = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) =>
    setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms),
  );

test('settle waits for every tracked piece, failed ones too, and for work tracked while it waits', async () => {
  const running = inFlight();
  const ended: string[] = [];
  const a = running.track(later(30, 'a').then((v) => (ended.push(v), v)));
  const b = running.track(later(10, 'b', true).catch((e: Error) => (ended.push(e.message), 'b')));
  // A piece started while the others run (a queued helm uninstall starting late).
  void later(20, null).then(() => running.track(later(40, 'c').then((v) => ended.push(v))));
  expect(running.size).toBe(2);
  await running.settle();
  expect(ended.sort()).toEqual(['a', 'b', 'c']);
  expect(running.size).toBe(0);
  await expect(a).resolves.toBe('a');
  await expect(b).resolves.toBe('b');
});

test('track returns the work unchanged: a rejection still reaches its caller', async () => {
  const running = inFlight();
  await expect(running.track(later(1, 'x', true))).rejects.toThrow('x');
  await running.settle();
});
