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
