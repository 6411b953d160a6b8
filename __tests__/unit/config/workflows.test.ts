/**
 * Each workflow sets up what its tests need (issue 25): ci.yml has no Docker engine, kind or
 * node image, so it runs the unit, integration and act projects (the act examples need act and
 * the control plane only; e2e.yml under act skips without kind); the `kind` project runs in
 * e2e.yml, after the steps that set those up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

type Workflow = { jobs: Record<string, { steps: { run?: string; uses?: string }[] }> };
const workflow = (name: string) =>
  parse(readFileSync(join(process.cwd(), '.github/workflows', name), 'utf8')) as Workflow;
const runs = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps.map((s) => s.run ?? ''));
const scripts = (
  JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

test('ci.yml runs no test project it does not set up: not `npm test` (which includes kind), not test:kind', () => {
  const ci = runs(workflow('ci.yml'));
  expect(ci.filter((r) => /\bnpm (test|run test:kind)\b/.test(r))).toEqual([]);
  expect(ci).toContain('npm run test:cluster');
  expect(scripts['test:cluster']).toMatch(/--selectProjects unit integration act$/);
  // The act project runs only with KUBE_SWEEP_ACT_TESTS=1, after act is built.
  const steps = workflow('ci.yml').jobs['test']!.steps as { run?: string; env?: Record<string, string> }[];
  const tests = steps.findIndex((s) => s.run === 'npm run test:cluster');
  expect(steps[tests]!.env).toEqual({ KUBE_SWEEP_ACT_TESTS: '1' });
  expect(steps.slice(0, tests).some((s) => s.run?.includes('test/act/build.sh'))).toBe(true);
});

test('e2e.yml runs the kind project after the Docker engine and the node image are set up', () => {
  expect.hasAssertions();
  for (const job of Object.values(workflow('e2e.yml').jobs)) {
    const steps = job.steps.map((s) => s.run ?? '');
    const kind = steps.findIndex((r) => r.includes('npm run test:kind'));
    if (kind < 0) continue;
    expect(steps.slice(0, kind).some((r) => r.includes('test/kind/docker.sh up'))).toBe(true);
    expect(steps.slice(0, kind).some((r) => r.includes('test/kind/build.sh'))).toBe(true);
    expect(steps.slice(0, kind).some((r) => r.includes('test/cluster/build.sh'))).toBe(true);
  }
  expect(runs(workflow('e2e.yml')).some((r) => r.includes('npm run test:kind'))).toBe(true);
});

test('release.yml: on a version tag, job `test` checks the tag, dist and the tests; job `publish` (after it) runs release-publish.yml', () => {
  const text = readFileSync(join(process.cwd(), '.github/workflows/release.yml'), 'utf8');
  type Job = {
    needs?: string;
    uses?: string;
    permissions?: Record<string, string>;
    steps?: { run?: string }[];
  };
  const release = parse(text) as { on: { push: { tags: string[] } }; jobs: Record<string, Job> };
  expect(release.on.push.tags).toEqual(['v*.*.*']);
  expect(Object.keys(release.jobs)).toEqual(['test', 'publish']);
  const tests = release.jobs['test']!.steps!.map((s) => s.run ?? '').join('\n');
  for (const needed of [
    'node scripts/publish-release.mjs check "$GITHUB_REF_NAME"',
    'npm run check-dist',
    'npm run test:cluster',
  ])
    expect([needed, tests.includes(needed)]).toEqual([needed, true]);
  // Publishing is a job of its own that runs only after the tests passed, and builds nothing there.
  expect(release.jobs['publish']).toEqual({
    needs: 'test',
    permissions: { contents: 'write' },
    uses: './.github/workflows/release-publish.yml',
  });
  expect(tests).not.toMatch(/npm pack|sea\.mjs|publish-release\.mjs publish|git push/);
  // The publish workflow is called only (no trigger of its own), and runs no tests (the act test
  // __tests__/act/release.test.ts runs it).
  const publish = parse(
    readFileSync(join(process.cwd(), '.github/workflows/release-publish.yml'), 'utf8'),
  ) as {
    on: Record<string, unknown>;
  } & Workflow;
  expect(Object.keys(publish.on)).toEqual(['workflow_call']);
  const steps = runs(publish).join('\n');
  for (const needed of [
    'npm pack',
    'node scripts/sea.mjs',
    'node scripts/publish-release.mjs publish "$GITHUB_REF_NAME"',
    'kubectl-sweep-linux-x64.tar.gz build/release/sweep.yaml',
    'git push -f origin "refs/tags/$major"',
  ])
    expect([needed, steps.includes(needed)]).toEqual([needed, true]);
  expect(steps).not.toMatch(/npm (run )?test|jest/);
  expect(readFileSync(join(process.cwd(), 'CHANGELOG.md'), 'utf8')).toMatch(
    new RegExp(`^## ${JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).version}$`, 'm'),
  );
});
