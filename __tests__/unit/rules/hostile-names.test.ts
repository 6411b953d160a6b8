/**
 * Property test: remedy commands are safe to paste whatever the cluster names hold. Every
 * recorded fixture is replayed with one of its scenario's names (a namespace, a binding, a
 * release, a CRD group...) replaced everywhere by a hostile string (quotes, `;`, `$()`,
 * backticks, spaces, globs, unicode, a 253-character name, a line break), and again by a plain
 * marker. Every printed command of every rule is run by bash in a scratch folder with recording
 * `kubectl`, `helm` and `etcdctl` on PATH (shell scripts that write their argv to a file):
 * - nothing else runs: the `touch pwned` canary never appears;
 * - each command's recorded argv re-quotes to exactly the printed line (the shell read the words
 *   the command was built from, no more, no fewer);
 * - each command's argv equals that of the marker run with the marker replaced by the hostile
 *   string (inside JSON patches: in the decoded JSON), so the value landed where a plain name
 *   lands, as one argument (the calls of a finding compared as a set: a rule that lists objects
 *   by name lists the hostile one elsewhere);
 * - a value with a line break or control character is not printed: the line says why instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildInventory, type InventoryData } from '../../../src/inventory/snapshot.js';
import type { Finding } from '../../../src/rules/findings.js';
import { rules, runRules } from '../../../src/rules/index.js';
import { notShownPrefix } from '../../../src/rules/kubectl.js';
import { shellCommand, unshowableCharacter } from '../../../src/util/shell-quote.js';
import { loadRecordedFixture, recordedScenarios, replayContext } from './support/recorded-fixture.js';

const canary = 'pwned';
const hostileNames = [
  `x'; touch ${canary}; echo '`,
  `$(touch ${canary})`,
  `\`touch ${canary}\``,
  `a b;touch ${canary}&&echo "q" | cat`,
  'glob-*',
  '[g]lob-?',
  'ünïcødé-名前-🙂',
  `${`'$(touch ${canary})\`x\`"`.repeat(30)}`.slice(0, 253),
  `\\'"\\"$HOME!#~{a,b}<>()`,
];
/** Names that can only be shown as "not shown". */
const unshowableNames = [`x\ntouch ${canary}`, 'a\rb', 'esc\u001b[31m', 'bidi\u202eb', 'zero\u200bwidth'];
const marker = 'zzmarker0';

/** Pure: `data` with `from` replaced by `to` in every string (a whole string, or inside when `from` is distinctive). */
function substitute<T>(data: T, from: string, to: string): T {
  const inside = from.includes('rules-') || from === marker;
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return inside ? v.split(from).join(to) : v === from ? to : v;
    if (Array.isArray(v)) return v.map(visit);
    if (v && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x)]));
    return v;
  };
  return visit(data) as T;
}

function findingsWith(name: string, from: string, to: string): Finding[] {
  const { fixture } = loadRecordedFixture(name);
  const changed = substitute(fixture, from, to);
  return runRules(buildInventory(changed.inventory as InventoryData), replayContext(changed));
}

const commandLines = (findings: readonly Finding[]) =>
  findings.flatMap((f) => f.remediation.commands).filter((c) => !c.startsWith('#'));

const scratch = mkdtempSync(join(tmpdir(), 'kube-sweep-hostile-'));
const bin = join(scratch, 'bin');
const record = join(scratch, 'argv');
const work = join(scratch, 'work');

