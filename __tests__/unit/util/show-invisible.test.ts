import { showInvisible } from '../../../src/util/show-invisible.js';

/** Pure: code point `n` as its character. */
const char = (n: number) => String.fromCodePoint(n);
/** Pure: the JSON escape of a BMP code point, lower case (`\u202e`). */
const escapeOf = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
/** Pure: the integers from `a` to `b`, both included. */
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

const classes: [string, number[]][] = [
  ['bidi embeddings and overrides U+202A-U+202E', range(0x202a, 0x202e)],
  ['bidi isolates U+2066-U+2069', range(0x2066, 0x2069)],
  ['bidi marks U+200E, U+200F, U+061C', [0x200e, 0x200f, 0x061c]],
  ['zero-width U+200B-U+200D, U+2060, U+FEFF', [...range(0x200b, 0x200d), 0x2060, 0xfeff]],
  ['C0 controls but tab, LF and CR', [...range(0x00, 0x08), 0x0b, 0x0c, ...range(0x0e, 0x1f)]],
  ['DEL and the C1 controls (NEL U+0085 among them)', range(0x7f, 0x9f)],
  ['line and paragraph separators U+2028, U+2029', [0x2028, 0x2029]],
  ['other format characters: soft hyphen, invisible operators', [0x00ad, 0x2061, 0x2064]],
];

describe.each(classes)('%s', (_name, codePoints) => {
  test.each(codePoints.map((n) => [n.toString(16), n]))('U+%s is shown as its escape', (_hex, n) => {
    const hostile = `a${char(n)}b`;
    expect(showInvisible(hostile)).toBe(`a${escapeOf(n)}b`);
    expect(showInvisible(hostile, { keepLineFeeds: true })).toBe(`a${escapeOf(n)}b`);
  });
});

test('line breaks in a value are shown, so it stays one line: a forged name cannot print a verdict', () => {
  const name = 'x\nverdict: clean\r\nfindings: none\rz\u2028y\u2029w\u0085v';
  const shown = showInvisible(name);
  expect(shown).toBe('x\\nverdict: clean\\r\\nfindings: none\\rz\\u2028y\\u2029w\\u0085v');
  expect(shown).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
});

test('in a stream LF and CRLF stay; a lone CR and the Unicode line breaks are shown', () => {
  const stream = 'verdict: clean\r\nname: a\rb\u2028c\u0085d\n';
  expect(showInvisible(stream, { keepLineFeeds: true })).toBe(
    'verdict: clean\r\nname: a\\rb\\u2028c\\u0085d\n',
  );
});

test('tabs, letters of every script, emoji and punctuation stay as they are', () => {
  const plain =
    'verdict: clean\tkept: ConfigMap a/b (ünïcödé, 日本, עברית, العربية) 🔴 ⚠️ ✅ — “x” %0A \\u202e';
  expect(showInvisible(plain)).toBe(plain);
  expect(showInvisible(plain, { keepLineFeeds: true })).toBe(plain);
});

test('an astral format character (a tag character) is shown as its two surrogate escapes', () => {
  expect(showInvisible(`a${char(0xe0041)}b`)).toBe('a\\udb40\\udc41b');
});

test('JSON text stays JSON of the same value, with no invisible character left raw', () => {
  const value = { name: `evil\u202e\u2066x\u200b\u2028\ufeff\u001b[2J\u0085\\\u202e`, list: ['\u061c'] };
  const json = showInvisible(JSON.stringify(value, null, 2), { keepLineFeeds: true });
  expect(JSON.parse(json)).toEqual(value);
  const raw =
    /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/; // eslint-disable-line no-control-regex -- it looks for them
  expect(json).not.toMatch(raw);
});
