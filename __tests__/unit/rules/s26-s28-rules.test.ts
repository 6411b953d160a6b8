/**
 * The S26-S28 rules over variants of snapshots recorded from the real control plane
 * (support/round3-variants.ts): what each reports, what it links, and what it leaves alone.
 */
import { buildInventory } from '../../../src/inventory/snapshot.js';
import { admissionPolicyParamMissingRule } from '../../../src/rules/admission-policy-param-missing.js';
import { findingKey } from '../../../src/rules/findings.js';
import { helmReleaseNamespaceGoneRule } from '../../../src/rules/helm-release-namespace-gone.js';
import { runRules } from '../../../src/rules/index.js';
import { quotaFinishedJobsRule } from '../../../src/rules/quota-finished-jobs.js';
import { replayContext } from './support/recorded-fixture.js';
import { fullJobQuota, policyParamMissing, recordStoredElsewhere, s12 } from './support/round3-variants.js';

const bindingKey = findingKey('AdmissionPolicyParamMissing', {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  name: 'pvc-guard-binding',
});

test('S26: a binding whose param is missing where a claim waits denies its finalizer removal, and is the cause of the namespace', () => {
  const { fixture, inventory } = s12();
  const ns = fixture.names.namespace!;
  const changed = buildInventory(policyParamMissing(inventory));
  const findings = runRules(changed, replayContext(fixture));
  const f = findings.find((x) => x.key === bindingKey)!;
  expect(f.severity).toBe('error');
  expect(f.message).toBe(
    `ValidatingAdmissionPolicyBinding pvc-guard-binding denies the finalizer removal of 1 object held in deletion: its ` +
      `param ConfigMap storage-limits is missing in namespace ${ns} (Terminating), and its parameterNotFoundAction is ` +
      'Deny with failurePolicy Fail, so the namespace cannot finish, and the param cannot be recreated there',
  );
  expect(f.remediation.summary).toMatch(
    new RegExp(
      `^Set spec\\.paramRef\\.parameterNotFoundAction to Allow on ValidatingAdmissionPolicyBinding pvc-guard-binding until namespace ${ns} is gone`,
    ),
  );
  expect(f.remediation.commands).toContain(`kubectl wait --for=delete namespace/${ns} --timeout=10m`);
  // The namespace and the claim are explained by the binding (the controller acts and is refused).
  const nsFinding = findings.find((x) => x.code === 'NamespaceBlockedByFinalizer' && x.object.name === ns)!;
  expect(nsFinding.causedBy).toContain(bindingKey);
  const claim = findings.find((x) => x.code === 'PVCProtectionBlocked')!;
  expect(claim.causedBy).toContain(bindingKey);
});

test('S26: nothing is reported when the param exists, when the action is Allow, or when a selector excludes the namespace', () => {
  const { fixture, inventory } = s12();
  const ns = fixture.names.namespace!;
  const context = replayContext(fixture);
  const allow = buildInventory(policyParamMissing(inventory, 'Allow'));
  expect(admissionPolicyParamMissingRule.check(allow, context)).toEqual([]);
  const withParam = policyParamMissing(inventory);
  const present = buildInventory({
    ...withParam,
    objects: [
      ...withParam.objects,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        resource: 'configmaps',
        namespace: ns,
        name: 'storage-limits',
        uid: 'p',
      },
    ],
  });
  expect(admissionPolicyParamMissingRule.check(present, context)).toEqual([]);
  const excluded = policyParamMissing(inventory);
  const full = excluded.full as unknown as { validatingadmissionpolicybindings: { spec: object }[] };
  full.validatingadmissionpolicybindings[0]!.spec = {
    ...full.validatingadmissionpolicybindings[0]!.spec,
    matchResources: { namespaceSelector: { matchLabels: { team: 'b' } } },
  };
  expect(admissionPolicyParamMissingRule.check(buildInventory(excluded), context)).toEqual([]);
  // The recorded snapshot itself (no policy): nothing.
  expect(admissionPolicyParamMissingRule.check(inventory, context)).toEqual([]);
});