{
  // Set up while the module loads: describe.each runs before any beforeAll.
  mkdirSync(bin);
  mkdirSync(work);
  for (const tool of ['kubectl', 'helm', 'etcdctl']) {
    const path = join(bin, tool);
    // One record per call: the tool name, then each argument, NUL-terminated; a line feed ends the call.
    writeFileSync(path, `#!/bin/sh\nprintf '%s\\0' "${tool}" "$@" >> "$RECORD"\nprintf '\\n' >> "$RECORD"\n`);
    chmodSync(path, 0o755);
  }
  // Files a glob would expand to if a name reached the shell unquoted.
  for (const f of ['glob-a', 'glob-b', 'x']) writeFileSync(join(work, f), '');
}
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs each line in bash (one process, `set -e` off) and returns the argv of each recorded call. */
function runRecorded(lines: readonly string[]): string[][] {
  writeFileSync(record, '');
  execFileSync('bash', ['-c', lines.join('\n')], {
    cwd: work,
    env: { PATH: `${bin}:/usr/bin:/bin`, RECORD: record, HOME: '/nonexistent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return readFileSync(record, 'latin1')
    .split('\0\n')
    .filter((call) => call.length > 0)
    .map((call) => Buffer.from(call, 'latin1').toString('utf8').split('\0'));
}

/** Pure: `arg` as data: a JSON patch decoded, any other argument as it is. */
function decoded(arg: string): unknown {
  try {
    return /^[[{]/.test(arg) ? (JSON.parse(arg) as unknown) : arg;
  } catch {
    return arg;
  }
}

/** Pure: calls sorted by their JSON text, to compare two lists of calls as sets. */
const inAnyOrder = (calls: readonly unknown[][]) =>
  [...calls].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

/** Pure: the argv of each command line, grouped by finding key (keys written with `marker`). */
function callsByFinding(
  findings: readonly Finding[],
  calls: readonly string[][],
  hostile: string,
): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  let at = 0;
  for (const f of findings) {
    const n = commandLines([f]).length;
    out.set(f.key.split(hostile).join(marker), calls.slice(at, at + n));
    at += n;
  }
  return out;
}

/** How many findings were compared argument by argument with their marker run. */
let compared = 0;

/** (fixture, name to replace) pairs: every name the scenario generated that the rules print. */
const cases = recordedScenarios.flatMap((fixtureName) => {
  const { fixture } = loadRecordedFixture(fixtureName);
  const printed = commandLines(findingsWith(fixtureName, '', '')).join('\n');
  const names = [...new Set([...Object.values(fixture.names), ...fixture.environmentNamespaces])];
  return names.filter((n) => printed.includes(n)).map((n) => [fixtureName, n] as const);
});

test('the cases cover every fixture whose rules print commands', () => {
  const fixtures = new Set(cases.map(([f]) => f));
  expect(cases.length).toBeGreaterThan(40);
  for (const name of recordedScenarios)
    if (commandLines(findingsWith(name, '', '')).length > 0)
      expect([name, fixtures.has(name)]).toEqual([name, true]);
});

test('the cases cover every rule of the registry that prints a command naming a replaced name', () => {
  // Each rule's findings in the fixture of a case, whose commands name the case's name.
  const covered = new Set(
    cases.flatMap(([fixtureName, name]) =>
      findingsWith(fixtureName, '', '')
        .filter((f) => commandLines([f]).some((c) => c.includes(name)))
        .map((f) => f.rule),
    ),
  );
  // Rules whose recorded findings print commands at all (the registry test requires a fixture for every rule).
  const printing = new Set(
    recordedScenarios.flatMap((fixtureName) =>
      findingsWith(fixtureName, '', '')
        .filter((f) => commandLines([f]).length > 0)
        .map((f) => f.rule),
    ),
  );
  expect(rules.map((r) => r.name).filter((r) => printing.has(r) && !covered.has(r))).toEqual([]);
  expect([...printing].length).toBeGreaterThan(rules.length / 2);
});

/** How many findings with a line break or control character in a name said "not shown". */
let notShown = 0;

describe.each(cases)('%s with %s replaced', (fixtureName, name) => {
  let plain: { findings: Finding[]; byKey: Map<string, string[][]> } | undefined;
  /** The marker run, once per case: its findings and the argv of their commands by key. */
  const plainRun = () => {
    if (plain) return plain;
    const findings = findingsWith(fixtureName, name, marker);
    plain = { findings, byKey: callsByFinding(findings, runRecorded(commandLines(findings)), marker) };
    return plain;
  };

  test.each(hostileNames)('by %j: argv as intended, nothing else runs', (hostile) => {
    const { byKey } = plainRun();
    const findings = findingsWith(fixtureName, name, hostile);
    const lines = commandLines(findings);
    const calls = runRecorded(lines);
    expect(existsSync(join(work, canary))).toBe(false);
    expect(calls.map((argv) => shellCommand(argv))).toEqual(lines);
    // Where the rules read the hostile name as they read the marker (same finding, same number
    // of commands), each argument is the marker's with the hostile name in its place.
    for (const [key, got] of callsByFinding(findings, calls, hostile)) {
      const want = byKey.get(key);
      if (!want || want.length !== got.length || !JSON.stringify(want).includes(marker)) continue;
      // As a set of calls: a rule that lists objects by name puts the hostile one elsewhere.
      expect(inAnyOrder(got.map((argv) => argv.map(decoded)))).toEqual(
        inAnyOrder(want.map((argv) => argv.map((a) => substitute(decoded(a), marker, hostile)))),
      );
      compared += 1;
    }
  });

  test('by names with a line break or control character: not printed, and the line says why', () => {
    expect.hasAssertions();
    const { findings: plainFindings } = plainRun();
    for (const hostile of unshowableNames) {
      const findings = findingsWith(fixtureName, name, hostile);
      const all = findings.flatMap((f) => f.remediation.commands);
      expect(all.filter((c) => unshowableCharacter(c) !== undefined)).toEqual([]);
      runRecorded(commandLines(findings));
      expect(existsSync(join(work, canary))).toBe(false);
      // A finding whose commands named the marker now says instead why a line is not shown
      // (or names the value JSON-escaped inside a patch).
      for (const f of findings) {
        const before = plainFindings.find((p) => p.key === f.key.split(hostile).join(marker));
        const same = before?.remediation.commands.length === f.remediation.commands.length;
        if (!same || !before.remediation.commands.some((c) => c.includes(marker))) continue;
        // Inside a JSON patch the value is JSON-escaped (`\n`), which shows and pastes safely.
        const escaped = JSON.stringify(hostile).slice(1, -1);
        const said = f.remediation.commands.some(
          (c) => c.startsWith(notShownPrefix) || (escaped !== hostile && c.includes(escaped)),
        );
        expect([f.key, said]).toEqual([f.key, true]);
        notShown += 1;
      }
    }
  });
});

test('most cases were compared argument by argument, and said "not shown"', () => {
  expect(compared).toBeGreaterThan(cases.length * hostileNames.length);
  expect(notShown).toBeGreaterThan(cases.length * unshowableNames.length);
});

test('a name that starts with - (a binding named --all) comes after --, so kubectl reads it as a name', () => {
  const name = 'rules-s19-gilxyl-pr-7-deployer';
  const findings = findingsWith('s19-dangling-rbac-subjects', name, '--all');
  const calls = runRecorded(commandLines(findings)).filter((argv) => argv.includes('--all'));
  expect(calls.length).toBeGreaterThan(0);
  for (const argv of calls) {
    expect(argv.indexOf('--')).toBeGreaterThan(0);
    expect(argv.indexOf('--all')).toBeGreaterThan(argv.indexOf('--'));
  }
});
