import { codeBlock, codeSpan, escapeMarkdown } from '../../../src/report/escape.js';

test.each([
  ['<script>alert(1)</script>', '&lt;script&gt;alert\\(1\\)&lt;/script&gt;'],
  ['[click](https://evil.example)', '\\[click\\]\\(https&#58;//evil.example\\)'],
  ['see www.evil.example or ops@evil.example', 'see www&#46;evil.example or ops&#64;evil.example'],
  ['a | b\n| c', 'a \\| b \\| c'],
  ['**bold** _it_ `code`', '\\*\\*bold\\*\\* \\_it\\_ \\`code\\`'],
  ['plain-name.v1', 'plain-name.v1'],
])('escapeMarkdown(%j)', (input, expected) => {
  expect(escapeMarkdown(input)).toBe(expected);
});

test('codeSpan keeps backticks and tags inert', () => {
  expect(codeSpan('a`b')).toBe('`` a`b ``');
  expect(codeSpan('<img src=x>')).toBe('`&lt;img src=x>`');
  expect(codeSpan('a|b')).toBe('`a\\|b`');
  // A run of two backticks cannot close a fence of two and let the rest out as markdown (a link).
  expect(codeSpan('a``[click](https://example.invalid)``b')).toBe(
    '``` a``[click](https://example.invalid)``b ```',
  );
  expect(codeSpan('x````y')).toBe('````` x````y `````');
});

test('a code block shows every command exactly: its fence is longer than any backtick run in it', () => {
  const lines = [
    "kubectl get clusterrolebindings.rbac.authorization.k8s.io 'a```b' -o yaml",
    'kubectl get x',
  ];
  const block = codeBlock('sh', lines);
  expect(block).toEqual(['````sh', ...lines, '````']);
  expect(codeBlock('sh', ['kubectl get x'])).toEqual(['```sh', 'kubectl get x', '```']);
});

/** One character of each class that can make text read as other text, with its shown escape. */
const invisible: [string, string][] = [
  ['\u202e', '\\u202e'],
  ['\u2067', '\\u2067'],
  ['\u200f', '\\u200f'],
  ['\u061c', '\\u061c'],
  ['\u200b', '\\u200b'],
  ['\u2060', '\\u2060'],
  ['\ufeff', '\\ufeff'],
  ['\u001b', '\\u001b'],
  ['\u0085', '\\u0085'],
  ['\u2028', '\\u2028'],
];

test.each(invisible.map(([c, escape]) => [escape, c]))(
  'escapeMarkdown, codeSpan and codeBlock show %s',
  (escape, c) => {
    // In markdown text the backslash is escaped (`\\u202e` reads `\u202e`); in code it is literal.
    expect(escapeMarkdown(`status ${c}deployed`)).toBe(`status \\${escape}deployed`);
    expect(codeSpan(`evil${c}name`)).toBe(`\`evil${escape}name\``);
    expect(codeBlock('sh', [`kubectl get ${c}x`])).toEqual(['```sh', `kubectl get ${escape}x`, '```']);
  },
);
