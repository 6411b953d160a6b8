import type { InventoryData } from '../../../src/inventory/snapshot.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { helmLeftoverRule } from '../../../src/rules/helm-leftover.js';
import { rules, runRules } from '../../../src/rules/index.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = helmLeftoverRule;

const helmFixtures = [
  'helm-release-gone',
  's08-helm-crd-leftover',
  's15-helm-pending-install',
  's16-helm-hook-leftover',
  's16-helm-uninstalling',
  's17-helm-kept',
] as const;

const secretsGap = (d: InventoryData): InventoryData => ({
  ...d,
  coverage: [{ resource: 'secrets/v1', reason: 'forbidden', message: 'secrets is forbidden' }],
});

/** A release Secret (metadata only) of release `name` in `namespace`. */
function releaseSecret(namespace: string, name: string, status: string, revision = 1): ObjectMetadata {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    resource: 'secrets',
    namespace,
    name: `sh.helm.release.v1.${name}.v${revision}`,
    uid: `uid-${namespace}-${name}-${revision}`,
    creationTimestamp: '2020-01-01T00:00:00Z',
    labels: { owner: 'helm', name, status, version: String(revision) },
  };
}

const withObjects = (extra: ObjectMetadata[]) => (d: InventoryData) => ({
  ...d,
  objects: [...d.objects, ...extra],
});

test('S17: a kept ConfigMap of a gone release is HelmLeftover (kept), information: the user asked Helm to keep it; the delete comes last, after its warning', () => {
  const { fixture, inventory } = loadRecordedFixture('s17-helm-kept');
  const { namespace: ns } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    code: 'HelmLeftover',
    severity: 'info',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'state' },
  });
  expect(f!.evidence.slice(0, 5)).toEqual([
    'subtype: kept',
    'meta.helm.sh/release-name: keepy',
    `meta.helm.sh/release-namespace: ${ns}`,
    'helm.sh/resource-policy: keep',
    `no release Secret or ConfigMap sh.helm.release.v1.keepy.v* (owner=helm) in namespace ${ns}: the release does not exist`,
  ]);
  expect(f!.remediation.commands).toEqual([
    `kubectl get configmaps state -n ${ns} -o yaml`,
    expect.stringMatching(/^# or, to let another release adopt it: .*--take-ownership/),
    `kubectl annotate configmaps state -n ${ns} --overwrite 'meta.helm.sh/release-name=<release>' 'meta.helm.sh/release-namespace=<release-namespace>'`,
    expect.stringMatching(/^# WARNING: it was kept on purpose/),
    `kubectl delete configmaps state -n ${ns}`,
  ]);
});

test('the release exists again (or only its history was kept): installed means no leftover', () => {
  const { fixture, inventory } = loadRecordedFixture('s17-helm-kept');
  const { namespace: ns } = fixture.names;
  const installed = withInventory(inventory, withObjects([releaseSecret(ns!, 'keepy', 'deployed')]));
  expect(rule.check(installed, replayContext(fixture))).toEqual([]);
  const failed = withInventory(inventory, withObjects([releaseSecret(ns!, 'keepy', 'failed')]));
  expect(rule.check(failed, replayContext(fixture))).toEqual([]);
  const history = withInventory(
    inventory,
    withObjects([
      releaseSecret(ns!, 'keepy', 'superseded', 1),
      releaseSecret(ns!, 'keepy', 'uninstalled', 2),
    ]),
  );
  const [f] = rule.check(history, replayContext(fixture));
  expect(f!.evidence).toContain(
    `the current revision 2 of release ${ns}/keepy is uninstalled (history kept with --keep-history, Secret sh.helm.release.v1.keepy.v2): the release does not exist`,
  );
});

test('no conclusion without the full list of Secrets; objects being deleted, owned or newer than the snapshot are skipped', () => {
  const { fixture, inventory } = loadRecordedFixture('s17-helm-kept');
  expect(rule.check(withInventory(inventory, secretsGap), replayContext(fixture))).toEqual([]);
  const change = (patch: Partial<ObjectMetadata>) =>
    withInventory(inventory, (d) => ({
      ...d,
      objects: d.objects.map((o) => (o.name === 'state' ? { ...o, ...patch } : o)),
    }));
  const later = new Date(Date.parse(fixture.inventory.takenAt) + 5000).toISOString();
  for (const patch of [
    { deletionTimestamp: '2020-01-01T00:00:00Z' },
    { creationTimestamp: later },
    { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u' }] },
  ])
    expect(rule.check(change(patch), replayContext(fixture))).toEqual([]);
});

test('a release whose namespace was deleted: objects elsewhere and cluster-scoped ones are release-gone', () => {
  const { fixture, inventory } = loadRecordedFixture('helm-release-gone');
  const { namespace: ns, sharedNamespace: shared, clusterRole } = fixture.names;
  const findings = runRules(inventory, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.object.kind, f.object.namespace, f.object.name, f.scope])).toEqual([
    ['HelmLeftover', 'ClusterRole', undefined, clusterRole, 'environment'],
    ['HelmLeftover', 'ConfigMap', shared, expect.stringMatching(/-settings$/), 'environment'],
  ]);
  for (const f of findings) {
    expect(f.message).toMatch(/^Helm leftover \(release-gone\): /);
    expect(f.evidence).toContain('subtype: release-gone');
    expect(f.evidence).toContain(
      `no release Secret or ConfigMap sh.helm.release.v1.web.v* (owner=helm) in namespace ${ns}: the release does not exist`,
    );
  }
  const outside = rule.check(inventory, replayContext(fixture, { environmentNamespaces: new Set() }));
  expect(outside.map((f) => f.scope)).toEqual(['cluster', 'cluster']);
});

