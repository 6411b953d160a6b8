/**
 * S11: a pod bound to a Node that no kubelet serves keeps its namespace Terminating. Built for
 * real: the rules must report PodStuckTerminating (deletionTimestamp, node, Ready condition, no
 * heartbeat Lease) and link the namespace's content failure to it. Control case: a pod bound to
 * a node that does not exist is PodGC's (kube-controller-manager force-deletes it within about
 * a minute), so it is transient and not reported while that is due.
 */
import { findingKey } from '../../../src/rules/findings.js';
import { podGcGraceSeconds } from '../../../src/rules/pod-stuck-terminating.js';
import { runRules } from '../../../src/rules/index.js';
import {
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import {
  adminApiForSuite,
  createBoundPod,
  createDeadNode,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  forceDeletePod,
  recordFixture,
  scenarioContext,
  snapshot,
  waitForPodsRemaining,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S11: PodStuckTerminating on a node without kubelet, cause of the stuck namespace; PodGC case transient', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s11');
  const ns = `${id}-pods-demo`;
  const gcNs = `${id}-gc`;
  const node = `${id}-fake-node-1`;
  const missingNode = `${id}-no-such-node`;
  const gcPodPath = `/api/v1/namespaces/${gcNs}/pods/p2`;
  try {
    await createDeadNode(api, node);
    await createNamespace(api, ns);
    await createNamespace(api, gcNs);
    await createBoundPod(api, ns, 'p1', node);
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    await waitForPodsRemaining(api, ns);
    // Created just before the snapshot: PodGC removes a pod on a missing node after its 40 s
    // quarantine (pkg/controller/podgc), and the wait above can take longer than that.
    await createBoundPod(api, gcNs, 'p2', missingNode);
    await api.request({ method: 'DELETE', path: gcPodPath });

    const inventory = await snapshot(api);
    recordFixture('s11-pod-stuck-terminating', inventory, {
      scenario: 'S11 Pods stuck Terminating on a dead node keep the namespace alive',
      names: { namespace: ns, node, gcNamespace: gcNs, missingNode },
      environmentNamespaces: [ns, gcNs],
      selection: { namespaces: [ns, gcNs], clusterObjects: [node] },
    });
    // The PodGC pod is still there (deleted, on a missing node) and is not reported: transient.
    const gcPod = inventory.objects.find((o) => o.resource === 'pods' && o.namespace === gcNs);
    expect(gcPod?.deletionTimestamp).toBeDefined();
    const mine = findingsAbout(findingsOf(inventory, [ns, gcNs]), [id]);
    expect(
      mine.map((f) => [f.code, f.object.kind, f.object.namespace ?? f.object.name, f.object.name]),
    ).toEqual([
      ['NamespaceContentDeletionFailed', 'Namespace', ns, ns],
      ['PodStuckTerminating', 'Pod', ns, 'p1'],
    ]);
    const [namespaceFinding, pod] = mine;
    expect(pod!.key).toBe(
      findingKey('PodStuckTerminating', { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'p1' }),
    );
    expect(namespaceFinding!.causedBy).toEqual([pod!.key]);
    expect(pod!.scope).toBe('environment');
    expect(pod!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^deletionTimestamp: \d{4}-.* ago\)$/),
        `spec.nodeName: ${node}`,
        expect.stringMatching(new RegExp(`^node ${node}: (no Ready condition|Ready=Unknown)`)),
        `no heartbeat Lease kube-node-lease/${node}`,
      ]),
    );
    const commands = pod!.remediation.commands;
    expect(commands).toContain(
      `kubectl taint node ${node} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`,
    );
    expect(commands.at(-2)).toMatch(/^# WARNING: force deletion/);
    expect(commands.at(-1)).toBe(`kubectl delete pod p1 -n ${ns} --force --grace-period=0`);

    // Past PodGC's window the same pod would be reported: the grace is what keeps it out.
    const later = runRules(inventory, {
      ...scenarioContext([ns, gcNs]),
      now: Date.parse(gcPod!.deletionTimestamp!) + (podGcGraceSeconds + 1) * 1000,
    });
    const gcFinding = later.find((f) => f.code === 'PodStuckTerminating' && f.object.namespace === gcNs);
    expect(gcFinding?.evidence).toContain(
      `node ${missingNode} does not exist (not among the ${inventory.full.nodes.length} Nodes listed)`,
    );
    // And PodGC does remove it on v1.37.2.
    await waitGone(api, gcPodPath, 120_000);
  } finally {
    await forceDeletePod(api, ns, 'p1');
    await forceDeletePod(api, gcNs, 'p2');
    await deleteIfPresent(api, `/api/v1/nodes/${node}`);
    await deleteNamespaceAndWait(api, ns);
    await deleteNamespaceAndWait(api, gcNs);
    expect(await getOrUndefined(api, `/api/v1/nodes/${node}`)).toBeUndefined();
  }
}, 240_000);
