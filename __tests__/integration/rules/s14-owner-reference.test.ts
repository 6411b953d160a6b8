/**
 * S14 and invalid ownerReferences: a Deployment deleted with orphan propagation leaves its
 * ReplicaSet without a controller ownerReference (OrphanedDependent); a cluster-scoped
 * ClusterRole that names a namespaced ConfigMap as its owner (InvalidOwnerReference). Built for
 * real, with the garbage collector of kube-controller-manager running.
 */
import { waitFor } from '../../../src/util/wait.js';
import { createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createDeployment,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

interface Listed {
  items: {
    metadata: { name: string; uid: string; ownerReferences?: unknown[]; labels?: Record<string, string> };
  }[];
}

test('S14: OrphanedDependent for the orphaned ReplicaSet; InvalidOwnerReference for a cluster-scoped child', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s14');
  const ns = `${id}-o`;
  const clusterRole = `${id}-child`;
  try {
    await createNamespace(api, ns);
    await createDeployment(api, ns, 'web', 1);
    const replicaSets = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    const rs = await waitFor(
      async () => {
        const list = await api.request<Listed>({ path: replicaSets });
        return { done: list.items.length === 1, value: list.items[0] };
      },
      { timeoutMs: 60_000, description: 'the Deployment to create its ReplicaSet' },
    );
    await api.request({
      method: 'DELETE',
      path: `/apis/apps/v1/namespaces/${ns}/deployments/web`,
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' },
    });
    await waitFor(
      async () => {
        const list = await api.request<Listed>({ path: replicaSets });
        const orphaned = list.items.length === 1 && !list.items[0]!.metadata.ownerReferences?.length;
        return { done: orphaned, value: orphaned };
      },
      { timeoutMs: 60_000, description: 'the garbage collector to orphan the ReplicaSet' },
    );
    const owner = await api.request<{ metadata: { uid: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } },
    });
    await api.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: {
          name: clusterRole,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }],
        },
        rules: [],
      },
    });

    const inventory = await snapshot(api);
    recordFixture('s14-owner-reference', inventory, {
      scenario:
        'S14 Orphaned ReplicaSet after orphan propagation; cluster-scoped object owned by a namespaced one',
      names: { namespace: ns, replicaSet: rs!.metadata.name, clusterRole },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [clusterRole] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['InvalidOwnerReference', 'ClusterRole', undefined, clusterRole],
      ['OrphanedDependent', 'ReplicaSet', ns, rs!.metadata.name],
    ]);
    const [invalid, orphaned] = mine;
    expect(invalid!.evidence).toEqual([
      `ownerReference: ConfigMap owner (v1, uid ${owner.metadata.uid})`,
      'a cluster-scoped object cannot be owned by the namespaced ConfigMap owner',
    ]);
    expect(orphaned!.evidence).toContain(
      `label pod-template-hash=${rs!.metadata.labels!['pod-template-hash']}`,
    );
    expect(orphaned!.remediation.commands.at(-1)).toBe(
      `kubectl delete replicasets.apps ${rs!.metadata.name} -n ${ns} --cascade=background`,
    );
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${clusterRole}`);
    await deleteNamespaceAndWait(api, ns);
  }
});