test('S08: a kept CRD of a gone release is HelmLeftover (crd) with its instances per namespace', () => {
  const { fixture, inventory } = loadRecordedFixture('s08-helm-crd-leftover');
  const { namespace: ns, instanceNamespace: other, crd } = fixture.names;
  const [f, ...rest] = rule.check(inventory, replayContext(fixture));
  expect(rest).toEqual([]);
  expect(f).toMatchObject({
    severity: 'warning',
    scope: 'environment',
    object: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd },
  });
  expect(f!.evidence).toEqual([
    'subtype: crd',
    'meta.helm.sh/release-name: a',
    `meta.helm.sh/release-namespace: ${ns}`,
    'helm.sh/resource-policy: keep',
    `no release Secret or ConfigMap sh.helm.release.v1.a.v* (owner=helm) in namespace ${ns}: the release does not exist`,
    `instances: 1 instance: 1 in ${other}`,
    'installing the chart under another release name or namespace fails on ownership until it is adopted',
  ]);
  expect(f!.remediation.commands.slice(-2)).toEqual([
    expect.stringMatching(/^# WARNING: deleting the CRD deletes every instance of it in every namespace/),
    `kubectl delete customresourcedefinitions.apiextensions.k8s.io ${crd}`,
  ]);

  const none = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.filter((o) => o.kind !== 'Widget'),
  }));
  const [empty] = rule.check(none, replayContext(fixture));
  expect(empty!.evidence).toContain('instances: 0 instances');
  expect(empty!.remediation.commands.slice(-2)).toEqual([
    '# no instance remains: if no installed release needs it:',
    `kubectl delete customresourcedefinitions.apiextensions.k8s.io ${crd}`,
  ]);
  expect(empty!.remediation.commands.some((c) => c.startsWith('# WARNING:'))).toBe(false);

  const unlisted = withInventory(inventory, (d) => ({
    ...d,
    coverage: [{ resource: `${crd}/v1`, reason: 'failed', message: 'timeout' }],
  }));
  const [unknown] = rule.check(unlisted, replayContext(fixture));
  expect(unknown!.evidence).toContain(
    'instances: its instances could not be listed: how many exist is unknown',
  );
  expect(unknown!.remediation.commands.at(-2)).toMatch(/^# WARNING:/);
});

test('S16: a hook Job left by uninstall --no-hooks has no release marker: info, only where no release is installed', () => {
  const { fixture, inventory } = loadRecordedFixture('s16-helm-hook-leftover');
  const { namespace: ns } = fixture.names;
  const [f, ...rest] = rule.check(inventory, replayContext(fixture));
  expect(rest).toEqual([]);
  expect(f).toMatchObject({
    severity: 'info',
    scope: 'environment',
    object: { apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: 'cleanup' },
  });
  expect(f!.evidence).toEqual([
    'subtype: hook',
    'helm.sh/hook: pre-delete',
    'helm.sh/hook-delete-policy: before-hook-creation',
    `no release Secret or ConfigMap (sh.helm.release.v1.*, owner=helm) of an installed release in namespace ${ns}`,
    'no meta.helm.sh/release-name annotation: Helm sets none on hook objects (verified with Helm 4.3.1 and 3.22.0)',
    expect.stringMatching(/^creationTimestamp: /),
  ]);
  const other = withInventory(inventory, withObjects([releaseSecret(ns!, 'another', 'deployed')]));
  expect(rule.check(other, replayContext(fixture))).toEqual([]);
  expect(rule.check(withInventory(inventory, secretsGap), replayContext(fixture))).toEqual([]);
});

