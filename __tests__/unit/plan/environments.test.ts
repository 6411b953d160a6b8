import {
  annotatedExpiry,
  environmentPattern,
  groupEnvironments,
  judgeEnvironment,
  type Environment,
  type NamespaceFacts,
  type ReapPolicy,
} from '../../../src/plan/environments.js';

const now = Date.parse('2026-12-01T12:00:00Z');
const ns = (name: string, extra: Partial<NamespaceFacts> = {}): NamespaceFacts => ({
  name,
  labels: {},
  annotations: {},
  creationTimestamp: '2026-11-20T12:00:00Z',
  ...extra,
});
const env = (id: string, ...namespaces: NamespaceFacts[]): Environment => ({ id, namespaces });
const policy = (p: Partial<ReapPolicy>): ReapPolicy => ({ prClosed: false, ...p });
const day = 86400e3;

describe('environments', () => {
  test.each([
    ['pr-{id}-*', 'pr-12-api', '12'],
    ['pr-{id}-*', 'pr-12-api-v2', '12'],
    ['pr-{id}', 'pr-12', '12'],
    ['pr-{id}', 'pr-feature-x', 'feature-x'],
    ['preview-?-{id}', 'preview-a-7', '7'],
  ])('%s on %s has the id %s', (pattern, name, id) => {
    expect(environmentPattern(pattern).exec(name)?.[1]).toBe(id);
  });

  test.each([
    ['pr-12', 'pr-{id}-*'],
    ['app-12', 'pr-{id}-*'],
    ['pr--api', 'pr-{id}-*'],
  ])('%s does not match %s', (name, pattern) => {
    expect(environmentPattern(pattern).exec(name)).toBeNull();
  });

  test.each([['pr-*'], ['pr-{id}-{id}'], ['PR-{id}'], ['pr-{id}/x']])('%s is refused', (pattern) => {
    expect(() => environmentPattern(pattern)).toThrow(/\{id\}|characters/);
  });

  // What `${{ vars.PREFIX }}{id}` becomes with an empty variable: every namespace an environment.
  test.each([['{id}'], ['*{id}'], ['?{id}'], ['{id}*'], ['*{id}?*']])(
    '%s has no literal character besides {id} and is refused',
    (pattern) => {
      expect(() => environmentPattern(pattern)).toThrow(/has no literal character besides \{id\}/);
    },
  );

  test('namespaces are grouped by the id of the pattern, else of the label; ids sorted numerically', () => {
    const groups = groupEnvironments({ patterns: ['pr-{id}-*'], label: 'preview-id' }, [
      ns('pr-12-api'),
      ns('pr-12-db'),
      ns('pr-9-api'),
      ns('team-a', { labels: { 'preview-id': '100' } }),
      ns('default'),
      ns('other', { labels: { 'preview-id': '' } }),
    ]);
    expect(groups.map((g) => [g.id, g.namespaces.map((n) => n.name)])).toEqual([
      ['9', ['pr-9-api']],
      ['12', ['pr-12-api', 'pr-12-db']],
      ['100', ['team-a']],
    ]);
  });
});

describe('expiry annotations', () => {
  test.each([
    [{ 'janitor/ttl': '24h' }, Date.parse('2026-11-21T12:00:00Z')],
    [{ 'janitor/ttl': '2w' }, Date.parse('2026-12-04T12:00:00Z')],
    [{ 'janitor/ttl': 'forever' }, Infinity],
    [{ 'janitor/expires': '2026-11-25' }, Date.parse('2026-11-25T00:00:00Z')],
    [{ 'janitor/expires': '2026-11-25T09' }, Date.parse('2026-11-25T09:00:00Z')],
    [{ 'janitor/expires': '2026-11-25T09:30' }, Date.parse('2026-11-25T09:30:00Z')],
    [{ 'janitor/expires': '2026-11-25T09:30:10Z' }, Date.parse('2026-11-25T09:30:10Z')],
    [{ 'kube-sweep.io/expires-at': '2026-11-25T09:30:10+02:00' }, Date.parse('2026-11-25T07:30:10Z')],
    [
      { 'janitor/ttl': '30d', 'kube-sweep.io/expires-at': '2026-11-22T00:00:00Z' },
      Date.parse('2026-11-22T00:00:00Z'),
    ],
    [{}, undefined],
  ])('%j expires at %d', (annotations, when) => {
    expect(annotatedExpiry(ns('a', { annotations }))).toBe(when);
  });

  test.each([
    [{ 'janitor/ttl': '1 day' }],
    [{ 'janitor/expires': 'tomorrow' }],
    [{ 'kube-sweep.io/expires-at': '2026-11-25' }],
  ])('%j cannot be read', (annotations) => {
    expect(annotatedExpiry(ns('a', { annotations }))).toEqual({ problem: expect.stringContaining('is not') });
  });
});

