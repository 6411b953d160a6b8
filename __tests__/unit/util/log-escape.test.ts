import { escapeLogLine, escapeLogStream } from '../../../src/util/log-escape.js';

test.each([
  ['release web in namespace pr-1', 'release web in namespace pr-1'],
  ['release x\n::add-mask::secret', 'release x%0A::add-mask::secret'],
  ['a\r\n::error::b', 'a%0D%0A::error::b'],
  ['::stop-commands::tok', '%3A%3Astop-commands::tok'],
  ['  ::warning::x', '  %3A%3Awarning::x'],
  ['100% done', '100%25 done'],
  ['text ##[set-output name=x;]y', 'text #%23[set-output name=x;]y'],
  [
    'status \u202edeployed\u202c zero\u200bwidth\ufeff',
    'status \\u202edeployed\\u202c zero\\u200bwidth\\ufeff',
  ],
  ['\u200b::error::x \u2028::warning::y', '\\u200b::error::x \\u2028::warning::y'],
  ['a\x1b[2Jb\x85c', 'a\\u001b[2Jb\\u0085c'],
])('escapeLogLine(%j) is %j: one line that starts no workflow command', (line, escaped) => {
  expect(escapeLogLine(line)).toBe(escaped);
  expect(escapeLogLine(line)).not.toMatch(/[\r\n]/);
});

test('escapeLogStream keeps the line breaks and neutralizes every line that would be a command', () => {
  // A lone CR is shown (`\r`), not kept as a line break: it would overwrite the line in a terminal.
  const chunk = '• scan\n::add-mask::x\r\n  ::error::y\r::ok ##[group]z\n{\n  "a": "b"\n}\n';
  expect(escapeLogStream(chunk)).toBe(
    '• scan\n%3A%3Aadd-mask::x\r\n  %3A%3Aerror::y\\r::ok #%23[group]z\n{\n  "a": "b"\n}\n',
  );
  expect(escapeLogStream('{\n  "verdict": "clean"\n}\n')).toBe('{\n  "verdict": "clean"\n}\n');
});

test('escapeLogStream shows what a terminal would act on as JSON escapes; text, tabs and line ends stay', () => {
  // A tester's forged manifest name set the terminal title through the CLI's text output.
  const hostile =
    'name\x1b]0;TITLE-PWNED\x07 \x1b[2J tail\rover \x9b31m \u202eevil\u2069 \x7f\x08 zero\u200bwidth';
  expect(escapeLogStream(hostile)).toBe(
    'name\\u001b]0;TITLE-PWNED\\u0007 \\u001b[2J tail\\rover \\u009b31m \\u202eevil\\u2069 \\u007f\\u0008 zero\\u200bwidth',
  );
  const plain = 'verdict: clean\r\n\tkept: ConfigMap a/b (ünïcödé, 日本)\n';
  expect(escapeLogStream(plain)).toBe(plain);
  // A JSON report stays valid JSON of the same value, with nothing left for a terminal to act on.
  const json = escapeLogStream(JSON.stringify({ name: hostile }));
  expect(JSON.parse(json)).toEqual({ name: hostile });
  // eslint-disable-next-line no-control-regex -- the test looks for control characters
  expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
});
