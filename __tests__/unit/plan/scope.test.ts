import { inFaceTerms } from '../../../src/report/face.js';
import { parseLabelSelector } from '../../../src/plan/label-selector.js';
import {
  hasNoLiteral,
  onlyNegative,
  resolveScope,
  scopeMatchRefusals,
  scopeRefusals,
  type NamespaceLabels,
  type ScopeSpec,
} from '../../../src/plan/scope.js';

const namespaces: NamespaceLabels[] = [
  { name: 'default' },
  { name: 'kube-system' },
  { name: 'pr-12', labels: { env: 'pr' } },
  { name: 'pr-13', labels: { env: 'pr' } },
  { name: 'pr-14', labels: { env: 'pr', legacy: 'true' } },
  { name: 'staging', labels: { env: 'staging' } },
  { name: 'review-a', labels: { env: 'pr' } },
];

const spec = (s: Partial<ScopeSpec>): ScopeSpec => ({
  namespacePatterns: [],
  selector: [],
  selectorText: '',
  releases: [],
  ...s,
});
const selector = (text: string) => ({ selector: parseLabelSelector(text), selectorText: text });

test('with patterns and a selector, a namespace must match a pattern AND the selector', () => {
  const scope = resolveScope(
    spec({ namespacePatterns: ['pr-*', 'kube-*', 'nothing-*'], ...selector('env=pr,!legacy') }),
    namespaces,
  );
  // review-a matches the selector but no pattern; pr-14 a pattern but not the selector.
  expect(scope.namespaces).toEqual(['pr-12', 'pr-13']);
  expect(scope.unmatchedPatterns).toEqual(['nothing-*']);
});

test("the README's pattern with a negative selector stays within the pattern", () => {
  const scope = resolveScope(spec({ namespacePatterns: ['pr-12-*'], ...selector('!legacy') }), [
    ...namespaces,
    { name: 'pr-12-api' },
  ]);
  expect(scope.namespaces).toEqual(['pr-12-api']);
});

test('a selector alone selects the namespaces whose labels match', () => {
  expect(resolveScope(spec(selector('env=pr')), namespaces).namespaces).toEqual([
    'pr-12',
    'pr-13',
    'pr-14',
    'review-a',
  ]);
});

test('protected: the control plane, every kube-*, the protect input and the label', () => {
  const scope = resolveScope(spec({ namespacePatterns: ['*'], protect: ['stag*'] }), [
    ...namespaces,
    { name: 'kube-flannel' },
    { name: 'infra', labels: { 'kube-sweep.io/protected': 'true' } },
    { name: 'not-quite', labels: { 'kube-sweep.io/protected': 'yes' } },
  ]);
  expect(scope.namespaces).toEqual(['not-quite', 'pr-12', 'pr-13', 'pr-14', 'review-a']);
  expect(scope.protectedMatched).toEqual(['default', 'infra', 'kube-flannel', 'kube-system', 'staging']);
  expect(scope.protection).toEqual({ patterns: ['stag*'], labelled: ['infra'] });
});

test('globs are matched exactly, not as substrings', () => {
  const scope = resolveScope(spec({ namespacePatterns: ['pr-1'] }), namespaces);
  expect(scope.namespaces).toEqual([]);
  expect(scope.unmatchedPatterns).toEqual(['pr-1']);
});

test.each([
  ['*', true],
  ['?*', true],
  ['[a-z]*', true],
  ['**', true],
  ['?', true],
  ['[a-z][0-9]', true],
  ['pr-*', false],
  ['*-pr', false],
  ['[a-z]r*', false],
  ['pr-12', false],
])('pattern %s has no literal character: %s', (pattern, expected) => {
  expect(hasNoLiteral(pattern)).toBe(expected);
});

test.each([
  ['!legacy', true],
  ['env!=prod', true],
  ['env notin (prod,staging)', true],
  ['!a,b!=c', true],
  ['env=pr', false],
  ['env', false],
  ['!legacy,env=pr', false],
  ['', false],
])('selector %j is only negative: %s', (text, expected) => {
  expect(onlyNegative(parseLabelSelector(text))).toBe(expected);
});

/** The refusals of a scope on `cluster` with a limit of `max` namespaces. */
function refusals(s: ScopeSpec, cluster: NamespaceLabels[] = namespaces, max = 25) {
  return scopeRefusals(s, resolveScope(s, cluster), cluster, max).map((r) => inFaceTerms('action', r));
}

test.each(['*', '?*', '[a-z]*', '**'])('a teardown of namespaces: %j is refused', (pattern) => {
  expect(refusals(spec({ namespacePatterns: ['pr-12', pattern] }))).toEqual([
    `input 'namespaces' has '${pattern}', which has no literal character (only *, ? and [...]) and so can match any namespace; ` +
      "name the environment's namespaces (pr-12, pr-12-*). An empty variable in a pattern gives this too",
  ]);
});