test('S27: a Job quota full of finished Jobs without a TTL is reported with the Jobs, the refusal and the CronJob history', () => {
  const { fixture, inventory } = s12();
  const context = replayContext(fixture);
  const full = buildInventory(fullJobQuota(inventory, 'default', { hard: 3, jobs: 3 }));
  const [f, ...rest] = quotaFinishedJobsRule.check(full, context);
  expect(rest).toEqual([]);
  expect([f!.code, f!.severity, f!.object.kind, f!.object.namespace, f!.object.name]).toEqual([
    'QuotaExhaustedByFinishedJobs',
    'error',
    'ResourceQuota',
    'default',
    'jobs',
  ]);
  expect(f!.evidence).toEqual(
    expect.arrayContaining([
      'count/jobs.batch: used 3, hard 3',
      'jobs.batch default/migrate-1: Failed (DeadlineExceeded) 1m1s ago, no ttlSecondsAfterFinished, no owner',
      'the next Job create is refused with: jobs.batch "<name>" is forbidden: exceeded quota: jobs, requested: count/jobs.batch=1, used: count/jobs.batch=3, limited: count/jobs.batch=3',
    ]),
  );
  expect(f!.remediation.commands).toContain(
    'kubectl delete jobs.batch migrate-1 migrate-2 migrate-3 -n default --cascade=background',
  );
  const cron = buildInventory(fullJobQuota(inventory, 'default', { hard: 2, jobs: 2, cronHistory: 5 }));
  const [g] = quotaFinishedJobsRule.check(cron, context);
  expect(g!.evidence).toContain(
    'CronJob default/nightly cannot start its runs; it keeps up to 5 finished Jobs (successfulJobsHistoryLimit + failedJobsHistoryLimit), and its history plus one run is more than the quota of 2',
  );
  expect(g!.remediation.summary).toContain('set the history limits of CronJob nightly below the quota');
  // Not reported: finished Jobs with a TTL, or a quota with room.
  expect(
    quotaFinishedJobsRule.check(
      buildInventory(fullJobQuota(inventory, 'default', { hard: 2, jobs: 2, ttl: 3600 })),
      context,
    ),
  ).toEqual([]);
  const room = fullJobQuota(inventory, 'default', { hard: 5, jobs: 2 });
  expect(quotaFinishedJobsRule.check(buildInventory(room), context)).toEqual([]);
});

test('S28: a record stored elsewhere for a gone namespace: HelmReleaseNamespaceGone, and the leftover says so instead of "does not exist"', () => {
  const { fixture, inventory } = s12();
  const context = replayContext(fixture);
  const stranded = buildInventory(recordStoredElsewhere(inventory, 'kube-public', 'pr-7'));
  const findings = runRules(stranded, context).filter(
    (f) => f.object.uid === 'uid-record' || f.object.uid === 'uid-role',
  );
  const recordKey = findingKey('HelmReleaseNamespaceGone', {
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: 'kube-public',
    name: 'sh.helm.release.v1.api.v1',
  });
  expect(findings.map((f) => [f.code, f.object.name, f.causedBy ?? []])).toEqual([
    ['HelmLeftover', 'pr-7-api-reader', [recordKey]],
    ['HelmReleaseNamespaceGone', 'sh.helm.release.v1.api.v1', []],
  ]);
  const [leftover, record] = findings;
  expect(leftover!.evidence).toContain(
    'release pr-7/api is recorded as deployed (revision 1) in Secret kube-public/sh.helm.release.v1.api.v1, stored outside its namespace, but namespace pr-7 no longer exists: no uninstall ran',
  );
  for (const f of findings)
    expect([f.message, ...f.evidence].join('\n')).not.toContain('the release does not exist');
  expect(record!.remediation.commands).toEqual([
    'kubectl get secrets sh.helm.release.v1.api.v1 -n kube-public -o yaml',
    '# if no controller will uninstall it: delete what the release left, then its record',
    'kubectl delete clusterroles.rbac.authorization.k8s.io pr-7-api-reader',
    'kubectl delete secrets -n kube-public -l owner=helm,name=api',
  ]);
  // The release's namespace exists: a healthy split, nothing reported, the ClusterRole is no leftover.
  const healthy = buildInventory(recordStoredElsewhere(inventory, 'kube-public', 'default'));
  expect(
    runRules(healthy, context).filter((f) => f.object.uid === 'uid-record' || f.object.uid === 'uid-role'),
  ).toEqual([]);
  expect(helmReleaseNamespaceGoneRule.check(inventory, context)).toEqual([]);
});
