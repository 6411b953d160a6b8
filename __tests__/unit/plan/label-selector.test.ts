import { LabelSelectorError, matchesLabels, parseLabelSelector } from '../../../src/plan/label-selector.js';

test.each<[string, Record<string, string>, boolean]>([
  ['env=pr', { env: 'pr' }, true],
  ['env==pr', { env: 'pr' }, true],
  ['env=pr', { env: 'prod' }, false],
  ['env!=pr', {}, true],
  ['env!=pr', { env: 'pr' }, false],
  ['env', { env: '' }, true],
  ['!env', { env: 'x' }, false],
  ['!env', {}, true],
  ['team in (a, b),env=pr', { team: 'b', env: 'pr' }, true],
  ['team notin (a,b)', { team: 'c' }, true],
  ['team notin (a,b)', {}, true],
  ['example.com/owner=ci', { 'example.com/owner': 'ci' }, true],
  ['', { anything: 'x' }, true],
])('%j matches %j: %s', (selector, labels, expected) => {
  expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
});

test.each(['env in (a', 'a=b=c', 'env=', 'Bad Key=x', 'x in ()', 'a,,b', '-bad=x'])(
  '%j does not parse',
  (selector) => {
    if (selector === 'env=') {
      // An empty value is valid in Kubernetes (matches the empty label value).
      expect(parseLabelSelector(selector)).toEqual([{ key: 'env', op: 'in', values: [''] }]);
      return;
    }
    expect(() => parseLabelSelector(selector)).toThrow(LabelSelectorError);
  },
);
