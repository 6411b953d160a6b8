import { InputDefaults } from '../../../src/config/inputs.js';
import { Inputs, renderFaceWords, type InputName } from '../../../src/words/input-words.js';
import parseDuration from 'parse-duration';
import { maxDurationMs, maxDurationText } from '../../../src/config/input-values.js';
import { InputError, parseSettings, type Settings } from '../../../src/config/settings.js';

/** parseSettings with its InputError's message in the action's words, as the action prints it. */
function parseSettingsAsAction(read: (name: InputName) => string): Settings {
  try {
    return parseSettings(read);
  } catch (error) {
    if (error instanceof InputError)
      throw new InputError(error.input, renderFaceWords('action', error.message));
    throw error;
  }
}

const reader =
  (values: Partial<Record<InputName, string>>) =>
  (name: InputName): string =>
    values[name] ?? '';

test('unset inputs take their defaults', () => {
  const s = parseSettingsAsAction(reader({ namespaces: 'pr-1' }));
  expect(s).toEqual({
    mode: 'teardown',
    scanScope: 'environment',
    failOn: { severity: 'error', codes: [] },
    failOnNew: false,
    baseline: '',
    reports: [],
    reap: { patterns: [], label: '', prClosed: false, maxEnvironments: 10, concurrency: 3 },
    stuckAfterMs: 300_000,
    ignore: [],
    remediate: 'none',
    forceRemoveFinalizers: [],
    scope: {
      namespacePatterns: ['pr-1'],
      selector: [],
      selectorText: '',
      releases: [],
      protect: [],
      requireMatch: false,
    },
    maxNamespaces: 25,
    deleteNamespaces: true,
    dryRun: false,
    order: [],
    timeoutMs: 900_000,
    stageTimeoutMs: 300_000,
    stageTimeoutCapped: false,
    helm: 'helm',
    uninstallConcurrency: 4,
    uninstallMode: 'auto',
    awaitPredictedHangs: false,
    cluster: 'existing',
    kubeconfig: '',
    context: '',
    clusterName: '',
    kind: { clusterName: 'kube-sweep', configPath: '', nodeImage: '', waitMs: 60_000, keep: false },
    requestTimeoutMs: 30_000,
    listConcurrency: 8,
    pageSize: 500,
    reportPath: '',
    github: { prComment: false, checkRun: false, token: '', publishServer: false, requestTimeoutMs: 30_000 },
  });
  expect(Object.isFrozen(s)).toBe(true);
});

test('a timeout shorter than the default stage-timeout caps the stage budget instead of being refused', () => {
  const s = parseSettingsAsAction(reader({ namespaces: 'pr-1', timeout: '3m' }));
  expect(s.timeoutMs).toBe(180_000);
  expect(s.stageTimeoutMs).toBe(180_000);
  expect(s.stageTimeoutCapped).toBe(true);
  // An explicit stage-timeout within the timeout is kept as given.
  const t = parseSettingsAsAction(reader({ namespaces: 'pr-1', timeout: '3m', 'stage-timeout': '2m' }));
  expect([t.stageTimeoutMs, t.stageTimeoutCapped]).toEqual([120_000, false]);
});

test('durations, numbers and booleans are parsed', () => {
  const s = parseSettingsAsAction(
    reader({
      mode: 'inventory',
      'request-timeout': '1m30s',
      'list-concurrency': '3',
      'page-size': '50',
      'kind-keep': 'TRUE',
      cluster: 'kind',
      'kind-wait': '5m',
    }),
  );
  expect(s.requestTimeoutMs).toBe(90_000);
  expect(s.listConcurrency).toBe(3);
  expect(s.pageSize).toBe(50);
  expect(s.kind.keep).toBe(true);
  expect(s.kind.waitMs).toBe(300_000);
});

