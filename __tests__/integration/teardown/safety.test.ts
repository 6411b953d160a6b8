/**
 * Safety of the teardown: when kube-sweep cannot see what it would need, it stops before
 * deleting anything; protected namespaces are never in the plan; plan and dry-run change
 * nothing, a teardown changes only its scope and never force-finalizes (from the audit log).
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { runAction } from '../support/action.js';
import {
  toolMutationsSince,
  auditEventsSince,
  auditMark,
  fromKubeSweepOrHelm,
  kubeSweepRequestsSince,
  mutatingVerbs,
  isDryRun,
} from '../support/audit.js';
import { adminApi, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { userKubeconfig, withClusterRole } from '../support/identities.js';
import { chart, helm4, installOperatorAndApp } from '../support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

async function withRelease(fn: (ns: string) => Promise<void>) {
  const ns = uniqueName('safety');
  const r = await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace']);
  if (r.exitCode !== 0) throw new Error(r.stderr);
  try {
    await fn(ns);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
}

test('a missing helm executable stops the teardown before any delete', async () => {
  expect.hasAssertions();
  await withRelease(async (ns) => {
    const mark = auditMark();
    const { report, failures } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      helm: '/nonexistent/helm',
    });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toBe(
      "input 'helm' is '/nonexistent/helm', which is not an executable on PATH; install Helm 3 or 4 in an earlier step or set 'helm' to its path (nothing was deleted)",
    );
    expect(kubeSweepRequestsSince(mark).filter((e) => mutatingVerbs.has(e.verb) && !isDryRun(e))).toEqual([]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/web-config`)).toBeDefined();
  });
});

test('an identity that may not read the release Secrets gets an error, not a blind teardown', async () => {
  expect.hasAssertions();
  await withRelease(async (ns) => {
    const user = uniqueName('no-secrets');
    const rules = [
      { apiGroups: ['*'], resources: ['namespaces', 'configmaps', 'deployments', 'services'], verbs: ['*'] },
    ];
    await withClusterRole(api, { name: `kube-sweep-test-${user}`, user, rules }, async () => {
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig: await userKubeconfig(user),
      });
      expect(report.verdict).toBe('error');
      expect(failures[0]).toMatch(
        new RegExp(
          `^could not read the Helm releases in scope, so the order is unknown; nothing was deleted: listing Helm release Secrets in namespace ${ns}: .*HTTP 403`,
        ),
      );
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    });
  });
});

test("namespaces: '*' never puts a protected namespace in the plan, and the plan says a teardown would refuse", async () => {
  const { report } = await runAction({ mode: 'plan', namespaces: '*' });
  expect(report.verdict).toBe('error');
  expect(report.error).toMatch(
    /^a teardown of this scope would refuse \(nothing was deleted\): input 'namespaces' has '\*', which has no literal character/,
  );
  expect(report.plan!.protectedMatched).toEqual(
    expect.arrayContaining(['default', 'kube-node-lease', 'kube-public', 'kube-system']),
  );
  expect(report.plan!.protectedMatched.every((n) => n.startsWith('kube-') || n === 'default')).toBe(true);
  for (const p of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) {
    expect(report.plan!.namespacesToDelete).not.toContain(p);
    expect(report.warnings).toContain(
      `namespace ${p} matched the scope but is protected: it is never deleted`,
    );
  }
});

/** Installs the operator (in `<id>-op`) and the app with two Widgets (in `<id>-app`), runs `fn`, removes both. */
async function withOperatorAndApp(
  prefix: string,
  fn: (id: string, env: { group: string; operatorNs: string; appNs: string }) => Promise<void>,
) {
  const id = uniqueName(prefix);
  const env = {
    group: `${id}.kube-sweep.test`,
    operatorNs: `${id}-op`,
    appNs: `${id}-app`,
    finalizer: false,
  };
  await installOperatorAndApp(api, env);
  try {
    await fn(id, env);
  } finally {
    await helm4(['uninstall', 'app', '-n', env.appNs]);
    await helm4(['uninstall', 'operator', '-n', env.operatorNs]);
    await deleteIfPresent(api, `/api/v1/namespaces/${env.appNs}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${env.operatorNs}`);
  }
}

test("uninstalling an operator whose CRD has instances in another team's namespace is refused", async () => {
  expect.hasAssertions();
  await withOperatorAndApp('cascade', async (id, env) => {
    const mark = auditMark();
    const { report, failures } = await runAction({ mode: 'teardown', namespaces: env.operatorNs });
    expect(report.verdict).toBe('error');
    expect(failures[0]).toMatch(
      new RegExp(
        `^refusing to tear down \\(nothing was deleted\\): release ${env.operatorNs}/operator ships CRD widgets\\.${id}\\.kube-sweep\\.test in its templates.*2 Widget object\\(s\\) outside the scope \\(${env.appNs}/w1, ${env.appNs}/w2\\)`,
      ),
    );
    expect(kubeSweepRequestsSince(mark).filter((e) => mutatingVerbs.has(e.verb) && !isDryRun(e))).toEqual([]);
    expect(
      await getOrUndefined(api, `/apis/${env.group}/v1/namespaces/${env.appNs}/widgets/w1`),
    ).toBeDefined();
  });
});