test.each(['!legacy', 'env!=prod', 'env notin (prod)'])(
  'a negative selector alone (%s) is refused',
  (text) => {
    expect(refusals(spec(selector(text)))).toEqual([
      `input 'selector' is '${text}', which is only negative (!key, key!=value, notin) and so selects every namespace ` +
        "without those labels; give 'namespaces' patterns too (the selector then narrows them) or a positive selector (env=pr-12)",
    ]);
  },
);

test('a selector alone that matches every namespace of the cluster is refused', () => {
  // The API server labels every namespace kubernetes.io/metadata.name=<name>.
  const cluster = namespaces.map((n) => ({
    ...n,
    labels: { ...n.labels, 'kubernetes.io/metadata.name': n.name },
  }));
  expect(refusals(spec(selector('kubernetes.io/metadata.name')), cluster)).toEqual([
    "input 'selector' is 'kubernetes.io/metadata.name', which matches every namespace of the cluster (7); " +
      "give 'namespaces' patterns too (the selector then narrows them) or a selector that names the environment (env=pr-12)",
  ]);
  // Naming namespaces through that label is fine.
  expect(refusals(spec(selector('kubernetes.io/metadata.name in (pr-12,pr-13)')), cluster)).toEqual([]);
});

test.each([
  'kubernetes.io/metadata.name,kubernetes.io/metadata.name!=default',
  'kubernetes.io/metadata.name,!kube-sweep.io/protected',
  'kubernetes.io/metadata.name,!legacy',
])(
  'a selector whose positive requirement matches every namespace chooses by its negative ones: %s is refused',
  (text) => {
    // A tester got past the "matches every namespace" refusal by adding one negative term.
    const cluster = namespaces.map((n) => ({
      ...n,
      labels: { ...n.labels, 'kubernetes.io/metadata.name': n.name },
    }));
    expect(refusals(spec(selector(text)), cluster)).toEqual([
      // Either refusal names the selector and says it reaches every namespace of the cluster.
      expect.stringMatching(
        new RegExp(
          `^input 'selector' is '${text}'(: each of its positive requirements|, which) matches every namespace of the cluster \\(7\\)`,
        ),
      ),
    ]);
    // With a positive requirement that sets namespaces apart, the negative one may narrow it.
    expect(refusals(spec(selector(`${text},kubernetes.io/metadata.name in (pr-12,pr-13)`)), cluster)).toEqual(
      [],
    );
  },
);

test('a positive selector alone, and a negative one narrowing patterns, are not refused', () => {
  expect(refusals(spec(selector('env=pr')))).toEqual([]);
  expect(refusals(spec({ namespacePatterns: ['pr-*'], ...selector('!legacy') }))).toEqual([]);
});

test('more namespaces than max-namespaces is refused, with the count, the input and the first names', () => {
  const cluster = Array.from({ length: 30 }, (_, i) => ({ name: `pr-${String(i).padStart(2, '0')}` }));
  expect(refusals(spec({ namespacePatterns: ['pr-*'] }), cluster)).toEqual([
    "the scope has 30 namespaces, more than input 'max-namespaces' allows (25): " +
      'pr-00, pr-01, pr-02, pr-03, pr-04, pr-05, pr-06, pr-07, pr-08, pr-09, …; ' +
      "narrow 'namespaces' or 'selector', or raise 'max-namespaces' if all of them are meant",
  ]);
  expect(refusals(spec({ namespacePatterns: ['pr-*'] }), cluster, 30)).toEqual([]);
  // Protected namespaces are not counted: they are never in scope.
  expect(
    refusals(spec({ namespacePatterns: ['pr-0*', 'kube-*'] }), [...cluster, { name: 'kube-a' }], 10),
  ).toEqual([]);
});

describe('scopeMatchRefusals (require-match)', () => {
  const refusals = (s: Partial<ScopeSpec>) => scopeMatchRefusals(spec(s), resolveScope(spec(s), namespaces));

  test('without require-match nothing is refused, even when no pattern matches', () => {
    expect(refusals({ namespacePatterns: ['pr-99'] })).toEqual([]);
  });

  test('each pattern that matches no namespace is named, even beside one that matches', () => {
    const out = refusals({ namespacePatterns: ['pr-12', 'pr-99', 'qa-*'], requireMatch: true });
    expect(out.map((m) => /has '([^']+)'/.exec(m)![1])).toEqual(['pr-99', 'qa-*']);
    expect(inFaceTerms('cli', out[0]!)).toContain(
      "--namespaces has 'pr-99', which matched no namespace, and --require-match is set",
    );
  });

  test('a selector under which nothing is in scope is refused; one that selects something is not', () => {
    expect(
      refusals({ namespacePatterns: ['pr-*'], ...selector('env=staging'), requireMatch: true }),
    ).toHaveLength(1);
    expect(inFaceTerms('action', refusals({ ...selector('env=none'), requireMatch: true })[0]!)).toContain(
      "input 'selector' is 'env=none', which matched no namespace",
    );
    expect(refusals({ namespacePatterns: ['pr-*'], ...selector('env=pr'), requireMatch: true })).toEqual([]);
  });

  test('a protected namespace counts as matched (it is refused on its own)', () => {
    expect(refusals({ namespacePatterns: ['kube-system'], requireMatch: true })).toEqual([]);
  });
});