const badInputs: [Partial<Record<InputName, string>>, InputName, RegExp][] = [
  [
    { mode: 'destroy' },
    'mode',
    /input 'mode' is 'destroy'; it takes one of: teardown, plan, scan, inventory/,
  ],
  [
    { mode: 'scan', 'fail-on': 'errors' },
    'fail-on',
    /'errors', which is neither a severity \(error, warning, info\), 'never', nor a finding code/,
  ],
  [{ mode: 'scan', 'scan-scope': 'everything' }, 'scan-scope', /it takes environment or cluster/],
  [{ mode: 'scan', 'scan-scope': 'environment' }, 'namespaces', /mode 'scan' needs a scope/],
  [{ mode: 'scan', 'stuck-after': '0' }, 'stuck-after', /not a positive duration/],
  [{ mode: 'scan', ignore: 'code: x' }, 'ignore', /input 'ignore' is not a YAML list/],
  [{ mode: 'scan', ignore: '- [a' }, 'ignore', /input 'ignore' is not valid YAML/],
  [{ mode: 'scan', ignore: '- {codes: X}' }, 'ignore', /entry 1 has the unknown key 'codes'/],
  [
    { mode: 'scan', ignore: '- {code: OrphanInMissingNamespce}' },
    'ignore',
    /entry 1 has code 'OrphanInMissingNamespce', which matches no finding code/,
  ],
  [
    { mode: 'scan', 'fail-on': 'never,error' },
    'fail-on',
    /'never' means nothing fails the step, so it cannot be combined with a severity or codes/,
  ],
  [{ mode: 'scan', ignore: '- {}' }, 'ignore', /entry 1 is empty \(it would hide every finding\)/],
  ...[
    '- {code: "*"}',
    '- {name: "*"}',
    '- {kind: "?*", namespace: "**"}',
    '- {code: StuckFinalizer}\n- {name: "*"}',
  ].map((ignore): [Partial<Record<InputName, string>>, InputName, RegExp] => [
    { mode: 'scan', ignore },
    'ignore',
    /has only patterns with no literal character \(.*\), so it would hide every finding/,
  ]),
  [{ mode: 'scan', ignore: '- {selector: "a in (b"}' }, 'ignore', /entry 1 has selector 'a in \(b'/],
  [
    { namespaces: '!pr-1' },
    'namespaces',
    /'!pr-1', which is neither a namespace name nor a glob.*no '!' or braces/,
  ],
  [{ namespaces: 'pr-1-[' }, 'namespaces', /'pr-1-\[', which is neither/],
  [{ namespaces: 'qa-{a' }, 'namespaces', /'qa-\{a'/],
  [{ namespaces: 'x', 'stage-timeout': '90' }, 'stage-timeout', /'90', which is not a positive duration/],
  [{ namespaces: 'x', 'stage-timeout': '5m garbage' }, 'stage-timeout', /not a positive duration/],
  [{ namespaces: 'x', 'stage-timeout': 'abc5m' }, 'stage-timeout', /not a positive duration/],
  [{ namespaces: 'x', 'stage-timeout': '1h-30m' }, 'stage-timeout', /not a positive duration/],
  [{ namespaces: 'x', 'stage-timeout': '1.5.5m' }, 'stage-timeout', /not a positive duration/],
  [{ mode: 'teardown' }, 'namespaces', /mode 'teardown' needs a scope.*'namespaces'.*'selector'.*'releases'/],
  [{ mode: 'plan' }, 'namespaces', /mode 'plan' needs a scope/],
  [{ namespaces: 'Bad_NS' }, 'namespaces', /'Bad_NS', which is neither a namespace name nor a glob/],
  [
    { namespaces: 'x', protect: 'infra,!x' },
    'protect',
    /input 'protect' has '!x', which is neither a namespace name/,
  ],
  [
    { namespaces: 'x', 'max-namespaces': '0' },
    'max-namespaces',
    /'max-namespaces' is '0'; it takes a whole number from 1/,
  ],
  [{ namespaces: 'x', 'max-namespaces': 'many' }, 'max-namespaces', /whole number/],
  [{ selector: 'env in (a' }, 'selector', /input 'selector' is 'env in \(a'.*label selector like/],
  [{ selector: 'a=b=c' }, 'selector', /input 'selector'/],
  [{ releases: 'just-a-name' }, 'releases', /'just-a-name'; write each release as namespace\/name/],
  [{ releases: 'a/b/c' }, 'releases', /namespace\/name/],
  // Helm's release name rule (kube/object-names.ts isHelmReleaseName), as for the records read from the cluster.
  [{ releases: 'pr-1/a..b' }, 'releases', /namespace\/name/],
  [{ releases: `pr-1/${'a'.repeat(54)}` }, 'releases', /namespace\/name/],
  [
    { namespaces: 'x', order: 'app operator' },
    'order',
    /the line 'app operator'; write one constraint per line as 'app -> operator'/,
  ],
  [{ namespaces: 'x', order: 'app -> Op!' }, 'order', /'app -> Op!'/],
  [{ namespaces: 'x', order: 'pr-1/app -> pr-1/app' }, 'order', /orders a release before itself/],
  [{ namespaces: 'x', 'dry-run': 'yes' }, 'dry-run', /takes true or false/],
  [{ namespaces: 'x', timeout: '1m', 'stage-timeout': '5m' }, 'stage-timeout', /longer than 'timeout'/],
  [{ namespaces: 'x', 'delete-namespaces': 'maybe' }, 'delete-namespaces', /takes true or false/],
  [{ namespaces: 'x', 'uninstall-concurrency': '0' }, 'uninstall-concurrency', /from 1 to 32/],
  [
    { mode: 'inventory', cluster: 'minikube' },
    'cluster',
    /input 'cluster' is 'minikube'; it takes one of: existing, kind/,
  ],
  [{ 'request-timeout': 'soon' }, 'request-timeout', /'request-timeout' is 'soon'.*90s, 5m/],
  [{ 'request-timeout': '-5s' }, 'request-timeout', /not a positive duration/],
  [{ 'kind-wait': '0s' }, 'kind-wait', /not a positive duration/],
  [{ 'list-concurrency': '0' }, 'list-concurrency', /from 1 to 64/],
  [{ 'list-concurrency': '2.5' }, 'list-concurrency', /whole number/],
  [{ 'page-size': '100000' }, 'page-size', /from 1 to 10000/],
  [{ 'kind-keep': 'yes' }, 'kind-keep', /takes true or false/],
  [{ cluster: 'kind', 'kind-cluster-name': 'Bad_Name' }, 'kind-cluster-name', /lower-case letters/],
  [{ mode: 'inventory', cluster: 'kind', kubeconfig: '/tmp/x' }, 'kubeconfig', /exclude each other/],
  [{ mode: 'inventory', 'kind-config': 'kind.yaml' }, 'kind-config', /only apply with 'cluster: kind'/],
  [{ mode: 'inventory', 'pr-comment': 'yes' }, 'pr-comment', /takes true or false/],
  [{ mode: 'inventory', 'check-run': '1' }, 'check-run', /takes true or false/],
];

