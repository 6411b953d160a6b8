/**
 * The scope guard before each DELETE (teardown/scope-guard.ts) is the plan's own protection
 * check, with the namespace read again just before the request: a namespace labelled
 * kube-sweep.io/protected=true after the plan was made, and one the `protect` input names, are
 * not deleted even when the plan handed to the teardown lists them (the plan bypassed), and a
 * label added between the guard's read and the DELETE makes the API server refuse the DELETE's
 * preconditions (409), after which the namespace is judged again. Each is reported
 * (`protected`, with why) and the verdict is not clean.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { buildPlan, type TeardownPlan } from '../../../src/plan/build-plan.js';
import { protectedLabel } from '../../../src/plan/protected-namespaces.js';
import { resolveScope } from '../../../src/plan/scope.js';
import { teardownVerdict } from '../../../src/report/report.js';
import { resourceIndex } from '../../../src/teardown/resource-index.js';
import { runTeardown } from '../../../src/teardown/run-teardown.js';
import type { TeardownResult } from '../../../src/model/teardown-result.js';
import { auditMark, kubeSweepRequestsSince } from '../support/audit.js';
import {
  adminApiForSuite,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

/** Namespaces `<id>-<suffix>`, each with a ConfigMap `keep`. */
async function namespacesWithContent(id: string, suffixes: readonly string[]): Promise<string[]> {
  const names = suffixes.map((s) => `${id}-${s}`);
  for (const ns of names) {
    await createNamespace(api, ns);
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' }, data: { a: 'b' } },
    });
  }
  return names;
}

/** Labels a namespace kube-sweep.io/protected=true. */
function labelProtected(client: ApiClient, ns: string): Promise<unknown> {
  return client.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${ns}`,
    contentType: 'application/merge-patch+json',
    body: { metadata: { labels: { [protectedLabel]: 'true' } } },
  });
}

/** The plan of a teardown of `namespaces` (no releases), resolved from the cluster as it is now. */
async function planOf(namespaces: readonly string[]): Promise<TeardownPlan> {
  const listed = await api.request<{
    items: { metadata: { name: string; labels?: Record<string, string> } }[];
  }>({
    path: '/api/v1/namespaces',
  });
  const scope = resolveScope(
    { namespacePatterns: [...namespaces], selector: [], selectorText: '', releases: [] },
    listed.items.map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} })),
  );
  expect(scope.namespaces).toEqual([...namespaces].sort());
  return buildPlan({
    scope,
    releaseRefs: [],
    foundReleases: [],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf: () => undefined,
    instancesOf: () => [],
  });
}

/** runTeardown of `plan` with the API port `client` and no Helm. */
function tearDown(plan: TeardownPlan, client: ApiClient, lines: string[]): Promise<TeardownResult> {
  return runTeardown(
    plan,
    {
      failedGroupVersions: new Set(),
      uninstallConcurrency: 1,
      uninstallMode: 'helm',
      timeoutMs: 120_000,
      stageTimeoutMs: 60_000,
    },
    {
      api: client,
      helm: {
        uninstall: () => Promise.reject(new Error('no release to uninstall')),
        version: () => Promise.resolve('v4'),
      },
      resources: resourceIndex([]),
      log: (line) => lines.push(line),
      group: (_title, fn) => fn(),
    },
  );
}

async function stillThere(ns: string): Promise<void> {
  const got = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
    api,
    `/api/v1/namespaces/${ns}`,
  );
  expect([ns, got?.metadata.deletionTimestamp]).toEqual([ns, undefined]);
  expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/keep`)).toBeDefined();
}

test('a namespace labelled protected after the plan, and one the protect input names, are not deleted though the plan lists them', async () => {
  const id = uniqueName('guard');
  const [labelled, named, plain] = await namespacesWithContent(id, ['labelled', 'named', 'plain']);
  try {
    const planned = await planOf([labelled!, named!, plain!]);
    // The plan bypassed: it lists `named`, which its own `protect` pattern matches.
    const plan = {
      ...planned,
      scope: { ...planned.scope, protection: { patterns: [`${id}-nam*`], labelled: [] } },
    };
    await labelProtected(api, labelled!); // after the plan was made
    const mark = auditMark();
    const lines: string[] = [];
    const result = await tearDown(plan, api, lines);
    expect(result.namespaces.map((n) => [n.name, n.status, n.message])).toEqual([
      [labelled, 'protected', `protected (labelled ${protectedLabel}=true) when read just before its DELETE`],
      [
        named,
        'protected',
        expect.stringMatching(
          /^protected \(.*protect.* matches it \('.*-nam\*'\)\) when read just before its DELETE$/,
        ),
      ],
      [plain, 'deleted', undefined],
    ]);
    expect(teardownVerdict(result)).toBe('leftovers');
    expect(lines).toContain(
      `namespace ${labelled}: not deleted: it is protected (labelled ${protectedLabel}=true), read just before its DELETE`,
    );
    await stillThere(labelled!);
    await stillThere(named!);
    // No request of kube-sweep's changed either of them.
    const touched = kubeSweepRequestsSince(mark).filter(
      (e) =>
        e.verb !== 'get' &&
        e.verb !== 'list' &&
        e.verb !== 'watch' &&
        [labelled, named].some((n) => e.requestURI.includes(`/namespaces/${n}`)),
    );
    expect(touched).toEqual([]);
  } finally {
    for (const ns of [labelled, named, plain]) await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a label added between the guard read and the DELETE: the DELETE preconditions fail (409), the namespace is judged again and kept', async () => {
  const id = uniqueName('guard-race');
  const [racing] = await namespacesWithContent(id, ['racing']);
  try {
    const plan = await planOf([racing!]);
    let raced = 0;
    // The API port labels the namespace just before forwarding its DELETE: the label lands after
    // the guard's read, the window a concurrent writer would use.
    const racingApi: ApiClient = new Proxy(api, {
      get(target, prop, receiver) {
        if (prop !== 'request') return Reflect.get(target, prop, receiver) as unknown;
        return async (req: Parameters<ApiClient['request']>[0]) => {
          if (req.method === 'DELETE' && req.path === `/api/v1/namespaces/${racing}` && raced++ === 0)
            await labelProtected(api, racing!);
          return target.request(req);
        };
      },
    });
    const lines: string[] = [];
    const result = await tearDown(plan, racingApi, lines);
    expect(raced).toBe(1);
    expect(result.namespaces.map((n) => [n.name, n.status])).toEqual([[racing, 'protected']]);
    expect(teardownVerdict(result)).toBe('leftovers');
    await stillThere(racing!);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${racing}`);
    await waitGone(api, `/api/v1/namespaces/${racing}`);
  }
});
