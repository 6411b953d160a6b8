import { nodeHealth, heartbeatStaleSeconds } from '../../../src/rules/node-health.js';
import { podGcGraceSeconds, podStuckTerminatingRule } from '../../../src/rules/pod-stuck-terminating.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = podStuckTerminatingRule;
const { fixture, inventory } = loadRecordedFixture('s11-pod-stuck-terminating');
const { namespace: ns, node = '', gcNamespace, missingNode = '' } = fixture.names;

test('S11: the pod on a node without kubelet is stuck; the pod on a missing node is PodGC’s for now', () => {
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.severity, f.scope, f.object.namespace, f.object.name])).toEqual([
    ['PodStuckTerminating', 'error', 'environment', ns, 'p1'],
  ]);
  const [f] = findings;
  expect(f!.message).toMatch(
    new RegExp(
      `^Pod ${ns}/p1 has been Terminating for \\d+s: its node ${node} is not Ready or sends no heartbeat`,
    ),
  );
  expect(f!.evidence).toEqual(
    expect.arrayContaining([
      `spec.nodeName: ${node}`,
      `node ${node}: no Ready condition (no kubelet has ever reported its status)`,
      `no heartbeat Lease kube-node-lease/${node}`,
    ]),
  );
  // Safest first: look at the node, taint it out of service, delete the Node, force-delete last.
  const commands = f!.remediation.commands;
  expect(commands.filter((c) => !c.startsWith('#'))).toEqual([
    `kubectl get node ${node} -o yaml`,
    `kubectl taint node ${node} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`,
    `kubectl delete node ${node}`,
    `kubectl delete pod p1 -n ${ns} --force --grace-period=0`,
  ]);
});

test('a missing node is reported once PodGC’s window has passed, with its own remedy', () => {
  const gcPod = inventory.objects.find((o) => o.resource === 'pods' && o.namespace === gcNamespace)!;
  const at = (seconds: number) =>
    replayContext(fixture, { now: Date.parse(gcPod.deletionTimestamp!) + seconds * 1000 });
  const names = (seconds: number) =>
    rule.check(inventory, at(seconds)).filter((f) => f.object.namespace === gcNamespace);
  expect(names(podGcGraceSeconds - 5)).toEqual([]);
  const [late] = names(podGcGraceSeconds + 5);
  expect(late!.message).toContain(`its node ${missingNode} no longer exists and PodGC has not removed it`);
  expect(late!.remediation.commands.at(-1)).toBe(
    `kubectl delete pod p2 -n ${gcNamespace} --force --grace-period=0`,
  );
});

test('the threshold, a healthy node, a pod not fetched whole and Nodes not listed give no finding', () => {
  expect(rule.check(inventory, replayContext(fixture, { stuckAfterSeconds: 3600 }))).toEqual([]);
  const healthy = withInventory(inventory, (d) => ({
    ...d,
    full: {
      ...d.full,
      nodes: d.full.nodes.map((n) => {
        const o = n as { metadata: { name: string } };
        if (o.metadata.name !== node) return n;
        const beat = new Date(Date.parse(d.takenAt) - 10_000).toISOString();
        return { ...o, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: beat }] } };
      }),
    },
  }));
  expect(rule.check(healthy, replayContext(fixture))).toEqual([]);
  expect(
    rule
      .check(
        healthy,
        replayContext(fixture, { now: Date.parse(fixture.inventory.takenAt) + heartbeatStaleSeconds * 1000 }),
      )
      .map((f) => f.object.name)
      .sort(),
  ).toEqual(['p1', 'p2']); // a stale heartbeat is down; by then PodGC's window for p2 has passed too
  const notFetched = withInventory(inventory, (d) => ({ ...d, full: { ...d.full, pods: [] } }));
  expect(rule.check(notFetched, replayContext(fixture))).toEqual([]);
  const gap = withInventory(inventory, (d) => ({
    ...d,
    coverage: [{ resource: 'nodes/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  expect(rule.check(gap, replayContext(fixture))).toEqual([]);
});

test('kwok’s node (Ready, heartbeat posted) is up; the hand-made Node is down', () => {
  const now = Date.parse(fixture.inventory.takenAt);
  expect(nodeHealth(inventory, node, now).state).toBe('down');
  expect(nodeHealth(inventory, missingNode, now).state).toBe('missing');
  const kwok = (inventory.full.nodes as { metadata: { name: string } }[]).find(
    (n) => n.metadata.name === 'kwok-node-0',
  );
  if (kwok) expect(nodeHealth(inventory, 'kwok-node-0', now).state).toBe('up');
});