test.each(badInputs)('bad input %j is rejected naming %s', (values, input, message) => {
  let caught: unknown;
  try {
    parseSettingsAsAction(reader(values));
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InputError);
  expect((caught as InputError).input).toBe(input);
  expect((caught as InputError).message).toMatch(message);
});

test('protect and max-namespaces are parsed', () => {
  const s = parseSettings(
    reader({ namespaces: 'pr-1', protect: 'infra-*\nshared, team-[ab]', 'max-namespaces': '40' }),
  );
  expect(s.scope.protect).toEqual(['infra-*', 'shared', 'team-[ab]']);
  expect(s.maxNamespaces).toBe(40);
});

test('pr-comment, check-run and github-token are parsed', () => {
  const s = parseSettingsAsAction(
    reader({ mode: 'inventory', 'pr-comment': 'true', 'check-run': 'false', 'github-token': ' ghs_x ' }),
  );
  expect(s.github).toEqual({
    prComment: true,
    checkRun: false,
    token: 'ghs_x',
    publishServer: false,
    requestTimeoutMs: 30_000,
  });
  expect(parseSettings(reader({ mode: 'inventory', 'publish-server': 'true' })).github.publishServer).toBe(
    true,
  );
});

test('an empty github-token with pr-comment or check-run on is accepted: publishing warns, the sweep runs', () => {
  // A fork's pull request has no secret-based token; the README says GitHub problems never stop the sweep.
  const s = parseSettings(reader({ mode: 'inventory', 'pr-comment': 'true', 'check-run': 'true' }));
  expect(s.github).toEqual({
    prComment: true,
    checkRun: true,
    token: '',
    publishServer: false,
    requestTimeoutMs: 30_000,
  });
});

