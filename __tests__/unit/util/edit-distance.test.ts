import { closestMatch, editDistance } from '../../../src/util/edit-distance.js';

test.each([
  ['', '', 0],
  ['', 'abc', 3],
  ['abc', '', 3],
  ['kitten', 'sitting', 3],
  ['flaw', 'lawn', 2],
  ['namespace', 'namespaces', 1],
  ['dryrun', 'dry-run', 1],
  ['timout', 'timeout', 1],
  ['abc', 'abc', 0],
])('editDistance(%j, %j) = %i', (a, b, d) => {
  expect(editDistance(a, b)).toBe(d);
  expect(editDistance(b, a)).toBe(d);
});

const options = [
  'namespaces',
  'selector',
  'releases',
  'timeout',
  'stage-timeout',
  'request-timeout',
  'kubeconfig',
  'help',
];

test.each([
  ['namespace', 'namespaces'],
  ['timout', 'timeout'],
  ['request-timout', 'request-timeout'],
  ['kubecon', 'kubeconfig'], // the only option that starts with it
  ['names', 'namespaces'],
  ['stage-timeot', 'stage-timeout'],
  ['foo', undefined],
  ['x', undefined],
  ['context', undefined],
  ['time', 'timeout'], // starts only 'timeout'; the other two end in timeout
])('closestMatch(%j) is %j', (word, match) => {
  expect(closestMatch(word, options)).toBe(match);
});
