import { TokenSource, type IssuedToken } from '../../../src/cluster/token-source.js';

/** A fetch that issues t1, t2, ... each `lifeMs` long on the given clock, counting its calls. */
function issuer(clock: { now: number }, lifeMs?: number) {
  let n = 0;
  const fetch = async (): Promise<IssuedToken> => {
    n++;
    return { token: `t${n}`, ...(lifeMs !== undefined ? { expiresAt: clock.now + lifeMs } : {}) };
  };
  return { fetch, calls: () => n };
}

/** A source that starts with the token t0 (no expiry) and issues t1, t2, ... without expiry. */
function startingWithT0() {
  const clock = { now: 0 };
  const { fetch, calls } = issuer(clock);
  return {
    clock,
    calls,
    source: new TokenSource(
      fetch,
      () => {},
      { token: 't0' },
      () => clock.now,
    ),
  };
}

test('the token is kept until it expires, then fetched again; each new token is reported once', async () => {
  const clock = { now: 1_000 };
  const { fetch, calls } = issuer(clock, 500);
  const masked: string[] = [];
  const source = new TokenSource(
    fetch,
    (t) => masked.push(t),
    undefined,
    () => clock.now,
  );
  expect(await source.token()).toBe('t1');
  clock.now += 499;
  expect(await source.token()).toBe('t1');
  clock.now += 1;
  expect(await source.token()).toBe('t2');
  expect(calls()).toBe(2);
  expect(masked).toEqual(['t1', 't2']);
});

test('a token without expiry is kept until a 401 renews it', async () => {
  const { clock, source, calls } = startingWithT0();
  clock.now += 10 ** 9;
  expect(await source.token()).toBe('t0');
  expect(calls()).toBe(0);
  expect(await source.renew('t0')).toBe('t1');
  expect(await source.token()).toBe('t1');
});

test('concurrent 401s on the same token fetch one new token; a 401 on an already replaced token fetches none', async () => {
  const { source, calls } = startingWithT0();
  const renewed = await Promise.all([source.renew('t0'), source.renew('t0'), source.renew('t0')]);
  expect(renewed).toEqual(['t1', 't1', 't1']);
  expect(calls()).toBe(1);
  expect(await source.renew('t0')).toBe('t1');
  expect(calls()).toBe(1);
});

test('a failed fetch reaches the caller and is not cached', async () => {
  let fail = true;
  const source = new TokenSource(
    async () => {
      if (fail) throw new Error('plugin failed');
      return { token: 'ok' };
    },
    () => {},
  );
  await expect(source.token()).rejects.toThrow('plugin failed');
  fail = false;
  expect(await source.token()).toBe('ok');
});
