/**
 * Experiment behind one suggestion in bench/README.md, not part of the benchmark: the runner
 * of measurement (a) without @kubernetes/client-node. The TLS material is read straight from
 * the kubeconfig's certificate-authority-data / client-certificate-data / client-key-data
 * (enough for the bench cluster's admin kubeconfig, nothing else), and handed to the
 * project's createApiClient through a stand-in for `LoadedKubeconfig.kubeConfig`. Everything
 * after that (ApiClient, collectInventory) is the project's code, unchanged.
 *   node bench/bundle-runner.mjs <dir> bench/experiment-no-client-node.ts && \
 *     node <dir>/index.js --kubeconfig /tmp/kube-sweep-bench/kubeconfig [--page-size 500]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createApiClient } from '../src/cluster/api-client.js';
import type { LoadedKubeconfig } from '../src/cluster/kubeconfig.js';
import { collectInventory } from '../src/inventory/collect.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string', default: process.env.KUBECONFIG ?? '' },
    'page-size': { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
  },
});
const text = readFileSync(values.kubeconfig, 'utf8');
const field = (name: string) => {
  const match = new RegExp(`${name}: (\\S+)`).exec(text);
  if (!match) throw new Error(`the kubeconfig has no ${name}`);
  return match[1]!;
};
const tls = {
  ca: Buffer.from(field('certificate-authority-data'), 'base64'),
  cert: Buffer.from(field('client-certificate-data'), 'base64'),
  key: Buffer.from(field('client-key-data'), 'base64'),
};
const loaded = {
  server: field('server'),
  kubeConfig: {
    applyToHTTPSOptions: async (options: Record<string, unknown>) => Object.assign(options, tls),
  },
} as unknown as LoadedKubeconfig;

const api = await createApiClient(loaded, { timeoutMs: 30_000 });
const rssBeforeKiB = Math.round(process.memoryUsage().rss / 1024);
const started = performance.now();
const inventory = await collectInventory(api, {
  pageSize: Number(values['page-size']),
  concurrency: Number(values.concurrency),
});
const collectMs = Math.round(performance.now() - started);
await api.close();
process.stdout.write(
  JSON.stringify({
    variant: 'no-client-node',
    collectMs,
    objects: inventory.objects.length,
    rssBeforeKiB,
    maxRssKiB: process.resourceUsage().maxRSS,
  }) + '\n',
);
