import { progressLine, slowestOf } from '../../../src/teardown/wait-progress.js';

const w1 = {
  label: 'Widget pr-1/w1',
  finalizers: ['example.com/cleanup'],
  deletionTimestamp: '2026-01-01T00:01:00Z',
};
const w2 = { label: 'Widget pr-1/w2', finalizers: [], deletionTimestamp: '2026-01-01T00:00:00Z' };
const w3 = { label: 'Widget pr-1/w3', finalizers: ['a'] };

test('the slowest is the oldest deletion, else the first; none when nothing is left', () => {
  expect(slowestOf([w1, w2, w3])).toBe(w2);
  expect(slowestOf([w3, { ...w3, label: 'x' }])).toBe(w3);
  expect(slowestOf([])).toBeUndefined();
});

test('a line says what, how many of how many, the slowest with its finalizers, elapsed and budget', () => {
  expect(progressLine("the stage's objects", { left: [w1, w3], total: 3 }, 20_400, 300_000)).toBe(
    "waiting on the stage's objects: 2 of 3 left; slowest Widget pr-1/w1, finalizers [example.com/cleanup], " +
      'deleting since 2026-01-01T00:01:00Z; 20s of 300s',
  );
  expect(
    progressLine(
      'namespaces',
      { left: [{ ...w2, label: 'namespace pr-1', heldBy: 'held by x' }], total: 1 },
      0,
      1000,
    ),
  ).toBe(
    'waiting on namespaces: 1 of 1 left; slowest namespace pr-1, no finalizers, deleting since 2026-01-01T00:00:00Z (held by x); 0s of 1s',
  );
});

test('a value from the cluster cannot break the line', () => {
  const line = progressLine(
    'x',
    { left: [{ label: 'ConfigMap a/b\nverdict: clean', finalizers: [] }], total: 1 },
    0,
    0,
  );
  expect(line).not.toContain('\n');
});
