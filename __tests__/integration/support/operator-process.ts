import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitFor } from '../../../src/util/wait.js';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { clusterEnv, repoRoot } from './cluster.js';

/** The operator the sample charts' real mode runs (test/operator/operator.mjs). */
export const operatorScript = join(repoRoot, 'test/operator/operator.mjs');

/** A TCP port free on 127.0.0.1 at the time of the call (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running operator process: its output so far, and stop (SIGTERM, waits for the exit). */
export interface OperatorProcess {
  readonly output: () => string;
  /**
   * Resolves once the output holds `text` (the operator logs after its request returns, so a
   * change seen in the API server can come before the line reaches this process).
   * @throws Error with the output when `text` has not come within `timeoutMs` (default 10 000 ms)
   */
  readonly waitForOutput: (text: string, timeoutMs?: number) => Promise<void>;
  readonly stop: () => Promise<void>;
}

/**
 * Starts test/operator/operator.mjs as a process on this machine against the local control
 * plane (admin client certificate from .cluster/pki), serving its webhook on 127.0.0.1:`port`
 * with the certificate the chart generated into Secret `operatorNs`/widget-operator-tls, and
 * holding Lease `operatorNs`/widget-operator as `identity`. Resolves once it holds the Lease
 * and watches the Widgets.
 * @throws Error with the process output when it exits or is not ready within 30 s
 */
export async function startOperatorProcess(
  api: ApiClient,
  options: { group: string; operatorNs: string; port: number; identity: string },
): Promise<OperatorProcess> {
  const secret = await api.request<{ data: Record<string, string> }>({
    path: `/api/v1/namespaces/${options.operatorNs}/secrets/widget-operator-tls`,
  });
  const dir = mkdtempSync(join(tmpdir(), 'widget-operator-'));
  for (const file of ['tls.crt', 'tls.key']) {
    writeFileSync(join(dir, file), Buffer.from(secret.data[file]!, 'base64'), { mode: 0o600 });
  }
  const pki = join(dirname(clusterEnv().kubeconfig), 'pki');
  let output = '';
  const child: ResultPromise = execa(process.execPath, [operatorScript], {
    env: {
      WIDGET_GROUP: options.group,
      WEBHOOK_HOST: '127.0.0.1',
      WEBHOOK_PORT: String(options.port),
      TLS_CERT_FILE: join(dir, 'tls.crt'),
      TLS_KEY_FILE: join(dir, 'tls.key'),
      LEASE_NAMESPACE: options.operatorNs,
      LEASE_NAME: 'widget-operator',
      POD_NAME: options.identity,
      KUBE_API_URL: api.server,
      KUBE_CA_FILE: join(pki, 'ca.crt'),
      KUBE_CERT_FILE: join(pki, 'admin.crt'),
      KUBE_KEY_FILE: join(pki, 'admin.key'),
    },
    extendEnv: false,
    reject: false,
    all: true,
  });
  child.all?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let exited = false;
  void child.then(() => (exited = true));
  const stop = async () => {
    child.kill('SIGTERM');
    await child;
  };
  try {
    await waitFor(
      async () => {
        if (exited) throw new Error(`the operator exited:\n${output}`);
        const ready = output.includes('leader: acquired') && output.includes('watching ');
        return { done: ready, value: ready };
      },
      { timeoutMs: 30_000, description: 'the operator to hold its Lease and watch Widgets' },
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\noperator output:\n${output}`);
  }
  const waitForOutput = async (text: string, timeoutMs = 10_000) => {
    await waitFor(async () => ({ done: output.includes(text), value: true }), {
      timeoutMs,
      description: `the operator to log "${text}"`,
    }).catch((error: Error) => {
      throw new Error(`${error.message}\noperator output:\n${output}`);
    });
  };
  return { output: () => output, waitForOutput, stop };
}
