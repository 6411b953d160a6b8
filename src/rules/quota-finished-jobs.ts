/**
 * ResourceQuotas held at their hard limit by finished Jobs (S27). Every Job counts toward
 * `count/jobs.batch` until it is deleted, finished or not; a Job with no
 * `ttlSecondsAfterFinished` that no CronJob owns is never deleted by anything, and a CronJob
 * prunes its own finished Jobs only down to its history limits (kubernetes/kubernetes#119775, fixed
 * by PR #119776 so that the CronJob controller still prunes when the create fails on quota). Once
 * the quota is full, every new Job in the namespace — the next CronJob run, a Helm hook — is
 * refused with `exceeded quota`.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command } from './kubectl.js';
import {
  conditionOf,
  fullObjectsOf,
  quotaCount,
  refOfQuota,
  type CronJobObject,
  type JobObject,
  type ResourceQuotaObject,
} from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import { ageSeconds, capLines, formatDuration } from './snapshot-views.js';

const rule = 'quota-finished-jobs';

/** The object-count quota resource of Jobs. */
export const jobCountResource = 'count/jobs.batch';

/** CronJob history limits when unset (batch/v1 defaults). */
const defaultHistory = { successful: 3, failed: 1 };

/** A Job's final state, from its Complete or Failed condition (status True); undefined while it runs. */
export function finishedState(job: JobObject): { state: string; reason?: string; at?: string } | undefined {
  for (const type of ['Complete', 'Failed']) {
    const c = conditionOf(job.status?.conditions, type);
    if (c?.status === 'True')
      return {
        state: type,
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.lastTransitionTime ? { at: c.lastTransitionTime } : {}),
      };
  }
  return undefined;
}

/** One full Job quota and the finished Jobs without a TTL that hold it. */
export interface FullJobQuota {
  readonly quota: ResourceQuotaObject;
  readonly namespace: string;
  readonly used: number;
  readonly hard: number;
  /** Finished Jobs of the namespace with no ttlSecondsAfterFinished, oldest first. */
  readonly finished: readonly JobObject[];
  /** CronJobs of the namespace (their runs are refused), each with whether its history alone exceeds the quota. */
  readonly cronJobs: readonly { readonly cronJob: CronJobObject; readonly history: number }[];
}

/**
 * Pure: every ResourceQuota whose `count/jobs.batch` is used up (status.used ≥ status.hard) while
 * finished Jobs with no `ttlSecondsAfterFinished` sit in its namespace, with the CronJobs there
 * and the number of finished Jobs each one keeps (its history limits, defaults 3 and 1).
 */
export function fullJobQuotas(inventory: Inventory): FullJobQuota[] {
  const jobs = fullObjectsOf(inventory, 'jobs');
  const cronJobs = fullObjectsOf(inventory, 'cronjobs');
  const out: FullJobQuota[] = [];
  for (const quota of fullObjectsOf(inventory, 'resourcequotas')) {
    const namespace = quota.metadata?.namespace ?? '';
    const hard = quotaCount(quota.status?.hard?.[jobCountResource]);
    const used = quotaCount(quota.status?.used?.[jobCountResource]);
    if (hard === undefined || used === undefined || used < hard) continue;
    const finished = jobs
      .filter(
        (j) =>
          j.metadata?.namespace === namespace &&
          finishedState(j) !== undefined &&
          j.spec?.ttlSecondsAfterFinished === undefined &&
          !j.metadata.deletionTimestamp,
      )
      .sort((a, b) => (finishedState(a)?.at ?? '').localeCompare(finishedState(b)?.at ?? ''));
    if (finished.length === 0) continue;
    out.push({
      quota,
      namespace,
      used,
      hard,
      finished,
      cronJobs: cronJobs
        .filter((c) => c.metadata?.namespace === namespace)
        .map((cronJob) => ({
          cronJob,
          history:
            (cronJob.spec?.successfulJobsHistoryLimit ?? defaultHistory.successful) +
            (cronJob.spec?.failedJobsHistoryLimit ?? defaultHistory.failed),
        })),
    });
  }
  return out;
}

/** `jobs.batch ci-env/migrate-1: Failed (DeadlineExceeded) 3m ago, no ttlSecondsAfterFinished, no owner`. */
function jobLine(job: JobObject, now: number): string {
  const state = finishedState(job)!;
  const age = ageSeconds(state.at, now);
  const owner = job.metadata?.ownerReferences?.[0];
  return (
    `jobs.batch ${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}: ${state.state}` +
    `${state.reason ? ` (${state.reason})` : ''}${age !== undefined ? ` ${formatDuration(age)} ago` : ''}, ` +
    `no ttlSecondsAfterFinished, ${owner ? `owned by ${owner.kind ?? '?'} ${owner.name ?? '?'}` : 'no owner'}`
  );
}

