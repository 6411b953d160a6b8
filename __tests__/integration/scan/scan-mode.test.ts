/**
 * `mode: scan` end to end on the real control plane: an APIService with no backend (S01)
 * blocks a namespace deletion; the scan finds both, links the namespace to its root cause,
 * fails the step under the default fail-on, and passes with fail-on: never. A scan with
 * `namespaces` reports that scope only (as `kubectl -n`); `scan-scope: cluster` reports the rest.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { runAction } from '../support/action.js';
import {
  adminApi,
  createNamespace,
  deleteIfPresent,
  uniqueName,
  waitGone,
  createApiServiceWithoutBackend,
} from '../support/cluster.js';
import {
  cleanupFinalizer,
  createObject,
  deleteNamespaceAndWait,
  forceFinalizeNamespace,
  removeFinalizers,
} from '../rules/support/scenario.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('S01 through the scan mode: root cause first, namespace linked, step failed with the cause named', async () => {
  const group = `${uniqueName('scan')}.kube-sweep.test`;
  const apiService = `v1.${group}`;
  const ns = uniqueName('scan-empty');
  await createNamespace(api, ns);
  await createApiServiceWithoutBackend(api, { group, serviceName: 'metrics-server-gone' });
  try {
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    await waitFor(
      async () => {
        const n = await api.request<{ status?: { conditions?: { type: string; status: string }[] } }>({
          path: `/api/v1/namespaces/${ns}`,
        });
        const blocked =
          n.status?.conditions?.some(
            (c) => c.type === 'NamespaceDeletionDiscoveryFailure' && c.status === 'True',
          ) ?? false;
        return { done: blocked, value: blocked };
      },
      { timeoutMs: 60_000, description: 'the namespace to report the discovery failure' },
    );
    await new Promise((r) => setTimeout(r, 1100)); // older than stuck-after
    const { report, failures, outputs, summary } = await runAction({ mode: 'scan', 'stuck-after': '1s' });
    expect(report.verdict).toBe('leftovers');
    const stale = report.findings!.find((f) => f.code === 'StaleAPIService' && f.object.name === apiService)!;
    expect(stale).toBeDefined();
    const blocked = report.findings!.find((f) => f.object.kind === 'Namespace' && f.object.name === ns)!;
    expect(blocked.code).toBe('NamespaceBlockedByDiscovery');
    expect(blocked.causedBy).toContain(stale.key);
    expect(failures[0]).toMatch(
      new RegExp(
        `^leftovers: \\d+ finding\\(s\\) over fail-on from \\d+ root cause\\(s\\): .*StaleAPIService APIService ${apiService.replace(/\./g, '\\.')}`,
      ),
    );
    expect(Number(outputs.get('errors'))).toBeGreaterThanOrEqual(2);
    expect(summary).toMatch(/^### \d+ root causes?, \d+ linked findings? /m);
    expect(summary).toContain('(root cause of');

    const lenient = await runAction({ mode: 'scan', 'stuck-after': '1s', 'fail-on': 'never' });
    // Nothing crosses fail-on, but the broken group could not be read: never "clean".
    expect(lenient.report.verdict).toBe('partial');
    expect(lenient.report.inventory!.coverage).toContainEqual(
      expect.objectContaining({ resource: `${group}/v1`, reason: 'discovery' }),
    );
    expect(lenient.failures).toEqual([]);
    expect(lenient.report.findings!.length).toBe(report.findings!.length);
  } finally {
    await deleteIfPresent(api, `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`);
    await waitGone(api, `/api/v1/namespaces/${ns}`, 90_000);
  }
});

test('scan --namespaces reports that scope only; scan-scope: cluster reports a fault elsewhere too', async () => {
  const id = uniqueName('scan-scope');
  const env = `${id}-env`;
  const elsewhere = `${id}-other`;
  await createNamespace(api, env);
  await createNamespace(api, elsewhere);
  // Elsewhere: a ConfigMap with a finalizer stranded in a force-finalized namespace (OrphanInMissingNamespace).
  await createObject(api, `/api/v1/namespaces/${elsewhere}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stranded', finalizers: [cleanupFinalizer] },
  });
  try {
    await forceFinalizeNamespace(api, elsewhere);
    const scoped = await runAction({ mode: 'scan', namespaces: env, 'stuck-after': '1h' });
    expect(scoped.report.findings).toEqual([]);
    expect(scoped.report.verdict).toBe('clean');

    const wide = await runAction({
      mode: 'scan',
      namespaces: env,
      'scan-scope': 'cluster',
      'stuck-after': '1h',
    });
    expect(
      wide.report
        .findings!.filter((f) => f.code === 'OrphanInMissingNamespace')
        .map((f) => f.object.namespace),
    ).toContain(elsewhere);
  } finally {
    await createNamespace(api, elsewhere).catch(() => undefined);
    await removeFinalizers(api, `/api/v1/namespaces/${elsewhere}/configmaps/stranded`);
    await deleteNamespaceAndWait(api, elsewhere);
    await deleteNamespaceAndWait(api, env);
  }
}, 180_000);
