import { escapeLogLine, escapeLogStream } from '../../../src/util/log-escape.js';

test.each([
  ['release web in namespace pr-1', 'release web in namespace pr-1'],
  ['release x\n::add-mask::secret', 'release x%0A::add-mask::secret'],
  ['a\r\n::error::b', 'a%0D%0A::error::b'],
  ['::stop-commands::tok', '%3A%3Astop-commands::tok'],
  ['  ::warning::x', '  %3A%3Awarning::x'],
  ['100% done', '100%25 done'],
  ['text ##[set-output name=x;]y', 'text #%23[set-output name=x;]y'],
])('escapeLogLine(%j) is %j: one line that starts no workflow command', (line, escaped) => {
  expect(escapeLogLine(line)).toBe(escaped);
  expect(escapeLogLine(line)).not.toMatch(/[\r\n]/);
});

test('escapeLogStream keeps the line breaks and neutralizes every line that would be a command', () => {
  const chunk = '• scan\n::add-mask::x\r\n  ::error::y\rok ##[group]z\n{\n  "a": "b"\n}\n';
  expect(escapeLogStream(chunk)).toBe(
    '• scan\n%3A%3Aadd-mask::x\r\n  %3A%3Aerror::y\rok #%23[group]z\n{\n  "a": "b"\n}\n',
  );
  expect(escapeLogStream('{\n  "verdict": "clean"\n}\n')).toBe('{\n  "verdict": "clean"\n}\n');
});