describe('judgeEnvironment', () => {
  const old = env('12', ns('pr-12-api'));
  const young = env('13', ns('pr-13-api', { creationTimestamp: '2026-12-01T11:00:00Z' }));

  test('older than older-than: abandoned, by its newest namespace', () => {
    expect(judgeEnvironment(old, policy({ olderThanMs: 7 * day }), now)).toEqual({
      abandoned: true,
      reasons: ['older than 7d 0h (newest namespace created 11d 0h ago)'],
    });
    const mixed = env('12', ns('pr-12-api'), ns('pr-12-db', { creationTimestamp: '2026-12-01T11:00:00Z' }));
    expect(judgeEnvironment(mixed, policy({ olderThanMs: 7 * day }), now).abandoned).toBe(false);
    expect(judgeEnvironment(young, policy({ olderThanMs: 7 * day }), now)).toEqual({
      abandoned: false,
      reasons: ['not abandoned: not older than 7d 0h'],
    });
  });

  test('an expiry annotation replaces older-than, both ways', () => {
    const ttl = env(
      '14',
      ns('pr-14-api', { creationTimestamp: '2026-12-01T10:00:00Z', annotations: { 'janitor/ttl': '1h' } }),
    );
    expect(judgeEnvironment(ttl, policy({ olderThanMs: 7 * day }), now).abandoned).toBe(true);
    const later = env(
      '15',
      ns('pr-15-api', { annotations: { 'kube-sweep.io/expires-at': '2026-12-31T00:00:00Z' } }),
    );
    expect(judgeEnvironment(later, policy({ olderThanMs: 7 * day }), now).abandoned).toBe(false);
    const bad = env('16', ns('pr-16-api', { annotations: { 'janitor/ttl': 'soon' } }));
    expect(judgeEnvironment(bad, policy({ olderThanMs: 1 }), now).reasons[0]).toMatch(
      /never reaped on an unreadable expiry/,
    );
  });

  test('without older-than the expiry annotations decide alone: every namespace past its own', () => {
    const none = policy({});
    const expired = env(
      '17',
      ns('pr-17-api', { annotations: { 'kube-sweep.io/expires-at': '2026-11-30T00:00:00Z' } }),
      ns('pr-17-db', { creationTimestamp: '2026-12-01T10:00:00Z', annotations: { 'janitor/ttl': '1h' } }),
    );
    expect(judgeEnvironment(expired, none, now)).toEqual({
      abandoned: true,
      reasons: ['expired (2026-12-01T11:00:00.000Z, by annotation)'],
    });
    // A namespace without an annotation has no deadline: the environment stays.
    const partly = env(
      '18',
      ns('pr-18-api', { annotations: { 'kube-sweep.io/expires-at': '2026-11-30T00:00:00Z' } }),
      ns('pr-18-db'),
    );
    expect(judgeEnvironment(partly, none, now)).toEqual({
      abandoned: false,
      reasons: ['not abandoned: no expiry annotation past on every namespace'],
    });
    // Not yet past, or unreadable: kept.
    const later = env(
      '19',
      ns('pr-19-api', { annotations: { 'kube-sweep.io/expires-at': '2026-12-31T00:00:00Z' } }),
    );
    expect(judgeEnvironment(later, none, now).abandoned).toBe(false);
    const bad = env('20', ns('pr-20-api', { annotations: { 'kube-sweep.io/expires-at': 'tomorrow' } }));
    expect(judgeEnvironment(bad, none, now).reasons[0]).toMatch(/never reaped on an unreadable expiry/);
    // No annotation anywhere and no condition: nothing is abandoned.
    expect(judgeEnvironment(old, none, now)).toEqual({
      abandoned: false,
      reasons: ['not abandoned: no expiry annotation on its namespaces'],
    });
  });

  test('a closed or merged pull request abandons it; an open or unknown one does not', () => {
    const p = policy({ prClosed: true });
    expect(judgeEnvironment(young, p, now, { state: 'closed', merged: true, labels: [] }).reasons).toEqual([
      'pull request #13 is merged',
    ]);
    expect(judgeEnvironment(young, p, now, { state: 'open', labels: [] }).abandoned).toBe(false);
    expect(judgeEnvironment(young, p, now, { state: 'unknown', labels: [], problem: '404' })).toEqual({
      abandoned: false,
      reasons: ['not abandoned: pull request #13 unknown (404)'],
    });
  });

  test('a label the user names abandons it', () => {
    const marked = env(
      '17',
      ns('pr-17-api', { creationTimestamp: '2026-12-01T11:00:00Z', labels: { stale: 'yes' } }),
    );
    expect(judgeEnvironment(marked, policy({ abandonedLabel: { key: 'stale' } }), now).abandoned).toBe(true);
    expect(
      judgeEnvironment(marked, policy({ abandonedLabel: { key: 'stale', value: 'no' } }), now).abandoned,
    ).toBe(false);
  });

  test('kept whatever else holds: protected, kube-sweep.io/keep=true, keep-label on the PR', () => {
    const p = policy({ olderThanMs: 1, prClosed: true, keepLabel: 'keep-preview' });
    const closed = { state: 'closed' as const, labels: [] };
    expect(judgeEnvironment(env('x', ns('default')), p, now, closed).reasons[0]).toMatch(
      /^protected: namespace default/,
    );
    const keep = env('12', ns('pr-12-api', { labels: { 'kube-sweep.io/keep': 'true' } }));
    expect(judgeEnvironment(keep, p, now, closed)).toEqual({
      abandoned: false,
      reasons: ['pr-12-api is labelled kube-sweep.io/keep=true'],
    });
    expect(judgeEnvironment(old, p, now, { state: 'closed', labels: ['keep-preview'] }).reasons).toEqual([
      "pull request #12 carries the label 'keep-preview'",
    ]);
    expect(judgeEnvironment(old, p, now, closed).abandoned).toBe(true);
  });
});
