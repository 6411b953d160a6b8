/**
 * Whether a Node's kubelet can still finish its pods, read from the snapshot: the Node object,
 * its Ready condition and its heartbeat Lease `kube-node-lease/<node>`. The same signals the
 * node lifecycle controller of kube-controller-manager reads
 * (pkg/controller/nodelifecycle/node_lifecycle_controller.go, tryUpdateNodeHealth): the newer
 * of the Lease's renewTime and the Ready condition's lastHeartbeatTime is the last sign of life.
 */
import type { Inventory } from '../inventory/snapshot.js';
import { fullObjectsOf, type NodeObject } from './kubernetes-objects.js';
import { ageSeconds, formatDuration, wasListed } from './snapshot-views.js';

/**
 * Seconds without a heartbeat after which a node counts as gone even though its Ready condition
 * still says True: the node lifecycle controller marks it Unknown after its grace period (50 s
 * by default), so a heartbeat five minutes old means nobody watches the node either.
 */
export const heartbeatStaleSeconds = 300;

/**
 * - `missing`: no Node of that name (the Nodes were listed in full);
 * - `down`: Ready not True (Unknown, False, or never reported), or no heartbeat for
 *   `heartbeatStaleSeconds`;
 * - `up`: Ready True with a recent heartbeat;
 * - `unknown`: Nodes or Leases could not be listed.
 */
export type NodeState = 'missing' | 'down' | 'up' | 'unknown';

export interface NodeHealth {
  readonly state: NodeState;
  readonly node?: NodeObject;
  /** Facts behind `state`, one per line (Ready condition, Lease renewTime, taints). */
  readonly evidence: readonly string[];
}

/** Pure: the health of node `name` at `now` (ms since the epoch). */
export function nodeHealth(inventory: Inventory, name: string, now: number): NodeHealth {
  if (!wasListed(inventory, '', 'nodes'))
    return { state: 'unknown', evidence: ['Nodes could not be listed (see coverage)'] };
  const node = fullObjectsOf(inventory, 'nodes').find((n) => n.metadata?.name === name);
  if (!node)
    return {
      state: 'missing',
      evidence: [
        `node ${name} does not exist (not among the ${fullObjectsOf(inventory, 'nodes').length} Nodes listed)`,
      ],
    };
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const lease = fullObjectsOf(inventory, 'leases').find(
    (l) => l.metadata?.namespace === 'kube-node-lease' && l.metadata?.name === name,
  );
  const leasesListed = wasListed(inventory, 'coordination.k8s.io', 'leases');
  const beats = [lease?.spec?.renewTime, ready?.lastHeartbeatTime]
    .map((t) => ageSeconds(t, now))
    .filter((a): a is number => a !== undefined);
  const lastBeat = beats.length ? Math.min(...beats) : undefined;
  const evidence = [
    ready
      ? `node ${name}: Ready=${ready.status}${ready.reason ? ` (${ready.reason})` : ''}` +
        `${ready.message ? `: ${ready.message}` : ''}` +
        `${ready.lastHeartbeatTime ? `; lastHeartbeatTime ${ready.lastHeartbeatTime}` : ''}`
      : `node ${name}: no Ready condition (no kubelet has ever reported its status)`,
    lease
      ? `heartbeat Lease kube-node-lease/${name}: renewTime ${lease.spec?.renewTime ?? '(never)'}` +
        `${lease.spec?.holderIdentity ? `, holder ${lease.spec.holderIdentity}` : ''}`
      : leasesListed
        ? `no heartbeat Lease kube-node-lease/${name}`
        : 'heartbeat Leases could not be listed (see coverage)',
    ...(lastBeat !== undefined ? [`last heartbeat ${formatDuration(lastBeat)} ago`] : []),
    ...(node.spec?.taints ?? []).map(
      (t) =>
        `taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}${t.timeAdded ? ` since ${t.timeAdded}` : ''}`,
    ),
  ];
  const down = ready?.status !== 'True' || lastBeat === undefined || lastBeat >= heartbeatStaleSeconds;
  return { state: down ? 'down' : 'up', node, evidence };
}
