/**
 * ResourceQuotas held at their `count/pods` limit by terminal Pods (phase Succeeded or Failed).
 * Kubernetes' pod quota evaluator (kubernetes/kubernetes pkg/quota/v1/evaluator/core/pods.go,
 * `PodUsageFunc`) always counts a stored Pod toward `count/pods`, "even if the pod is end of
 * life", while `pods` (and cpu, memory) count only Pods that are not terminal. So a `pods` quota
 * is never filled by finished Pods, but a `count/pods` quota is: Pods of finished Jobs with no
 * TTL, and bare Pods with `restartPolicy: Never`, stay until someone deletes them (PodGC deletes
 * terminated Pods only above kube-controller-manager's `--terminated-pod-gc-threshold`, 12500 by
 * default). Once the quota is full, every new Pod of the namespace — a Deployment's next replica,
 * a Job's or CronJob's run, a Helm hook's Pod — is refused with `exceeded quota`.
 */
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import {
  fullObjectsOf,
  quotaCount,
  refOfQuota,
  type PodObject,
  type ResourceQuotaObject,
} from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import { command } from './kubectl.js';
import { capLines, wasListed } from './snapshot-views.js';
import type { Inventory } from '../inventory/snapshot.js';

const rule = 'quota-terminal-pods';

/** The object-count quota resource of Pods: counts every stored Pod, terminal or not. */
export const podCountResource = 'count/pods';

/** Pod phases after which no container runs again (core/v1 PodPhase). */
const terminalPhases = new Set(['Succeeded', 'Failed']);

/** Whether a Pod is terminal: phase Succeeded or Failed, and not already being deleted. */
export function isTerminalPod(pod: PodObject): boolean {
  return terminalPhases.has(pod.status?.phase ?? '') && !pod.metadata?.deletionTimestamp;
}

/** One `count/pods` quota at its limit and the terminal Pods of its namespace. */
export interface FullPodQuota {
  readonly quota: ResourceQuotaObject;
  readonly namespace: string;
  readonly used: number;
  readonly hard: number;
  /** Terminal Pods of the namespace, sorted by name. */
  readonly terminal: readonly PodObject[];
}

/**
 * Pure: every ResourceQuota whose `count/pods` is used up (status.used ≥ status.hard) while
 * terminal Pods sit in its namespace. The snapshot holds whole Pods of such namespaces
 * (inventory/pods.ts); a quota full of running or pending Pods is not returned.
 */
export function fullPodQuotas(inventory: Inventory): FullPodQuota[] {
  const pods = fullObjectsOf(inventory, 'pods');
  const out: FullPodQuota[] = [];
  for (const quota of fullObjectsOf(inventory, 'resourcequotas')) {
    const namespace = quota.metadata?.namespace ?? '';
    const hard = quotaCount(quota.status?.hard?.[podCountResource]);
    const used = quotaCount(quota.status?.used?.[podCountResource]);
    if (hard === undefined || used === undefined || used < hard) continue;
    const terminal = pods
      .filter((p) => p.metadata?.namespace === namespace && isTerminalPod(p))
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    if (terminal.length) out.push({ quota, namespace, used, hard, terminal });
  }
  return out;
}

/** `pods ci-env/migrate-x7k2p: Failed (DeadlineExceeded), owned by Job migrate`. */
function podLine(pod: PodObject): string {
  const owner = pod.metadata?.ownerReferences?.[0];
  return (
    `pods ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}: ${pod.status?.phase ?? ''}` +
    `${pod.status?.reason ? ` (${pod.status.reason})` : ''}, ` +
    (owner ? `owned by ${owner.kind ?? '?'} ${owner.name ?? '?'}` : 'no owner')
  );
}

/** The refusal the API server gives the next Pod create (quota admission's message). */
export function podQuotaRefusal(quota: string, used: number, hard: number): string {
  return (
    `exceeded quota: ${quota}, requested: ${podCountResource}=1, used: ${podCountResource}=${used}, ` +
    `limited: ${podCountResource}=${hard}`
  );
}

