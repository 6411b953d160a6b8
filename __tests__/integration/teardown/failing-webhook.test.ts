/**
 * A fault never erases what was done (issue 36): a ValidatingWebhookConfiguration with
 * `failurePolicy: Fail` whose backend times out makes the API server answer 500 on the DELETE
 * of the one namespace it intercepts. That is a refusal of that namespace, with the server's
 * words: the teardown goes on, the other namespace in scope is deleted, and the verdict is
 * `leftovers` (before, only a 4xx counted as a refusal, and after five tries the run ended
 * `error` with a bare report).
 *
 * The webhook's backend is a loopback port where this test accepts TCP connections and never
 * answers: the API server dials nothing outside loopback, and its call times out (1 s).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { main } from '../../../src/cli/index.js';
import type { Report } from '../../../src/report/report.js';
import { waitFor } from '../../../src/util/wait.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { runAction } from '../support/action.js';
import {
  adminApiForSuite,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  kubectl,
  uniqueName,
} from '../support/cluster.js';
import { createFailingWebhook, webhookConfigurationPath } from '../support/webhooks.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

/** A TCP server on loopback that accepts every connection and never sends a byte; counts them. */
async function silentServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  };
  return { server, port: (server.address() as AddressInfo).port, connections: () => sockets.length };
}

/**
 * Whether a server-side dry-run DELETE of namespace `ns` fails with a webhook's error (kubectl,
 * one try: the tests' API client would retry a 500 five times).
 */
async function webhookFailsDelete(ns: string): Promise<boolean> {
  try {
    await kubectl(['delete', 'namespace', ns, '--dry-run=server', '--wait=false']);
    return false;
  } catch (error) {
    if (/failed calling webhook/.test((error as Error).message)) return true;
    if (/NotFound/.test((error as Error).message)) return false;
    throw error;
  }
}

test('a webhook that times out on one namespace DELETE: that namespace is refused with the server words, the other is deleted, verdict leftovers', async () => {
  const id = uniqueName('hook-hang');
  const held = `${id}-held`;
  const gone = `${id}-gone`;
  const label = 'kube-sweep.test/hanging-webhook';
  const backend = await silentServer();
  try {
    await createNamespace(api, held, { [label]: id });
    await createNamespace(api, gone);
    await createFailingWebhook(api, id, {
      rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['DELETE'] }],
      objectSelector: { matchLabels: { [label]: id } },
      timeoutSeconds: 1,
      clientConfig: { url: `https://127.0.0.1:${backend.port}/` },
    });
    // In force once a dry-run DELETE of the held namespace fails (500 after the client's retries).
    await waitFor(
      async () => {
        const fails = await webhookFailsDelete(held);
        return { done: fails, value: fails };
      },
      { timeoutMs: 60_000, description: `webhook ${id} to be in force` },
    );
    let out = '';
    const code = await main(
      [
        'teardown',
        '--namespaces',
        `${id}-*`,
        '--kubeconfig',
        clusterEnv().kubeconfig,
        '--stage-timeout',
        '60s',
        '--output',
        'json',
      ],
      (s) => (out += s),
      () => {},
    );
    const report = JSON.parse(out) as Report;
    expect(schemaErrors(report)).toEqual([]);
    expect(report.error).toBeUndefined();
    expect(report.verdict).toBe('leftovers');
    expect(code).toBe(1);
    // The API server did call the webhook (and so got no answer from it).
    expect(backend.connections()).toBeGreaterThan(0);
    const t = report.teardown!;
    const namespaces = Object.fromEntries(t.namespaces.map((n) => [n.name, n]));
    expect(namespaces[gone]!.status).toBe('deleted');
    expect(namespaces[held]!.status).toBe('refused');
    expect(namespaces[held]!.message).toMatch(
      /^refused \(HTTP 500 InternalError\): .*failed calling webhook/,
    );
    expect(t.refusals).toEqual([
      expect.objectContaining({
        step: 'delete-namespace',
        request: `DELETE /api/v1/namespaces/${held}`,
        status: 500,
        message: expect.stringContaining(`validate.${id}.example.com`),
      }),
    ]);
    const refused = report.findings!.filter((f) => f.code === 'DeletionRefused');
    expect(refused.map((f) => [f.object.name, f.severity])).toEqual([[held, 'error']]);
    expect(refused[0]!.message).toContain('failed calling webhook');
    expect(report.failing).toContain(refused[0]!.key);
    // The held namespace is still there, not being deleted; the other is gone.
    const left = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
      api,
      `/api/v1/namespaces/${held}`,
    );
    expect(left).toBeDefined();
    expect(left?.metadata.deletionTimestamp).toBeUndefined();
    expect(await getOrUndefined(api, `/api/v1/namespaces/${gone}`)).toBeUndefined();
  } finally {
    await deleteIfPresent(api, webhookConfigurationPath(id));
    // The API server's webhook cache may still hold the deleted configuration for a moment.
    await waitFor(
      async () => {
        const fails = await webhookFailsDelete(held);
        return { done: !fails, value: fails };
      },
      { timeoutMs: 60_000, description: `namespace ${held} to be deletable again` },
    );
    await deleteIfPresent(api, `/api/v1/namespaces/${held}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${gone}`);
    await new Promise((r) => backend.server.close(() => r(undefined)));
  }
});

test('timeout bounds the step: a DELETE that a hanging webhook fails is not tried again past the deadline, and the refusal is recorded', async () => {
  const id = uniqueName('hook-deadline');
  const held = `${id}-held`;
  const label = 'kube-sweep.test/hanging-webhook';
  const backend = await silentServer();
  try {
    await createNamespace(api, held, { [label]: id });
    // Each call waits 10 s for the backend: five tries (the retry policy) would take 50 s and more.
    await createFailingWebhook(api, id, {
      rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], operations: ['DELETE'] }],
      objectSelector: { matchLabels: { [label]: id } },
      timeoutSeconds: 10,
      clientConfig: { url: `https://127.0.0.1:${backend.port}/` },
    });
    await waitFor(
      async () => {
        const fails = await webhookFailsDelete(held);
        return { done: fails, value: fails };
      },
      { timeoutMs: 120_000, description: `webhook ${id} to be in force` },
    );
    const before = backend.connections();
    const { report, log } = await runAction({
      mode: 'teardown',
      namespaces: held,
      timeout: '12s',
      'stage-timeout': '12s',
    });
    expect(schemaErrors(report)).toEqual([]);
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.namespaces.map((n) => [n.name, n.status])).toEqual([[held, 'refused']]);
    expect(report.teardown!.refusals).toEqual([
      expect.objectContaining({ request: `DELETE /api/v1/namespaces/${held}`, status: 500 }),
    ]);
    // The DELETE was not retried past the deadline: the log says why, and the webhook was
    // called far fewer times than the five tries of the retry policy.
    expect(log).toContainEqual(
      `not trying DELETE /api/v1/namespaces/${held} again (HTTP 500 InternalError): the overall timeout (12s) has run out`,
    );
    expect(backend.connections() - before).toBeLessThanOrEqual(2);
  } finally {
    await deleteIfPresent(api, webhookConfigurationPath(id));
    await waitFor(
      async () => {
        const fails = await webhookFailsDelete(held);
        return { done: !fails, value: fails };
      },
      { timeoutMs: 120_000, description: `namespace ${held} to be deletable again` },
    );
    await deleteIfPresent(api, `/api/v1/namespaces/${held}`);
    await new Promise((r) => backend.server.close(() => r(undefined)));
  }
});