/** The refusal the API server gives the next Job create (quota admission's message). */
export function quotaRefusal(quota: string, used: number, hard: number): string {
  return (
    `exceeded quota: ${quota}, requested: ${jobCountResource}=1, used: ${jobCountResource}=${used}, ` +
    `limited: ${jobCountResource}=${hard}`
  );
}

function quotaFinding(q: FullJobQuota, context: RuleContext): Finding {
  const name = q.quota.metadata?.name ?? '';
  const ns = q.namespace;
  const jobs = q.finished.map((j) => j.metadata?.name ?? '');
  const over = q.cronJobs.filter((c) => c.history + 1 > q.hard);
  const count = `${jobs.length} finished Job${jobs.length === 1 ? '' : 's'}`;
  return buildFinding(
    rule,
    'QuotaExhaustedByFinishedJobs',
    {
      object: refOfQuota(q.quota),
      message:
        `ResourceQuota ${ns}/${name} is at its hard limit for ${jobCountResource} (${q.used} of ${q.hard}), and ` +
        `${count} with no ttlSecondsAfterFinished hold${jobs.length === 1 ? 's' : ''} it: nothing deletes them, ` +
        `and every new Job in namespace ${ns} (CronJob runs, Helm hooks) is refused with exceeded quota`,
      evidence: [
        `${jobCountResource}: used ${q.used}, hard ${q.hard}`,
        ...capLines(q.finished.map((j) => jobLine(j, context.now))),
        `the next Job create is refused with: jobs.batch "<name>" is forbidden: ${quotaRefusal(name, q.used, q.hard)}`,
        ...q.cronJobs.map(
          (c) =>
            `CronJob ${ns}/${c.cronJob.metadata?.name ?? ''} cannot start its runs; it keeps up to ${c.history} finished Jobs ` +
            `(successfulJobsHistoryLimit + failedJobsHistoryLimit)` +
            (c.history + 1 > q.hard
              ? `, and its history plus one run is more than the quota of ${q.hard}`
              : ''),
        ),
      ],
      remediation: {
        summary:
          `Delete the ${count} that hold ResourceQuota ${ns}/${name} at its limit, with background cascade: they are ` +
          'finished, so only their pods and logs go (keep the newest failed one if its logs matter). Then fix the ' +
          'cause: set ttlSecondsAfterFinished on the Jobs (and helm.sh/hook-delete-policy hook-succeeded on Helm hook ' +
          'Jobs)' +
          (over.length
            ? `, and set the history limits of CronJob ${over.map((c) => c.cronJob.metadata?.name ?? '').join(', ')} below the quota`
            : '') +
          '. Do not raise the quota silently. Environments that reuse namespace names must delete finished Jobs: they hold quota and their names collide.',
        commands: [
          command('kubectl', 'get', 'resourcequota', name, '-n', ns, '-o', 'yaml'),
          command('kubectl', 'delete', 'jobs.batch', ...jobs, '-n', ns, '--cascade=background'),
          '# then set spec.ttlSecondsAfterFinished on the Jobs (a CronJob: spec.jobTemplate.spec.ttlSecondsAfterFinished)',
        ],
      },
    },
    context,
  );
}

/**
 * quota-finished-jobs (scenario S27): `QuotaExhaustedByFinishedJobs` (error) on each ResourceQuota
 * whose `count/jobs.batch` is used up while finished Jobs (Complete or Failed) with no
 * `ttlSecondsAfterFinished` sit in its namespace (`fullJobQuotas`): the next Job there is refused.
 * The evidence lists each finished Job with its state, age and owner, the refusal message, and each
 * CronJob of the namespace with the history it keeps (flagged when history plus one run exceeds
 * the quota). The remedy deletes the finished Jobs (background cascade) and sets a TTL.
 */
export const quotaFinishedJobsRule: Rule = {
  name: rule,
  title: 'Job quotas used up by finished Jobs that nothing deletes',
  codes: ['QuotaExhaustedByFinishedJobs'],
  check(inventory, context) {
    return fullJobQuotas(inventory).map((q) => quotaFinding(q, context));
  },
};
