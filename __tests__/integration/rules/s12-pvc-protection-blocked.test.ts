/**
 * S12: a PVC held by kubernetes.io/pvc-protection because a pod on a Node that no kubelet serves
 * still lists it in its volumes; the namespace is deleted. Built for real (static PV binding by
 * kube-controller-manager, its pvc-protection controller). The rules must name the pod that holds
 * the claim and link claim → pod, and namespace → claim and pod.
 */
import { findingKey } from '../../../src/rules/findings.js';
import { createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  createBoundPod,
  createBoundClaim,
  createDeadNode,
  createRetainVolume,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  forceDeletePod,
  recordFixture,
  snapshot,
  waitForPodsRemaining,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S12: PVCProtectionBlocked names the pod that holds the claim, itself PodStuckTerminating', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s12');
  const ns = `${id}-pvc-demo`;
  const pv = `${id}-pv-1`;
  const node = `${id}-fake-node-1`;
  const claimPath = `/api/v1/namespaces/${ns}/persistentvolumeclaims/data`;
  try {
    await createRetainVolume(api, pv);
    await createDeadNode(api, node);
    await createNamespace(api, ns);
    await createBoundClaim(api, ns, pv);
    await createBoundPod(api, ns, 'user', node, [
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    ]);
    await api.request({ method: 'DELETE', path: claimPath });
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    // On v1.37.2 the pods' error stops the namespace controller before it counts finalizers, so
    // NamespaceFinalizersRemaining stays False (scenarios.md expects it True); the snapshot still
    // shows the claim with its finalizer.
    await waitForPodsRemaining(api, ns);

    const inventory = await snapshot(api);
    recordFixture('s12-pvc-protection-blocked', inventory, {
      scenario: 'S12 PVC held by kubernetes.io/pvc-protection because a pod still references it',
      names: { namespace: ns, node, persistentVolume: pv },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [node, pv] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    expect(mine.map((f) => [f.code, f.object.kind, f.object.name])).toEqual([
      ['NamespaceBlockedByFinalizer', 'Namespace', ns],
      ['NamespaceContentDeletionFailed', 'Namespace', ns],
      ['PodStuckTerminating', 'Pod', 'user'],
      ['PVCProtectionBlocked', 'PersistentVolumeClaim', 'data'],
    ]);
    const [blocked, contentFailed, pod, claim] = mine;
    const podKey = findingKey('PodStuckTerminating', {
      apiVersion: 'v1',
      kind: 'Pod',
      namespace: ns,
      name: 'user',
    });
    expect(pod!.key).toBe(podKey);
    expect(claim!.causedBy).toEqual([podKey]);
    expect(blocked!.causedBy).toEqual([claim!.key]);
    expect(contentFailed!.causedBy).toEqual([podKey]);
    expect(claim!.message).toMatch(/kubernetes\.io\/pvc-protection keeps it while pod user still uses it$/);
    expect(claim!.evidence).toEqual(
      expect.arrayContaining([
        'finalizers: kubernetes.io/pvc-protection',
        `spec.volumeName: ${pv}`,
        expect.stringMatching(
          new RegExp(`^used by pod ${ns}/user on node ${node} \\(phase Pending, Terminating since `),
        ),
      ]),
    );
    // Never a finalizer strip while a pod uses the claim.
    expect(claim!.remediation.commands.join('\n')).not.toContain('finalizers');
  } finally {
    await forceDeletePod(api, ns, 'user');
    await deleteNamespaceAndWait(api, ns);
    await deleteIfPresent(api, `/api/v1/nodes/${node}`);
    await deleteIfPresent(api, `/api/v1/persistentvolumes/${pv}`);
    await waitGone(api, `/api/v1/persistentvolumes/${pv}`);
  }
}, 180_000);
