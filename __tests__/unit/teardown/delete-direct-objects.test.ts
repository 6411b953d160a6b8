import { inFaceTerms } from '../../../src/report/face.js';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { releaseFacts } from '../../../src/plan/release-facts.js';
import { deleteDirectObjects } from '../../../src/teardown/stage-removal.js';
import type { TeardownPlan } from '../../../src/plan/build-plan.js';
import type { AwaitedObject } from '../../../src/teardown/wait-gone.js';
import { recordedRelease } from '../support/fixtures.js';

const facts = releaseFacts(recordedRelease('helm4-operator.json'));
const crd: AwaitedObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  name: 'widgets.fixture4.kube-sweep.test',
  address: {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    namespaced: false,
  },
};
const configMapIn = (namespace: string): AwaitedObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace,
  name: 'settings',
  address: { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
});

/**
 * A stage context whose API port records every request and answers each with an empty object;
 * a GET of a namespace in `labelledNow` answers it with the kube-sweep.io/protected=true label.
 */
function context(protection: { patterns: string[]; labelled: string[] }, labelledNow: string[] = []) {
  const requests: string[] = [];
  const api = {
    request: async (r: { method?: string; path: string }) => {
      requests.push(`${r.method ?? 'GET'} ${r.path}`);
      const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(r.path)?.[1];
      if (!r.method && ns && labelledNow.includes(ns))
        return { metadata: { name: ns, labels: { 'kube-sweep.io/protected': 'true' } } };
      return {};
    },
  } as unknown as ApiClient;
  const plan = { scope: { protection } } as unknown as TeardownPlan;
  return { requests, c: { plan, ports: { api } as never } };
}

test.each([
  ['kube-system', { patterns: [], labelled: [] }, /a control-plane namespace/],
  ['kube-flannel', { patterns: [], labelled: [] }, /every kube-\* namespace/],
  ['infra', { patterns: ['inf*'], labelled: [] }, /input 'protect' matches it \('inf\*'\)/],
  ['shared', { patterns: [], labelled: ['shared'] }, /labelled kube-sweep.io\/protected=true/],
])(
  'an object in protected namespace %s: nothing is deleted, not even the objects before it',
  async (ns, protection, why) => {
    const { requests, c } = context(protection);
    const failed = await deleteDirectObjects([crd, configMapIn(ns)], facts, c);
    expect(failed?.guarded).toBe(true);
    expect(inFaceTerms('action', failed!.line)).toMatch(why);
    expect(failed?.line).toContain(`not deleting ConfigMap ${ns}/settings`);
    expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  },
);

test('outside protected namespaces every object is deleted, cluster-scoped ones by their own path', async () => {
  const { requests, c } = context({ patterns: ['infra'], labelled: ['shared'] });
  expect(await deleteDirectObjects([crd, configMapIn('pr-12-db')], facts, c)).toBeUndefined();
  expect(requests.sort()).toEqual([
    'DELETE /api/v1/namespaces/pr-12-db/configmaps/settings',
    'DELETE /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.fixture4.kube-sweep.test',
    // The scope guard reads the namespace just before the deletes.
    'GET /api/v1/namespaces/pr-12-db',
  ]);
});

test('a namespace labelled protected after the plan was made (read just before the deletes): nothing is deleted', async () => {
  const { requests, c } = context({ patterns: [], labelled: [] }, ['pr-12-db']);
  const failed = await deleteDirectObjects([crd, configMapIn('pr-12-db')], facts, c);
  expect(failed?.guarded).toBe(true);
  expect(failed?.line).toBe(
    'not deleting ConfigMap pr-12-db/settings: namespace pr-12-db is protected (labelled kube-sweep.io/protected=true)',
  );
  expect(requests).toEqual(['GET /api/v1/namespaces/pr-12-db']);
});
