/**
 * Emptying a deleted namespace (teardown/namespace-content.ts) against the real API server: every
 * collection the inventory saw goes, and the server's answer to each deletecollection is the
 * metadata of what it deleted, not the objects (no Secret data, no ConfigMap content).
 */
import type { ApiClient, ApiRequest } from '../../../src/cluster/api-client.js';
import { deleteNamespaceContent } from '../../../src/teardown/namespace-content.js';
import { adminApiForSuite, createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';

const suiteApi = adminApiForSuite();

interface Answer {
  kind?: string;
  items?: { metadata?: { name?: string }; data?: unknown }[];
}

test('a deleted namespace is emptied, and each deletecollection answers with metadata only', async () => {
  const api = suiteApi();
  const ns = uniqueName('empty');
  await createNamespace(api, ns);
  try {
    const secret = 'c2VjcmV0LXZhbHVl'; // base64 of "secret-value"
    for (let i = 0; i < 3; i++) {
      await api.request({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/secrets`,
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` }, data: { token: secret } },
      });
      await api.request({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/configmaps`,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { body: 'content' } },
      });
    }
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    // The real client, with each deletecollection's answer kept.
    const answers = new Map<string, Answer>();
    const recording: ApiClient = {
      ...api,
      request: async <T>(req: ApiRequest) => {
        const answer = await api.request<T>(req);
        if (req.method === 'DELETE') answers.set(req.path, answer as Answer);
        return answer;
      },
    };
    const collections = ['configmaps', 'secrets'].map((resource) => ({
      group: '',
      version: 'v1',
      resource,
      namespaced: true,
    }));
    const { failures, refusals } = await deleteNamespaceContent(recording, new Map([[ns, collections]]));
    expect({ failures, refusals }).toEqual({ failures: [], refusals: [] });

    const secrets = answers.get(`/api/v1/namespaces/${ns}/secrets`);
    const configMaps = answers.get(`/api/v1/namespaces/${ns}/configmaps`);
    expect(secrets?.kind).toBe('PartialObjectMetadataList');
    expect(configMaps?.kind).toBe('PartialObjectMetadataList');
    expect(secrets?.items?.map((i) => i.metadata?.name).sort()).toEqual(['s0', 's1', 's2']);
    expect(configMaps?.items?.map((i) => i.metadata?.name).filter((n) => /^c\d$/.test(n ?? ''))).toHaveLength(
      3,
    );
    expect(JSON.stringify(secrets)).not.toContain(secret);
    expect(JSON.stringify(configMaps)).not.toContain('content');
    // And the namespace holds none of them any more.
    for (const resource of ['secrets', 'configmaps']) {
      const left = await api.request<Answer>({ path: `/api/v1/namespaces/${ns}/${resource}` });
      expect(left.items?.filter((i) => /^[sc]\d$/.test(i.metadata?.name ?? ''))).toEqual([]);
    }
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
