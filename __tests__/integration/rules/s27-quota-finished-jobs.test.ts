/**
 * S27: finished Jobs without a TTL fill a `count/jobs.batch` quota. Built for real: namespace
 * `<id>-ci-env` with ResourceQuota `jobs` (hard 3) and Jobs `migrate-1..3` that the job controller
 * fails after `activeDeadlineSeconds: 1`, none with a TTL; the next Job (what a Helm pre-install
 * hook creates) is refused with the API server's `exceeded quota` message. Variant: namespace
 * `<id>-ci-env2` with quota 2 and CronJob `nightly` (failedJobsHistoryLimit 5) owning two failed
 * Jobs: its history alone is more than the quota. The rules must report QuotaExhaustedByFinishedJobs
 * on each quota, naming the finished Jobs, the refusal and the CronJob. Clean: a full quota of
 * finished Jobs that have a TTL, and a quota with room, are not reported.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { quotaFinishedJobsRule, quotaRefusal } from '../../../src/rules/quota-finished-jobs.js';
import { waitFor } from '../../../src/util/wait.js';
import { createNamespace, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  scenarioContext,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const jobsPath = (ns: string) => `/apis/batch/v1/namespaces/${ns}/jobs`;

/** ResourceQuota `jobs` on `count/jobs.batch`, waited for until the quota controller has counted. */
async function createJobQuota(api: ApiClient, ns: string, hard: number): Promise<void> {
  await createObject(api, `/api/v1/namespaces/${ns}/resourcequotas`, {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'jobs' },
    spec: { hard: { 'count/jobs.batch': String(hard) } },
  });
  await waitUsed(api, ns, 0);
}

/** Waits until quota `jobs` in `ns` counts `used` Jobs. */
async function waitUsed(api: ApiClient, ns: string, used: number): Promise<void> {
  await waitFor(
    async () => {
      const q = await api.request<{ status?: { used?: Record<string, string> } }>({
        path: `/api/v1/namespaces/${ns}/resourcequotas/jobs`,
      });
      const now = q.status?.used?.['count/jobs.batch'];
      return { done: now === String(used), value: now };
    },
    { timeoutMs: 60_000, description: `quota ${ns}/jobs to count ${used} Jobs` },
  );
}

/** A Job that the job controller fails one second after it starts (no scheduler runs its pod). */
function failingJob(name: string, extra: { ttl?: number; owner?: object } = {}) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...(extra.owner ? { ownerReferences: [extra.owner] } : {}) },
    spec: {
      activeDeadlineSeconds: 1,
      backoffLimit: 0,
      ...(extra.ttl !== undefined ? { ttlSecondsAfterFinished: extra.ttl } : {}),
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: `registry.invalid/${name}:1` }] },
      },
    },
  };
}

/** Waits until Job `ns/name` has condition Failed=True. */
async function waitFailed(api: ApiClient, ns: string, name: string): Promise<void> {
  await waitFor(
    async () => {
      const j = await api.request<{ status?: { conditions?: { type: string; status: string }[] } }>({
        path: `${jobsPath(ns)}/${name}`,
      });
      const failed = j.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True') ?? false;
      return { done: failed, value: j.status?.conditions };
    },
    { timeoutMs: 60_000, description: `job ${ns}/${name} to fail` },
  );
}