test('a release that fails to uninstall keeps its namespace (and Helm record) for a rerun', async () => {
  expect.hasAssertions();
  // A helm that answers `version` as Helm 4 does (so it passes the check before any change)
  // and fails every other command, printing nothing.
  const failingHelm = join(mkdtempSync(join(tmpdir(), 'kube-sweep-helm-')), 'helm');
  writeFileSync(failingHelm, '#!/bin/sh\nif [ "$1" = version ]; then echo v4.3.1; exit 0; fi\nexit 1\n');
  chmodSync(failingHelm, 0o755);
  await withRelease(async (ns) => {
    const { report } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      helm: failingHelm,
      'stage-timeout': '3s',
      // A release with no delete hooks in a namespace the teardown deletes needs no helm
      // uninstall under the default `auto`: make helm do the removal, to see it fail.
      'uninstall-mode': 'helm',
    });
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.stages[0]!.releases[0]).toMatchObject({
      status: 'failed',
      message: 'helm exited with code 1 and printed nothing',
    });
    expect(report.teardown!.namespaces).toEqual([]);
    expect(
      await getOrUndefined(api, `/api/v1/namespaces/${ns}/secrets/sh.helm.release.v1.web.v1`),
    ).toBeDefined();
    // Its objects are looked at once (not waited for) and named as still there, not being deleted.
    expect(report.teardown!.stages[0]!.remaining.map((b) => [b.kind, b.name, b.deletionTimestamp])).toEqual([
      ['ConfigMap', 'web-config', undefined],
      ['Deployment', 'web', undefined],
      ['Service', 'web', undefined],
    ]);
  });
});