test('scope inputs are parsed: globs, selector, releases, order', () => {
  const s = parseSettingsAsAction(
    reader({
      mode: 'plan',
      namespaces: 'pr-12\npr-13-*, review-?',
      selector: 'env=pr,team in (a,b),!legacy',
      releases: 'pr-12/api\n# a comment\npr-12/operator',
      order: 'api -> operator\npr-12/web -> pr-12/api  # web first',
    }),
  );
  expect(s.scope.namespacePatterns).toEqual(['pr-12', 'pr-13-*', 'review-?']);
  expect(s.scope.selector).toEqual([
    { key: 'env', op: 'in', values: ['pr'] },
    { key: 'team', op: 'in', values: ['a', 'b'] },
    { key: 'legacy', op: 'not-exists' },
  ]);
  expect(s.scope.releases).toEqual([
    { namespace: 'pr-12', name: 'api' },
    { namespace: 'pr-12', name: 'operator' },
  ]);
  expect(s.order).toEqual([
    { before: { name: 'api' }, after: { name: 'operator' }, line: 'api -> operator' },
    {
      before: { namespace: 'pr-12', name: 'web' },
      after: { namespace: 'pr-12', name: 'api' },
      line: 'pr-12/web -> pr-12/api',
    },
  ]);
});

test('scan defaults to the whole cluster; fail-on takes severities and codes', () => {
  const s = parseSettingsAsAction(
    reader({ mode: 'scan', 'fail-on': 'warning, StaleAPIService\nOrphanInMissingNamespace' }),
  );
  expect(s.scanScope).toBe('cluster');
  // As kubectl -n: a scan that names a scope reports that scope, unless scan-scope says otherwise.
  expect(parseSettingsAsAction(reader({ mode: 'scan', namespaces: 'pr-1' })).scanScope).toBe('environment');
  expect(parseSettingsAsAction(reader({ mode: 'scan', selector: 'env=pr' })).scanScope).toBe('environment');
  expect(
    parseSettingsAsAction(reader({ mode: 'scan', namespaces: 'pr-1', 'scan-scope': 'cluster' })).scanScope,
  ).toBe('cluster');
  expect(s.failOn).toEqual({ severity: 'warning', codes: ['StaleAPIService', 'OrphanInMissingNamespace'] });
  expect(parseSettingsAsAction(reader({ mode: 'scan', 'fail-on': 'never' })).failOn).toEqual({ codes: [] });
});

test('every input has a default entry', () => {
  expect(Object.keys(InputDefaults).sort()).toEqual(Object.values(Inputs).sort());
});

test('remediate and force-remove-finalizers: exact finalizer names, only with remediate: safe', () => {
  const s = parseSettingsAsAction(
    reader({
      mode: 'scan',
      remediate: 'safe',
      'force-remove-finalizers': 'example.com/cleanup, foregroundDeletion\nexample.com/cleanup',
    }),
  );
  expect(s.remediate).toBe('safe');
  expect(s.forceRemoveFinalizers).toEqual(['example.com/cleanup', 'foregroundDeletion']);
  expect(() => parseSettingsAsAction(reader({ mode: 'scan', remediate: 'all' }))).toThrow(
    "input 'remediate' is 'all'; it takes one of: none, safe",
  );
  expect(() =>
    parseSettingsAsAction(
      reader({ mode: 'scan', remediate: 'safe', 'force-remove-finalizers': 'example.com/*' }),
    ),
  ).toThrow("input 'force-remove-finalizers' has 'example.com/*', which is not a finalizer name");
  expect(() =>
    parseSettingsAsAction(reader({ mode: 'scan', 'force-remove-finalizers': 'example.com/cleanup' })),
  ).toThrow("input 'force-remove-finalizers' only acts with 'remediate: safe'");
});

test('a scan with remediate: safe and dry-run is refused: its remediation has no dry run', () => {
  expect(() => parseSettingsAsAction(reader({ mode: 'scan', remediate: 'safe', 'dry-run': 'true' }))).toThrow(
    "input 'dry-run' does not apply to a scan's remediation, which would act anyway: set 'remediate: none'",
  );
  // Alone, each is accepted; a teardown's dry run never remediates.
  expect(parseSettingsAsAction(reader({ mode: 'scan', 'dry-run': 'true' })).dryRun).toBe(true);
  expect(parseSettingsAsAction(reader({ mode: 'scan', remediate: 'safe' })).remediate).toBe('safe');
  expect(
    parseSettingsAsAction(
      reader({ mode: 'teardown', namespaces: 'pr-1', remediate: 'safe', 'dry-run': 'true' }),
    ).dryRun,
  ).toBe(true);
});