test('S27: a Job quota full of finished Jobs without a TTL: QuotaExhaustedByFinishedJobs, and the next Job is refused', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s27');
  const ns = `${id}-ci-env`;
  const ns2 = `${id}-ci-env2`;
  try {
    await createNamespace(api, ns);
    await createJobQuota(api, ns, 3);
    for (const n of [1, 2, 3]) await createObject(api, jobsPath(ns), failingJob(`migrate-${n}`));
    for (const n of [1, 2, 3]) await waitFailed(api, ns, `migrate-${n}`);
    await waitUsed(api, ns, 3);
    // What a Helm pre-install hook gets.
    let refused: KubernetesApiError | undefined;
    try {
      await api.request({ method: 'POST', path: jobsPath(ns), body: failingJob('app-db-migrate') });
    } catch (error) {
      if (!(error instanceof KubernetesApiError)) throw error;
      refused = error;
    }
    expect(refused?.status).toBe(403);
    expect(refused?.apiMessage).toBe(
      `jobs.batch "app-db-migrate" is forbidden: ${quotaRefusal('jobs', 3, 3)}`,
    );

    // The CronJob variant: its history limit keeps more failed Jobs than the quota allows.
    await createNamespace(api, ns2);
    await createJobQuota(api, ns2, 2);
    await createObject(api, `/apis/batch/v1/namespaces/${ns2}/cronjobs`, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 0 1 1 *',
        failedJobsHistoryLimit: 5,
        jobTemplate: { spec: failingJob('x').spec },
      },
    });
    const cron = await api.request<{ metadata: { uid: string } }>({
      path: `/apis/batch/v1/namespaces/${ns2}/cronjobs/nightly`,
    });
    const owner = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      name: 'nightly',
      uid: cron.metadata.uid,
      controller: true,
    };
    for (const n of [1, 2]) await createObject(api, jobsPath(ns2), failingJob(`nightly-${n}`, { owner }));
    for (const n of [1, 2]) await waitFailed(api, ns2, `nightly-${n}`);
    await waitUsed(api, ns2, 2);

    const inventory = await snapshot(api);
    recordFixture('s27-quota-finished-jobs', inventory, {
      scenario: 'S27 finished Jobs without a TTL fill a count/jobs.batch quota',
      names: { namespace: ns, cronNamespace: ns2 },
      environmentNamespaces: [ns, ns2],
      selection: { namespaces: [ns, ns2], clusterObjects: [] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns, ns2]), [id]);
    expect(mine.map((f) => [f.code, f.severity, f.object.kind, f.object.namespace, f.object.name])).toEqual([
      ['QuotaExhaustedByFinishedJobs', 'error', 'ResourceQuota', ns, 'jobs'],
      ['QuotaExhaustedByFinishedJobs', 'error', 'ResourceQuota', ns2, 'jobs'],
    ]);
    const [f, g] = mine;
    expect(f!.message).toBe(
      `ResourceQuota ${ns}/jobs is at its hard limit for count/jobs.batch (3 of 3), and 3 finished Jobs with no ` +
        `ttlSecondsAfterFinished hold it: nothing deletes them, and every new Job in namespace ${ns} (CronJob runs, ` +
        'Helm hooks) is refused with exceeded quota',
    );
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        'count/jobs.batch: used 3, hard 3',
        expect.stringMatching(
          new RegExp(
            `^jobs\\.batch ${ns}/migrate-1: Failed \\(DeadlineExceeded\\) \\S+ ago, no ttlSecondsAfterFinished, no owner$`,
          ),
        ),
        `the next Job create is refused with: jobs.batch "<name>" is forbidden: ${quotaRefusal('jobs', 3, 3)}`,
      ]),
    );
    expect(f!.remediation.summary).toMatch(
      new RegExp(
        `^Delete the 3 finished Jobs that hold ResourceQuota ${ns}/jobs at its limit, with background cascade:`,
      ),
    );
    expect(f!.remediation.commands).toContain(
      `kubectl delete jobs.batch migrate-1 migrate-2 migrate-3 -n ${ns} --cascade=background`,
    );
    expect(g!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^jobs\\.batch ${ns2}/nightly-1: Failed .*, owned by CronJob nightly$`),
        ),
        `CronJob ${ns2}/nightly cannot start its runs; it keeps up to 8 finished Jobs (successfulJobsHistoryLimit + ` +
          'failedJobsHistoryLimit), and its history plus one run is more than the quota of 2',
      ]),
    );
    expect(g!.remediation.summary).toContain('set the history limits of CronJob nightly below the quota');

    // The remedy works: deleting the finished Jobs frees the quota, and the finding goes.
    await api.request({
      method: 'DELETE',
      path: jobsPath(ns),
      query: { propagationPolicy: 'Background' },
    });
    await waitUsed(api, ns, 0);
    await createObject(api, jobsPath(ns), failingJob('app-db-migrate'));
    const after = findingsAbout(findingsOf(await snapshot(api), [ns]), [ns]).filter(
      (x) => x.object.namespace === ns,
    );
    expect(after.filter((x) => x.code === 'QuotaExhaustedByFinishedJobs')).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
    await deleteNamespaceAndWait(api, ns2);
  }
}, 240_000);

test('clean: a full quota of finished Jobs that have a TTL, and a quota with room, are not reported', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s27-clean');
  const ttlNs = `${id}-ttl`;
  const roomNs = `${id}-room`;
  try {
    await createNamespace(api, ttlNs);
    await createNamespace(api, roomNs);
    await createJobQuota(api, ttlNs, 2);
    await createJobQuota(api, roomNs, 5);
    for (const n of [1, 2]) await createObject(api, jobsPath(ttlNs), failingJob(`kept-${n}`, { ttl: 3600 }));
    await createObject(api, jobsPath(roomNs), failingJob('once'));
    for (const n of [1, 2]) await waitFailed(api, ttlNs, `kept-${n}`);
    await waitFailed(api, roomNs, 'once');
    await waitUsed(api, ttlNs, 2);
    const findings = runRules(
      await snapshot(api),
      { ...scenarioContext([ttlNs, roomNs]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [quotaFinishedJobsRule],
    );
    // Other tests may hold their own faults at the same time: nothing but theirs may be reported.
    expect(
      findings.filter((f) => !/^rules-/.test(f.object.namespace ?? '') || f.object.namespace!.startsWith(id)),
    ).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ttlNs);
    await deleteNamespaceAndWait(api, roomNs);
  }
}, 180_000);
