/**
 * test/kind/runc-nosysres, the OCI runtime wrapper that Docker (test/kind/docker.sh) and the kind
 * node's containerd run instead of runc: it must take CAP_SYS_RESOURCE out of every capability set
 * and raise an oomScoreAdj below its own, in the bundle's config.json on create/run and in the
 * --process file on exec, then hand the unchanged arguments to the real runc.
 * The real runc is replaced here by a script that records its arguments.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../integration/support/cluster.js';

const wrapper = join(repoRoot, 'test/kind/runc-nosysres');
const caps = ['CAP_CHOWN', 'CAP_SYS_RESOURCE', 'CAP_NET_ADMIN'];
const ownOomScoreAdj = Number(readFileSync('/proc/self/oom_score_adj', 'utf8'));

function fakeRunc() {
  const dir = mkdtempSync(join(tmpdir(), 'runc-nosysres-'));
  const runc = join(dir, 'runc');
  writeFileSync(runc, `#!/bin/sh\nprintf '%s\\n' "$@" > "${join(dir, 'args')}"\n`, { mode: 0o755 });
  return {
    dir,
    env: { KUBE_SWEEP_REAL_RUNC: runc },
    args: () => readFileSync(join(dir, 'args'), 'utf8').split('\n').filter(Boolean),
  };
}

function process(oomScoreAdj: number) {
  return {
    args: ['pause'],
    oomScoreAdj,
    capabilities: { bounding: caps, effective: caps, permitted: caps, ambient: [] },
  };
}

test.each(['create', 'run'])(
  '%s: the bundle config loses CAP_SYS_RESOURCE and a lower oomScoreAdj',
  async (cmd) => {
    const f = fakeRunc();
    const bundle = join(f.dir, 'bundle');
    await execa('mkdir', [bundle]);
    writeFileSync(
      join(bundle, 'config.json'),
      JSON.stringify({ ociVersion: '1.2.0', process: process(-998), hostname: 'h' }),
    );
    const argv = [
      '--root',
      '/run/x',
      '--log',
      join(f.dir, 'log.json'),
      cmd,
      '--bundle',
      bundle,
      '--pid-file',
      'p',
      'c1',
    ];
    await execa(wrapper, argv, { env: f.env });
    const spec = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8'));
    for (const set of ['bounding', 'effective', 'permitted']) {
      expect(spec.process.capabilities[set]).toEqual(['CAP_CHOWN', 'CAP_NET_ADMIN']);
    }
    expect(spec.process.oomScoreAdj).toBe(Math.max(-998, ownOomScoreAdj));
    expect(spec.hostname).toBe('h');
    expect(f.args()).toEqual(argv);
  },
);

test('exec: the --process file is edited the same way; an oomScoreAdj above its own is kept', async () => {
  const f = fakeRunc();
  const file = join(f.dir, 'process.json');
  writeFileSync(file, JSON.stringify(process(500)));
  await execa(wrapper, ['exec', '--process', file, '--detach', 'c1'], { env: f.env });
  const spec = JSON.parse(readFileSync(file, 'utf8'));
  expect(spec.capabilities.bounding).toEqual(['CAP_CHOWN', 'CAP_NET_ADMIN']);
  expect(spec.oomScoreAdj).toBe(500);
  expect(f.args()).toEqual(['exec', '--process', file, '--detach', 'c1']);
});

test('other commands reach runc untouched', async () => {
  const f = fakeRunc();
  await execa(wrapper, ['state', 'c1'], { env: f.env });
  expect(f.args()).toEqual(['state', 'c1']);
});
