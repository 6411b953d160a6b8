import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { fullObjectsOf, type PodObject } from './kubernetes-objects.js';
import { command } from './kubectl.js';
import { nodeHealth, type NodeHealth } from './node-health.js';
import type { Rule, RuleContext } from './rule.js';
import { formatDuration, objectsOf, refOf, stuckDeletionAge, wasListed } from './snapshot-views.js';

const rule = 'pod-stuck-terminating';

/**
 * Seconds after its deletionTimestamp during which a Pod on a node that does not exist is left
 * to PodGC: kube-controller-manager's pod garbage collector (pkg/controller/podgc/gc_controller.go)
 * force-deletes pods bound to a missing node after a 40 s quarantine, checked every 20 s
 * (observed on v1.37.2: about 55 s after the pod was created).
 */
export const podGcGraceSeconds = 120;

/** Whole Pods fetched by the inventory (src/inventory/pods.ts), by UID. */
export function wholePods(inventory: Inventory): ReadonlyMap<string, PodObject> {
  return new Map(fullObjectsOf(inventory, 'pods').map((p) => [p.metadata?.uid ?? '', p]));
}

/** `kubectl delete pod --force`, preceded by its warning (the last resort for one pod). */
export function forceDeletePod(namespace: string, name: string): string[] {
  return [
    '# WARNING: force deletion removes the Pod from the API without its kubelet confirming that the containers ' +
      'stopped; if the node comes back they may still run, and a StatefulSet may start a second copy. Only with ' +
      'confirmation that the node is really down:',
    command('kubectl', 'delete', 'pod', name, '-n', namespace, '--force', '--grace-period=0'),
  ];
}

function remediation(pod: ObjectMetadata, nodeName: string, health: NodeHealth) {
  const ns = pod.namespace ?? '';
  if (health.state === 'missing')
    return {
      summary:
        'Check that kube-controller-manager (its podgc controller) runs, and only then force-delete the pod. ' +
        `Node ${nodeName} no longer exists, so PodGC should have force-deleted this pod within about a minute.`,
      commands: [
        command('kubectl', 'get', 'pod', pod.name, '-n', ns, '-o', 'yaml'),
        ...forceDeletePod(ns, pod.name),
      ],
    };
  return {
    summary:
      `Recover node ${nodeName} first: its kubelet does not answer, and only it can confirm that the containers ` +
      'stopped. If it is gone for good, taint it out-of-service (or delete the Node) so that ' +
      'PodGC removes its pods; force-delete a single pod only as the last resort.',
    commands: [
      command('kubectl', 'get', 'node', nodeName, '-o', 'yaml'),
      `# if the node is gone for good (non-graceful node shutdown, KEP-2268): PodGC then deletes its terminating pods`,
      command(
        'kubectl',
        'taint',
        'node',
        nodeName,
        'node.kubernetes.io/out-of-service=nodeshutdown:NoExecute',
      ),
      `# or remove the Node object: PodGC deletes the pods bound to a node that does not exist`,
      command('kubectl', 'delete', 'node', nodeName),
      ...forceDeletePod(ns, pod.name),
    ],
  };
}

/**
 * pod-stuck-terminating: Pods whose deletionTimestamp is at least `stuckAfterSeconds` old and
 * that will not finish because no kubelet can confirm them (scenario S11): the node they are
 * bound to (`spec.nodeName`) is not Ready, has sent no heartbeat (Ready lastHeartbeatTime, Lease
 * kube-node-lease/<node>) for `heartbeatStaleSeconds`, or does not exist. A pod on a missing
 * node is PodGC's to remove and is reported only after `podGcGraceSeconds` (transient before).
 * Pods with no nodeName are deleted at once by the API server; one that stays is held by a
 * finalizer (stuck-finalizer). Pods on a node that is up are not reported: their kubelet is
 * working on them. Reads the whole Pods the inventory fetched for deleting pods
 * (src/inventory/pods.ts); a pod that could not be fetched, or missing Node lists, give no
 * finding rather than a guess.
 */
export const podStuckTerminatingRule: Rule = {
  name: rule,
  title: 'Pods Terminating on a node whose kubelet does not answer',
  codes: ['PodStuckTerminating'],
  check(inventory, context: RuleContext) {
    if (!wasListed(inventory, '', 'nodes')) return [];
    const whole = wholePods(inventory);
    const findings: Finding[] = [];
    for (const pod of objectsOf(inventory, '', 'pods')) {
      const age = stuckDeletionAge(pod.deletionTimestamp, context);
      const full = whole.get(pod.uid);
      const nodeName = full?.spec?.nodeName;
      if (age === undefined || !nodeName) continue;
      const health = nodeHealth(inventory, nodeName, context.now);
      if (health.state === 'up' || health.state === 'unknown') continue;
      if (health.state === 'missing' && age < podGcGraceSeconds) continue;
      const ns = pod.namespace ?? '';
      const why =
        health.state === 'missing'
          ? `its node ${nodeName} no longer exists and PodGC has not removed it`
          : `its node ${nodeName} is not Ready or sends no heartbeat, so no kubelet confirms the deletion`;
      findings.push(
        buildFinding(
          rule,
          'PodStuckTerminating',
          {
            object: refOf(pod),
            message: `Pod ${ns}/${pod.name} has been Terminating for ${formatDuration(age)}: ${why}`,
            evidence: [
              `deletionTimestamp: ${pod.deletionTimestamp} (${formatDuration(age)} ago)`,
              ...(full?.metadata?.deletionGracePeriodSeconds !== undefined
                ? [`deletionGracePeriodSeconds: ${full.metadata.deletionGracePeriodSeconds}`]
                : []),
              `spec.nodeName: ${nodeName}`,
              ...(full?.status?.phase ? [`status.phase: ${full.status.phase}`] : []),
              ...(pod.finalizers?.length ? [`finalizers: ${pod.finalizers.join(', ')}`] : []),
              ...health.evidence,
            ],
            remediation: remediation(pod, nodeName, health),
          },
          context,
        ),
      );
    }
    return findings;
  },
};
