/**
 * Teardown scenarios from shared/cases/scenarios.md, each built for real on the local control
 * plane with Helm 4 (S02, S03, S09, S15, S16, S17).
 */
import { execa } from 'execa';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { runAction } from '../support/action.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import { clearWidgetFinalizers, startWidgetOperator } from '../support/operator.js';
import { applyWidgetCrd, chart, helm4, installOperatorAndApp, whenServed } from '../support/widgets.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

interface SecretObject {
  metadata: { labels: Record<string, string> };
}

async function releaseStatus(ns: string, name: string, revision = 1): Promise<string | undefined> {
  const s = await getOrUndefined<SecretObject>(
    api,
    `/api/v1/namespaces/${ns}/secrets/sh.helm.release.v1.${name}.v${revision}`,
  );
  return s?.metadata.labels.status;
}

test('S02: objects with an operator finalizer and no operator: the namespace is stuck and the report says why', async () => {
  const id = uniqueName('s02');
  const group = `${id}.kube-sweep.test`;
  const ns = `${id}-kafka-test`;
  await applyWidgetCrd(api, group);
  await createNamespace(api, ns);
  const finalizer = `${group}/cleanup`;
  try {
    await whenServed('the widget to be created', () =>
      api.request({
        method: 'POST',
        path: `/apis/${group}/v1/namespaces/${ns}/widgets`,
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Widget',
          metadata: { name: 't1', finalizers: [finalizer] },
        },
      }),
    );
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/services`,
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's1', finalizers: [finalizer] },
        spec: { ports: [{ port: 80 }] },
      },
    });
    const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '15s' });
    expect(report.verdict).toBe('leftovers');
    expect(report.plan!.stages).toEqual([]);
    const outcome = report.teardown!.namespaces[0]!;
    expect(outcome.status).toBe('stuck');
    const byType = Object.fromEntries(outcome.blockingConditions.map((c) => [c.type, c]));
    expect(byType.NamespaceContentRemaining).toMatchObject({
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: services. has 1 resource instances, widgets.${group} has 1 resource instances`,
    });
    expect(byType.NamespaceFinalizersRemaining).toMatchObject({
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizer} in 2 resource instances`,
    });
  } finally {
    await clearWidgetFinalizers(api, group);
    await api
      .request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}/services/s1`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      })
      .catch(() => undefined);
    await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('S03: operator and its custom resources in one namespace: CRs go first, then the operator, and it ends clean', async () => {
  const id = uniqueName('s03');
  const group = `${id}.kube-sweep.test`;
  const ns = `${id}-argocd`;
  await installOperatorAndApp(api, { group, operatorNs: ns, appNs: ns });
  const operator = startWidgetOperator(api, {
    group,
    deploymentNamespace: ns,
    deploymentName: 'widget-operator',
  });
  try {
    const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '60s' });
    expect(report.verdict).toBe('clean');
    expect(report.teardown!.stages.map((s) => s.releases.map((r) => r.release))).toEqual([
      [`${ns}/app`],
      [`${ns}/operator`],
    ]);
    expect(report.teardown!.namespaces).toEqual([expect.objectContaining({ name: ns, status: 'deleted' })]);
    expect(operator.finalized()).toBe(2);
  } finally {
    await operator.stop();
    await clearWidgetFinalizers(api, group);
    await deleteIfPresent(api, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('S09: the CRD was deleted before the release: Helm 4.3 uninstalls anyway; kube-sweep reports the order violation', async () => {
  const id = uniqueName('s09');
  const group = `${id}.kube-sweep.test`;
  const ns = `${id}-t`;
  await applyWidgetCrd(api, group);
  await whenServed('app to install', async () => {
    const r = await helm4([
      'install',
      'app',
      chart('app'),
      '-n',
      ns,
      '--create-namespace',
      '--set',
      `group=${group}`,
      '--set',
      'finalizer=false',
    ]);
    if (r.exitCode !== 0) throw new Error(r.stderr);
  });
  await api.request({
    method: 'DELETE',
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
  });
  await waitFor(
    async () => {
      const gone =
        (await getOrUndefined(
          api,
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
        )) === undefined;
      return { done: gone, value: gone };
    },
    { timeoutMs: 30_000, description: 'the CRD to be gone' },
  );
  try {
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '30s' });
    // Verified against the pinned Helm: uninstall skips the unmapped kind instead of failing.
    expect(report.teardown!.stages[0]!.releases[0]).toMatchObject({
      release: `${ns}/app`,
      status: 'uninstalled',
    });
    expect(report.teardown!.stages[0]!.unservedKinds).toEqual([`Widget.${group}/v1`]);
    expect(report.teardown!.stages[0]!.remaining).toEqual([]);
    expect(report.verdict).toBe('clean');
    expect(summary).toContain('so their CRD was deleted before the release that uses them');
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('S15: a release stuck in pending-install (helm killed) is uninstalled and reported with its status', async () => {
  const ns = uniqueName('s15');
  const env = clusterEnv();
  const install = execa(
    env.helm4,
    [
      'install',
      'slow',
      chart('slow'),
      '-n',
      ns,
      '--create-namespace',
      '--wait',
      '--timeout',
      '10m',
      '--kubeconfig',
      env.kubeconfig,
    ],
    { reject: false },
  );
  try {
    await waitFor(async () => ({ done: (await releaseStatus(ns, 'slow')) !== undefined, value: 0 }), {
      timeoutMs: 30_000,
      description: 'the release Secret to be written',
    });
    install.kill('SIGKILL');
    await install;
    expect(await releaseStatus(ns, 'slow')).toBe('pending-install');
    const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '30s' });
    expect(report.teardown!.stages[0]!.releases[0]).toMatchObject({
      release: `${ns}/slow`,
      helmStatusBefore: 'pending-install',
      status: 'uninstalled',
    });
    expect(report.verdict).toBe('clean');
  } finally {
    install.kill('SIGKILL');
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('S16: a pre-delete hook that never completes leaves the release uninstalling; the report names the failure', async () => {
  const ns = uniqueName('s16');
  const r = await helm4(['install', 'hooked', chart('hooked'), '-n', ns, '--create-namespace']);
  expect(r.exitCode).toBe(0);
  try {
    const first = await helm4(['uninstall', 'hooked', '-n', ns, '--timeout', '5s']);
    expect(first.exitCode).not.toBe(0);
    expect(await releaseStatus(ns, 'hooked')).toBe('uninstalling');
    const { report, summary } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '6s' });
    expect(report.verdict).toBe('leftovers');
    const outcome = report.teardown!.stages[0]!.releases[0]!;
    expect(outcome).toMatchObject({
      release: `${ns}/hooked`,
      status: 'failed',
      helmStatusBefore: 'uninstalling',
    });
    expect(outcome.message).toMatch(/pre-delete|hook|deadline|timed out/i);
    expect(summary).toContain('**failed**');
    // Helm stopped before deleting the release's objects. The namespace is kept, so the release
    // record survives for a rerun once the hook is fixed (the README's advice).
    expect(report.teardown!.stages[0]!.remaining.map((b) => [b.kind, b.name])).toEqual([
      ['ConfigMap', 'cfg'],
    ]);
    expect(report.teardown!.namespaces).toEqual([]);
    expect(await releaseStatus(ns, 'hooked')).toBe('uninstalling');
    // And the hook's Job, which Helm made and never deletes, is named.
    expect(report.teardown!.hookLeftovers.map((b) => [b.kind, b.namespace, b.name])).toEqual([
      ['Job', ns, 'cleanup'],
    ]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('S17: kept objects survive uninstall when the namespace stays, and vanish (with a warning first) when it goes', async () => {
  const keepNs = uniqueName('s17-keep');
  const dropNs = uniqueName('s17-drop');
  expect(
    (await helm4(['install', 'keepy', chart('keepy'), '-n', keepNs, '--create-namespace'])).exitCode,
  ).toBe(0);
  expect(
    (await helm4(['install', 'keepy', chart('keepy'), '-n', dropNs, '--create-namespace'])).exitCode,
  ).toBe(0);
  try {
    const kept = await runAction({ mode: 'teardown', namespaces: keepNs, 'delete-namespaces': 'false' });
    expect(kept.report.verdict).toBe('clean');
    expect(kept.report.teardown!.stages[0]!.kept).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: keepNs, name: 'state' },
    ]);
    expect(await getOrUndefined(api, `/api/v1/namespaces/${keepNs}/configmaps/state`)).toBeDefined();
    expect(await getOrUndefined(api, `/api/v1/namespaces/${keepNs}/configmaps/scratch`)).toBeUndefined();
    expect(kept.report.warnings).toEqual([]);

    const dropped = await runAction({ mode: 'teardown', namespaces: dropNs });
    expect(dropped.report.warnings).toEqual([
      `release ${dropNs}/keepy keeps ConfigMap ${dropNs}/state (helm.sh/resource-policy: keep), but namespace ${dropNs} is deleted too, which deletes it anyway; move it out of the namespace or set 'delete-namespaces: false'`,
    ]);
    expect(dropped.report.teardown!.namespaces).toEqual([
      expect.objectContaining({ name: dropNs, status: 'deleted' }),
    ]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${keepNs}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${dropNs}`);
  }
});