/** The Jobs that own terminal Pods, by name, sorted. */
function owningJobs(pods: readonly PodObject[]): string[] {
  const names = pods.flatMap((p) =>
    (p.metadata?.ownerReferences ?? []).filter((o) => o.kind === 'Job').map((o) => o.name ?? ''),
  );
  return [...new Set(names)].filter((n) => n).sort();
}

function quotaFinding(q: FullPodQuota, context: RuleContext): Finding {
  const name = q.quota.metadata?.name ?? '';
  const ns = q.namespace;
  const names = q.terminal.map((p) => p.metadata?.name ?? '');
  const jobs = owningJobs(q.terminal);
  const count = `${names.length} terminal Pod${names.length === 1 ? '' : 's'}`;
  return buildFinding(
    rule,
    'QuotaExhaustedByTerminalPods',
    {
      object: refOfQuota(q.quota),
      message:
        `ResourceQuota ${ns}/${name} is at its hard limit for ${podCountResource} (${q.used} of ${q.hard}), and ` +
        `${count} (Succeeded or Failed) count toward it: ${podCountResource} counts every stored Pod, finished or ` +
        `not, so every new Pod in namespace ${ns} (replicas, Job and CronJob runs, Helm hooks) is refused with exceeded quota`,
      evidence: [
        `${podCountResource}: used ${q.used}, hard ${q.hard}`,
        ...capLines(q.terminal.map(podLine)),
        `the next Pod create is refused with: pods "<name>" is forbidden: ${podQuotaRefusal(name, q.used, q.hard)}`,
        `a \`pods\` quota would not count them: it counts only Pods that are not Succeeded or Failed`,
        ...(jobs.length ? [`owned by Job ${jobs.join(', ')}: their Pods stay as long as the Job does`] : []),
      ],
      remediation: {
        summary:
          `Delete the ${count} that hold ResourceQuota ${ns}/${name} at its limit: they are finished, so only their ` +
          'status and logs go (keep a failed one whose logs matter). ' +
          (jobs.length
            ? `Pods of a Job go with the Job: delete the finished Job${jobs.length === 1 ? '' : 's'} (${jobs.join(', ')}) ` +
              'with background cascade, and set ttlSecondsAfterFinished on Jobs (helm.sh/hook-delete-policy on hook Jobs). '
            : '') +
          "Nothing else deletes finished Pods before PodGC's threshold (12500 by default). Do not raise the quota silently.",
        commands: [
          command('kubectl', 'get', 'resourcequota', name, '-n', ns, '-o', 'yaml'),
          command('kubectl', 'delete', 'pods', '-n', ns, ...names),
          ...(jobs.length
            ? [command('kubectl', 'delete', 'jobs.batch', '-n', ns, ...jobs, '--cascade=background')]
            : []),
        ],
      },
    },
    context,
  );
}

/**
 * quota-terminal-pods: `QuotaExhaustedByTerminalPods` (error) on each ResourceQuota whose
 * `count/pods` is used up while terminal Pods (Succeeded or Failed) sit in its namespace
 * (`fullPodQuotas`): the next Pod there is refused. The evidence lists each terminal Pod with its
 * phase, reason and owner, the refusal message, and the Jobs that own them. The remedy deletes the
 * terminal Pods (and their finished Jobs) and sets a TTL. Not judged when ResourceQuotas were not
 * listed; a quota full of running Pods is not this finding.
 */
export const quotaTerminalPodsRule: Rule = {
  name: rule,
  title: 'Pod-count quotas used up by finished Pods',
  codes: ['QuotaExhaustedByTerminalPods'],
  check(inventory, context) {
    if (!wasListed(inventory, '', 'resourcequotas')) return [];
    return fullPodQuotas(inventory).map((q) => quotaFinding(q, context));
  },
};
