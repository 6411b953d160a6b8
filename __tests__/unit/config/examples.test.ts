/** The example workflows in examples/ are valid YAML workflows that use only real inputs. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Inputs } from '../../../src/words/input-words.js';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  name: string;
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
}

const dir = join(process.cwd(), 'examples');
const examples = Object.fromEntries(
  readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .map((f) => [f, parse(readFileSync(join(dir, f), 'utf8')) as Workflow]),
);
const sweepSteps = (w: Workflow) =>
  Object.values(w.jobs)
    .flatMap((j) => j.steps)
    .filter((s) => s.uses === 'kube-sweep/kube-sweep@v0');

test('the examples exist and the README links each', () => {
  expect(Object.keys(examples).sort()).toEqual([
    'ephemeral-teardown.yml',
    'fleet-hygiene.yml',
    'pr-check-summary.yml',
    'reap-abandoned.yml',
    'scheduled-hygiene.yml',
  ]);
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  for (const f of Object.keys(examples)) expect(readme).toContain(`(examples/${f})`);
});

test.each(Object.keys(examples))('%s is a workflow whose kube-sweep steps use declared inputs', (file) => {
  const w = examples[file]!;
  expect(typeof w.name).toBe('string');
  expect(Object.keys(w.on).length).toBeGreaterThan(0);
  for (const job of Object.values(w.jobs)) {
    expect(typeof job['runs-on']).toBe('string');
    for (const step of job.steps) expect(Boolean(step.uses) !== Boolean(step.run)).toBe(true);
  }
  const steps = sweepSteps(w);
  expect(steps.length).toBeGreaterThan(0);
  const known = new Set<string>(Object.values(Inputs));
  for (const step of steps) expect(Object.keys(step.with ?? {}).filter((k) => !known.has(k))).toEqual([]);
});

test('each example does what its name says', () => {
  const teardown = sweepSteps(examples['ephemeral-teardown.yml']!)[0]!;
  expect(teardown.with).toMatchObject({ mode: 'teardown' });
  const hygiene = examples['scheduled-hygiene.yml']!;
  expect(hygiene.on).toHaveProperty('schedule');
  expect(sweepSteps(hygiene)[0]!.with).toMatchObject({ mode: 'scan', 'scan-scope': 'cluster' });
  const pr = examples['pr-check-summary.yml']!;
  expect(pr.on).toHaveProperty('pull_request');
  expect(sweepSteps(pr)[0]!.with).toMatchObject({ 'pr-comment': true, 'check-run': true });
  expect(pr.permissions).toMatchObject({ 'pull-requests': 'write', checks: 'write' });
  // The fleet: a scan per matrix leg uploads its report; the last job downloads and merges them.
  const fleet = examples['fleet-hygiene.yml']! as Workflow & {
    jobs: Record<string, { needs?: string; strategy?: { matrix?: Record<string, unknown> }; steps: Step[] }>;
  };
  expect(fleet.jobs.scan!.strategy?.matrix?.include).toEqual(
    expect.arrayContaining([expect.objectContaining({ cluster: 'dev', secret: 'KUBECONFIG_DEV' })]),
  );
  expect(sweepSteps({ ...fleet, jobs: { scan: fleet.jobs.scan! } })[0]!.with).toMatchObject({ mode: 'scan' });
  expect(fleet.jobs.scan!.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@'))).toBe(true);
  expect(fleet.jobs.merge!.needs).toBe('scan');
  expect(fleet.jobs.merge!.steps.some((s) => s.uses?.startsWith('actions/download-artifact@'))).toBe(true);
  expect(sweepSteps({ ...fleet, jobs: { merge: fleet.jobs.merge! } })[0]!.with).toMatchObject({
    mode: 'merge',
  });
  const reap = examples['reap-abandoned.yml']!;
  expect(reap.on).toHaveProperty('schedule');
  expect(sweepSteps(reap)[0]!.with).toMatchObject({
    mode: 'reap',
    environments: 'pr-{id}-*',
    'pr-state': 'closed',
  });
});

/** Whether `block` occurs in `lines` as consecutive lines, all indented by the same whitespace. */
function containsExcerpt(lines: readonly string[], block: readonly string[]): boolean {
  for (let i = 0; i + block.length <= lines.length; i++) {
    const first = lines[i]!;
    if (!first.endsWith(block[0]!) || first.slice(0, first.length - block[0]!.length).trim() !== '') continue;
    const indent = first.slice(0, first.length - block[0]!.length);
    if (block.every((l, j) => (l === '' ? lines[i + j]!.trim() === '' : lines[i + j] === indent + l)))
      return true;
  }
  return false;
}

test('every workflow snippet of the README is an excerpt of a workflow that runs (the act tests run them)', () => {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.replace(/\n$/, '').split('\n'),
  );
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const workflows = join(process.cwd(), '.github/workflows');
  const sources = [
    ...Object.keys(examples).map((f) => join(dir, f)),
    ...readdirSync(workflows).map((f) => join(workflows, f)),
  ].map((path) => readFileSync(path, 'utf8').split('\n'));
  const found = blocks.map((block) => [block[0], sources.some((lines) => containsExcerpt(lines, block))]);
  expect(found).toEqual(blocks.map((block) => [block[0], true]));
});