test('objects made by Helm hooks are reported, since Helm never deletes them', async () => {
  const ns = uniqueName('hooks');
  const r = await helm4(['install', 'hk', chart('hookcr'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns });
    expect(report.verdict).toBe('leftovers');
    // Both hook objects are found (the ConfigMap before its namespace was deleted); the
    // namespace then took the ConfigMap with it, and the cluster-scoped ClusterRole stays.
    expect(report.teardown!.hookLeftovers.map((b) => [b.kind, b.name]).sort()).toEqual([
      ['ClusterRole', `${ns}-hook-role`],
      ['ConfigMap', 'hook-cm'],
    ]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
    expect(summary).toContain('Left by Helm hooks');
  } finally {
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-hook-role`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a namespace held by its own metadata.finalizers is reported with that reason', async () => {
  const ns = uniqueName('held');
  await api.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, finalizers: ['example.com/hold'] } },
  });
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '5s' });
    expect(report.verdict).toBe('leftovers');
    expect(report.teardown!.namespaces[0]).toMatchObject({
      name: ns,
      status: 'stuck',
      metadataFinalizers: ['example.com/hold'],
    });
    expect(summary).toContain("held by the namespace's own `metadata.finalizers`");
  } finally {
    await api
      .request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      })
      .catch(() => undefined);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

describe('proof of no harm, from the audit log (every client of the admin identity: kube-sweep and its helm)', () => {
  // Two environments side by side: `mine` is in scope, `theirs` has the same release name and
  // a name that a sloppy glob would catch.
  const id = uniqueName('harm');
  const mine = `${id}-a`;
  const theirs = `${id}-ab`;
  beforeAll(async () => {
    for (const ns of [mine, theirs]) {
      const r = await helm4(['install', 'web', chart('sample'), '-n', ns, '--create-namespace']);
      if (r.exitCode !== 0) throw new Error(r.stderr);
    }
  });
  afterAll(async () => {
    await helm4(['uninstall', 'web', '-n', mine]);
    await helm4(['uninstall', 'web', '-n', theirs]);
    await deleteIfPresent(api, `/api/v1/namespaces/${mine}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${theirs}`);
  });

  test.each([
    ['mode: plan', { mode: 'plan' }],
    ['mode: teardown with dry-run: true', { mode: 'teardown', 'dry-run': 'true' }],
  ])('%s sends no create, update, patch or delete', async (_what, inputs) => {
    const mark = auditMark();
    const started = new Date();
    const { report, failures, summary, outputs } = await runAction({ ...inputs, namespaces: mine });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('planned');
    expect(outputs.get('verdict')).toBe('planned');
    expect(toolMutationsSince(mark, started)).toEqual([]);
    // It did read the cluster (the audit log saw it), so "no mutation" is not "no request".
    expect(kubeSweepRequestsSince(mark).length).toBeGreaterThan(10);
    expect(report.plan!.stages.map((s) => s.releases)).toEqual([[`${mine}/web`]]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${mine}/configmaps/web-config`)).toBeDefined();
    expect(summary).not.toContain('kube-sweep: clean');
  });

  test('dry-run lists what a teardown would delete and says it was a dry run', async () => {
    const { report, summary, log } = await runAction({
      mode: 'teardown',
      'dry-run': 'true',
      namespaces: mine,
    });
    expect(report.teardown).toBeUndefined();
    expect(schemaErrors(report)).toEqual([]);
    expect(report.dryRun).toEqual({
      stages: [
        {
          index: 0,
          releases: [`${mine}/web`],
          removals: [{ release: `${mine}/web`, method: 'namespace' }],
          skipped: [],
          crdInstances: [],
          objects: [
            { apiVersion: 'v1', kind: 'ConfigMap', namespace: mine, name: 'web-config' },
            { apiVersion: 'apps/v1', kind: 'Deployment', namespace: mine, name: 'web' },
            { apiVersion: 'v1', kind: 'Service', namespace: mine, name: 'web' },
          ],
          kept: [],
        },
      ],
      namespaces: [mine],
      objectCount: 4,
    });
    expect(summary).toContain('## 📋 kube-sweep: dry run of the teardown (nothing was deleted)');
    expect(summary).toContain(
      'This was a dry run: nothing was deleted, and the environment was not checked clean.',
    );
    expect(summary).toContain(`\`Deployment ${mine}/web\``);
    expect(summary).toContain(`| 1 | \`${mine}/web\` (with its namespace) |`);
    expect(log).toContain('dry run: nothing was deleted (4 object(s) would be)');
    // With uninstall-mode helm, the plan says helm uninstall would remove it, and why.
    const helm = await runAction({
      mode: 'teardown',
      'dry-run': 'true',
      namespaces: mine,
      'uninstall-mode': 'helm',
    });
    expect(helm.report.dryRun!.stages[0]!.removals).toEqual([
      { release: `${mine}/web`, method: 'helm', reason: "'uninstall-mode: helm'" },
    ]);
  });

  test('a teardown changes only what its scope names, and never PUTs /finalize', async () => {
    const mark = auditMark();
    const started = new Date();
    const { report } = await runAction({ mode: 'teardown', namespaces: mine, 'stage-timeout': '60s' });
    expect(report.verdict).toBe('clean');
    const mutations = toolMutationsSince(mark, started);
    // The namespace's deletion and its emptying (a deletecollection per resource seen in it:
    // the release goes with its namespace), all inside the scoped namespace.
    expect(mutations.filter((e) => e.verb === 'delete').length).toBeGreaterThanOrEqual(1);
    expect(mutations.filter((e) => e.verb === 'deletecollection').length).toBeGreaterThanOrEqual(3);
    for (const e of mutations) {
      expect(e.requestURI).toMatch(new RegExp(`^/apis?/(\\w[\\w.]*/)?v1/namespaces/${mine}(/|\\?|$)`));
    }
    expect(
      auditEventsSince(mark).filter((e) => fromKubeSweepOrHelm(e) && e.requestURI.includes('/finalize')),
    ).toEqual([]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${theirs}/configmaps/web-config`)).toBeDefined();
    expect(
      await getOrUndefined(api, `/api/v1/namespaces/${theirs}/secrets/sh.helm.release.v1.web.v1`),
    ).toBeDefined();
  });
});

test('dry-run with an operator and its custom resources: the instances would go first, nothing is sent', async () => {
  expect.hasAssertions();
  await withOperatorAndApp('dry', async (id, env) => {
    const mark = auditMark();
    const started = new Date();
    const { report, failures } = await runAction({
      mode: 'teardown',
      'dry-run': 'true',
      namespaces: `${id}-*`,
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('planned');
    expect(toolMutationsSince(mark, started)).toEqual([]);
    const stages = report.dryRun!.stages;
    expect(stages.map((s) => s.releases)).toEqual([[`${env.appNs}/app`], [`${env.operatorNs}/operator`]]);
    // The Widgets go with the app's stage, while the operator still runs; each object is named
    // once, where it is first deleted, so the operator's stage does not name them again.
    const widgets = (objects: readonly { kind: string; namespace?: string; name: string }[]) =>
      objects.filter((o) => o.kind === 'Widget').map((o) => `${o.kind} ${o.namespace}/${o.name}`);
    expect(widgets(stages[0]!.objects)).toEqual([`Widget ${env.appNs}/w1`, `Widget ${env.appNs}/w2`]);
    expect(widgets(stages[1]!.crdInstances)).toEqual([]);
    expect(stages[1]!.objects.map((o) => o.kind)).toContain('CustomResourceDefinition');
    expect(report.dryRun!.namespaces).toEqual([env.appNs, env.operatorNs]);
  });
});