test('etcd-endpoint: one URL; etcd-tls: three paths, only with https', () => {
  expect(parseSettingsAsAction(reader({ mode: 'scan' })).etcd).toBeUndefined();
  expect(
    parseSettingsAsAction(reader({ mode: 'scan', 'etcd-endpoint': 'http://127.0.0.1:2379' })).etcd,
  ).toEqual({
    endpoint: 'http://127.0.0.1:2379',
  });
  expect(
    parseSettingsAsAction(
      reader({ mode: 'scan', 'etcd-endpoint': 'https://10.0.0.5:2379', 'etcd-tls': 'ca.crt, c.crt, c.key' }),
    ).etcd,
  ).toEqual({ endpoint: 'https://10.0.0.5:2379', tls: { ca: 'ca.crt', cert: 'c.crt', key: 'c.key' } });
  expect(() => parseSettingsAsAction(reader({ mode: 'scan', 'etcd-endpoint': '127.0.0.1:2379' }))).toThrow(
    "input 'etcd-endpoint' is '127.0.0.1:2379'",
  );
  expect(() =>
    parseSettingsAsAction(
      reader({ mode: 'scan', 'etcd-endpoint': 'http://127.0.0.1:2379', 'etcd-tls': 'a,b,c' }),
    ),
  ).toThrow("input 'etcd-tls' needs an https 'etcd-endpoint'");
});

test.each(badInputs)('bad input %j: the message names %s in each face, as data', (values, input) => {
  let caught: unknown;
  try {
    parseSettings(reader(values));
  } catch (error) {
    caught = error;
  }
  const raw = (caught as InputError).message;
  const action = renderFaceWords('action', raw);
  const cli = renderFaceWords('cli', raw);
  for (const text of [action, cli]) expect(text).not.toMatch(/[\uE000-\uE002]/);
  if (input === 'mode') return; // the CLI's command word is checked before the settings
  expect(action).toMatch(new RegExp(`'${input}[':]`));
  expect(cli).toContain(`--${input}`);
  // No input's action words are left in the CLI's message, nor flags in the action's.
  expect(cli).not.toMatch(/\binputs? '|'[a-z-]+: [^']+'/);
  expect(action).not.toMatch(/--[a-z]/);
});

describe('the longest duration is the longest timer Node.js sets (2^31-1 ms)', () => {
  const timers = ['timeout', 'stage-timeout', 'request-timeout', 'kind-wait'] as const;
  const field = {
    timeout: (s: Settings) => s.timeoutMs,
    'stage-timeout': (s: Settings) => s.stageTimeoutMs,
    'request-timeout': (s: Settings) => s.requestTimeoutMs,
    'kind-wait': (s: Settings) => s.kind.waitMs,
  };

  test(`${maxDurationText} is 2^31-1 ms floored to whole seconds`, () => {
    expect(maxDurationMs).toBe(2_147_483_647);
    const ms = parseDuration(maxDurationText)!;
    expect(ms).toBeLessThanOrEqual(maxDurationMs);
    expect(ms + 1000).toBeGreaterThan(maxDurationMs);
  });

  test.each(timers)(
    '%s: the maximum is taken, a second more is refused naming the input, its maximum and the fix',
    (input) => {
      // timeout goes with it, so that a stage-timeout at the maximum is not longer than the timeout.
      const at = parseSettingsAsAction(
        reader({ namespaces: 'x', timeout: maxDurationText, [input]: maxDurationText }),
      );
      expect(field[input](at)).toBe(2_147_483_000);
      for (const value of ['24d20h31m24s', '99999h', '9999999999999999999999d']) {
        let caught: unknown;
        try {
          parseSettingsAsAction(reader({ namespaces: 'x', [input]: value }));
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(InputError);
        expect((caught as InputError).input).toBe(input);
        expect((caught as InputError).message).toBe(
          `input '${input}' is '${value}', longer than the maximum, 24d20h31m23s (2^31-1 ms, the longest timer Node.js can set); write 24d20h31m23s or less, e.g. 24d`,
        );
      }
    },
  );

  test('stuck-after is an age compared with timestamps, not a timer: it has no maximum', () => {
    expect(parseSettingsAsAction(reader({ mode: 'scan', 'stuck-after': '99999h' })).stuckAfterMs).toBe(
      99999 * 3_600_000,
    );
  });

  test('a duration that rounds to 0 ms is not positive', () => {
    expect(() => parseSettingsAsAction(reader({ mode: 'scan', 'request-timeout': '0.4ms' }))).toThrow(
      "input 'request-timeout' is '0.4ms', which is not a positive duration",
    );
  });
});