test('a hook object the teardown found left by a release names that release, namespaced or cluster-scoped', () => {
  const { fixture, inventory } = loadRecordedFixture('s16-helm-hook-leftover');
  const { namespace: ns } = fixture.names;
  // A post-install hook ClusterRole of the same release (Helm annotates it with the hook only).
  const role: ObjectMetadata = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    resource: 'clusterroles',
    name: `${ns}-hook-role`,
    uid: 'uid-hook-role',
    creationTimestamp: '2020-01-01T00:00:00Z',
    annotations: { 'helm.sh/hook': 'post-install' },
  };
  const withRole = withInventory(inventory, withObjects([role]));
  // Without the teardown's word, the ClusterRole is no one's and the Job's release cannot be told.
  const [unknown, ...none] = rule.check(withRole, replayContext(fixture));
  expect(none).toEqual([]);
  expect(unknown!.message).toContain('which release left it cannot be told');
  const release = { namespace: ns!, name: 'hooked' };
  const context = replayContext(fixture, {
    hookLeftovers: [
      { object: { apiVersion: 'batch/v1', kind: 'Job', namespace: ns!, name: 'cleanup' }, release },
      {
        object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: role.name },
        release,
      },
    ],
  });
  const findings = rule.check(withRole, context).sort((a, b) => a.object.kind.localeCompare(b.object.kind));
  expect(findings.map((f) => [f.object.kind, f.severity, f.scope])).toEqual([
    ['ClusterRole', 'info', 'environment'],
    ['Job', 'info', 'environment'],
  ]);
  for (const f of findings) {
    expect(f.message).not.toContain('cannot be told');
    expect(f.message).toContain(`hook of Helm release ${ns}/hooked, which no longer exists`);
    expect(f.evidence).toContain(
      `release: ${ns}/hooked (the teardown found this object in the release's stored hook manifests; Helm sets no release annotation on hook objects)`,
    );
    expect(f.remediation.commands.at(-1)).toMatch(/^kubectl delete /);
  }
  expect(findings[0]!.message).toMatch(
    /^Helm leftover \(hook\): clusterroles\.rbac\.authorization\.k8s\.io .* was made by a post-install hook/,
  );
  // A release whose uninstall did not finish is named as such, not as gone.
  const stillThere = withInventory(withRole, withObjects([releaseSecret(ns!, 'hooked', 'uninstalling')]));
  const job = rule.check(stillThere, context).find((f) => f.object.kind === 'Job');
  expect(job!.message).toContain(`hook of Helm release ${ns}/hooked, whose uninstall did not finish`);
  expect(job!.evidence.join('\n')).toContain(
    `release ${ns}/hooked is still recorded as uninstalling (revision 1)`,
  );
});

test('a hook object that does carry release annotations is reported as hook of that release', () => {
  const { fixture, inventory } = loadRecordedFixture('s16-helm-hook-leftover');
  const { namespace: ns } = fixture.names;
  const marked = withInventory(inventory, (d) => ({
    ...d,
    objects: d.objects.map((o) =>
      o.name === 'cleanup' && o.resource === 'jobs'
        ? {
            ...o,
            annotations: {
              ...o.annotations,
              'meta.helm.sh/release-name': 'hooked',
              'meta.helm.sh/release-namespace': ns!,
            },
          }
        : o,
    ),
  }));
  const [f] = rule.check(marked, replayContext(fixture));
  expect(f).toMatchObject({ severity: 'warning' });
  expect(f!.message).toMatch(
    /^Helm leftover \(hook\): jobs\.batch .* Helm release .*\/hooked, which no longer exists: hook objects/,
  );
});

test('releases that exist (pending-install, uninstalling) leave no HelmLeftover', () => {
  expect.hasAssertions();
  for (const name of ['s15-helm-pending-install', 's16-helm-uninstalling'] as const) {
    const { fixture, inventory } = loadRecordedFixture(name);
    expect(rule.check(inventory, replayContext(fixture))).toEqual([]);
  }
});

describe.each(helmFixtures)('recorded Helm scenario %s', (name) => {
  const { fixture, inventory } = loadRecordedFixture(name);
  const findings = runRules(inventory, replayContext(fixture));

  test('finds something, from rules that declare the codes, with unique keys', () => {
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings) expect(rules.find((r) => r.name === f.rule)?.codes).toContain(f.code);
    expect(new Set(findings.map((f) => f.key)).size).toBe(findings.length);
  });

  test('a risky command comes last, after its warning; the order does not depend on registration', () => {
    for (const f of findings) {
      const commands = f.remediation.commands;
      const warning = commands.findIndex((c) => c.startsWith('# WARNING:'));
      if (warning < 0) continue;
      expect(commands.slice(warning + 1).length).toBeGreaterThan(0);
      expect(commands.slice(warning + 1).every((c) => !c.startsWith('#'))).toBe(true);
    }
    expect(runRules(inventory, replayContext(fixture), [...rules].reverse())).toEqual(findings);
  });
});
