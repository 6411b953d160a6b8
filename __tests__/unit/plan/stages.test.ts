import { OrderingCycleError, stagesOf } from '../../../src/plan/stages.js';

const edge = (before: string, after: string) => ({ before, after, reason: 'test' });

test.each<[string, string[], [string, string][], string[][]]>([
  ['no edges: one stage', ['b', 'a'], [], [['a', 'b']]],
  [
    'a chain',
    ['op', 'app', 'web'],
    [
      ['web', 'app'],
      ['app', 'op'],
    ],
    [['web'], ['app'], ['op']],
  ],
  [
    'a diamond',
    ['a', 'b', 'c', 'd'],
    [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'd'],
      ['c', 'd'],
    ],
    [['a'], ['b', 'c'], ['d']],
  ],
  [
    'longest path decides',
    ['a', 'b', 'c'],
    [
      ['a', 'b'],
      ['b', 'c'],
      ['a', 'c'],
    ],
    [['a'], ['b'], ['c']],
  ],
  ['edges to unknown nodes are ignored', ['a'], [['x', 'a']], [['a']]],
])('%s', (_name, nodes, edges, expected) => {
  expect(
    stagesOf(
      nodes,
      edges.map(([b, a]) => edge(b, a)),
    ),
  ).toEqual(expected);
});

test('a cycle is an error that names it in before -> after order', () => {
  let caught: unknown;
  try {
    stagesOf(['a', 'b', 'c'], [edge('a', 'b'), edge('b', 'c'), edge('c', 'a')]);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(OrderingCycleError);
  const cycle = (caught as OrderingCycleError).cycle;
  expect(cycle[0]).toBe(cycle.at(-1));
  // Every consecutive pair is one of the edges.
  const edges = new Set(['a>b', 'b>c', 'c>a']);
  for (let i = 0; i + 1 < cycle.length; i++) expect(edges.has(`${cycle[i]}>${cycle[i + 1]}`)).toBe(true);
  expect((caught as Error).message).toMatch(
    /the teardown order has a cycle: \w -> \w -> \w -> \w; remove one/,
  );
});

test('a self-loop from the order input is a cycle', () => {
  expect(() => stagesOf(['a'], [edge('a', 'a')])).toThrow(OrderingCycleError);
});
