import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allFindingCodes, findingCodes } from '../../../src/rules/codes.js';
import { rules, runRules } from '../../../src/rules/index.js';
import { notShownPrefix } from '../../../src/rules/kubectl.js';
import {
  loadRecordedFixture,
  recordedFixturesDir,
  recordedScenarios,
  replayContext,
} from './support/recorded-fixture.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

test('every code is emitted by exactly one registered rule, and each rule has its own file', () => {
  const owners = rules.flatMap((r) => r.codes.map((code) => [code, r.name]));
  expect(owners.map(([code]) => code).sort()).toEqual([...allFindingCodes]);
  expect(new Set(rules.map((r) => r.name)).size).toBe(rules.length);
  for (const r of rules) expect(existsSync(join(repo, 'src/rules', `${r.name}.ts`))).toBe(true);
});

test('every code is documented in docs/finding-codes.md, and nothing else is', () => {
  const docs = readFileSync(join(repo, 'docs/finding-codes.md'), 'utf8');
  const documented = [...docs.matchAll(/^## `(\w+)`/gm)].map((m) => m[1]).sort();
  expect(documented).toEqual([...allFindingCodes]);
  for (const code of allFindingCodes) {
    const section = docs.slice(docs.indexOf(`## \`${code}\``)).split(/^## /m)[1]!;
    expect(section).toContain(`**Severity:** ${findingCodes[code].severity}`);
  }
});

test('the invariants below run over every recorded fixture', () => {
  const files = readdirSync(recordedFixturesDir).filter((f) => f.endsWith('.json'));
  expect(recordedScenarios.length).toBe(files.length);
  expect(recordedScenarios).toEqual(
    expect.arrayContaining(['s15-helm-pending-install', 's23-csi-driver-gone']),
  );
});

test('every rule of the registry finds something in a recorded fixture (so the hostile-names property test runs on it)', () => {
  // A rule with no recorded fixture is never fed hostile names: record one from the real control
  // plane (RECORD_FIXTURES=1 on its scenario test in __tests__/integration/rules).
  const found = new Set(
    recordedScenarios.flatMap((name) => {
      const { fixture, inventory } = loadRecordedFixture(name);
      return runRules(inventory, replayContext(fixture)).map((f) => f.rule);
    }),
  );
  expect(rules.map((r) => r.name).filter((name) => !found.has(name))).toEqual([]);
});

describe.each(recordedScenarios)('recorded scenario %s', (name) => {
  const { fixture, inventory } = loadRecordedFixture(name);
  const findings = runRules(inventory, replayContext(fixture));

  test('each finding comes from a rule that declares its code, with a unique key', () => {
    for (const f of findings) expect(rules.find((r) => r.name === f.rule)?.codes).toContain(f.code);
    expect(new Set(findings.map((f) => f.key)).size).toBe(findings.length);
  });

  test('a risky command comes last, after its warning', () => {
    // Findings with a `# WARNING:` line not followed by commands only (none in some scenarios,
    // which have no risky remedy: the list is then empty too).
    const misplaced = findings
      .filter((f) => {
        const commands = f.remediation.commands;
        const after = commands.slice(commands.findIndex((c) => c.startsWith('# WARNING:')) + 1);
        return (
          commands.some((c) => c.startsWith('# WARNING:')) &&
          (after.length === 0 || after.some((c) => c.startsWith('#') && !c.startsWith(notShownPrefix)))
        );
      })
      .map((f) => f.key);
    expect(misplaced).toEqual([]);
  });

  test('the rules are deterministic and the order does not depend on registration order', () => {
    const again = runRules(inventory, replayContext(fixture), [...rules].reverse());
    expect(again).toEqual(findings);
  });
});
