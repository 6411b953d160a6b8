/**
 * Releases of Helm's configmap storage driver (`HELM_DRIVER=configmap helm install ...`): the
 * plan reads their ConfigMap records, `helm uninstall` finds them (kube-sweep runs it with
 * HELM_DRIVER=configmap), `uninstall-mode: auto` removes them with their namespace, and their
 * cluster-scoped objects go too. A release name with records in both drivers is refused before
 * any change; a HELM_DRIVER in kube-sweep's own environment does not send the uninstall of a
 * Secret release to the wrong storage. Chart `modes`: ConfigMap `<release>-config` and
 * ClusterRole `<namespace>-<release>-reader`.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { runAction } from '../support/action.js';
import { auditMark, kubeSweepRequestsSince, toolMutationsSince } from '../support/audit.js';
import {
  adminApiForSuite,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  helm,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import { userKubeconfig, withClusterRole } from '../support/identities.js';
import { chart } from '../support/widgets.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

const binaryOf = (helmMajor: 'helm4' | 'helm3') =>
  helmMajor === 'helm4' ? clusterEnv().helm4 : clusterEnv().helm3;
const clusterRole = (ns: string) => `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-r-reader`;
const record = (ns: string, resource: 'configmaps' | 'secrets') =>
  `/api/v1/namespaces/${ns}/${resource}/sh.helm.release.v1.r.v1`;

/** Installs chart `modes` as release `r` in `ns` (created) with `driver`, or throws with helm's stderr. */
async function install(binary: string, ns: string, driver: 'configmap' | 'secret'): Promise<void> {
  const r = await helm(binary, ['install', 'r', chart('modes'), '-n', ns, '--create-namespace'], {
    HELM_DRIVER: driver,
  });
  if (r.exitCode !== 0) throw new Error(`helm install (${driver}): ${String(r.stderr)}`);
}

async function cleanUp(ns: string): Promise<void> {
  await deleteIfPresent(api, clusterRole(ns));
  await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
}

test.each([
  ['helm4', 'helm', false],
  ['helm3', 'helm', false],
  ['helm4', 'namespace', true],
] as const)(
  'a configmap-driver release (%s) is removed by %s: its objects, ClusterRole and record go, verdict clean',
  async (helmMajor, mode, deleteNamespaces) => {
    const ns = uniqueName(`cmdrv-${helmMajor}-${mode}`);
    const binary = binaryOf(helmMajor);
    await install(binary, ns, 'configmap');
    try {
      expect(await getOrUndefined(api, record(ns, 'configmaps'))).toBeDefined();
      expect(await getOrUndefined(api, record(ns, 'secrets'))).toBeUndefined();
      const { report, failures, log } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        helm: binary,
        'uninstall-mode': mode === 'helm' ? 'helm' : 'auto',
        'delete-namespaces': String(deleteNamespaces),
        'stage-timeout': '60s',
      });
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
      const releases = report.teardown!.stages.flatMap((s) => s.releases);
      expect(releases.map((r) => [r.release, r.status, r.method, r.helmDriver])).toEqual([
        [`${ns}/r`, 'uninstalled', mode, mode === 'helm' ? 'configmap' : undefined],
      ]);
      // What it said first, and the report's shape.
      expect(log).toContain(
        `blast radius: releases it would remove: ${ns}/r (${mode === 'helm' ? 'HELM_DRIVER=configmap helm uninstall' : 'with its namespace'})`,
      );
      expect(report.plan!.blastRadius!.releases).toEqual([
        { release: `${ns}/r`, method: mode, helmDriver: 'configmap' },
      ]);
      expect(schemaErrors(report)).toEqual([]);
      expect(await getOrUndefined(api, clusterRole(ns))).toBeUndefined();
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/r-config`)).toBeUndefined();
      // The record went: helm uninstall deleted it (the namespace stays), or it went with its namespace.
      expect(await getOrUndefined(api, record(ns, 'configmaps'))).toBeUndefined();
      if (deleteNamespaces) expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeUndefined();
      else expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    } finally {
      await cleanUp(ns);
    }
  },
);

test('a release name with records in both drivers in one namespace is refused before any change', async () => {
  const ns = uniqueName('cmdrv-both');
  const binary = clusterEnv().helm4;
  await install(binary, ns, 'secret');
  // The same name again with the configmap driver: to Helm a second release (it adopts the objects).
  await install(binary, ns, 'configmap');
  try {
    const mark = auditMark();
    const since = new Date();
    const { report, failures } = await runAction({ mode: 'teardown', namespaces: ns });
    expect(report.verdict).toBe('error');
    expect(report.error).toContain(
      `release r in namespace ${ns} has records of both Helm storage drivers: ` +
        `Secret ${ns}/sh.helm.release.v1.r.v1 (revision 1, deployed) and ConfigMap ${ns}/sh.helm.release.v1.r.v1 (revision 1, deployed)`,
    );
    expect(report.error).toContain(
      `(helm uninstall -n ${ns} -- r, or HELM_DRIVER=configmap helm uninstall -n ${ns} -- r)`,
    );
    expect(failures).toEqual([expect.stringContaining('refusing to tear down (nothing was deleted)')]);
    // Nothing was changed: no mutating request of kube-sweep or of a helm it ran; everything is there.
    expect(toolMutationsSince(mark, since)).toEqual([]);
    for (const path of [record(ns, 'secrets'), record(ns, 'configmaps'), clusterRole(ns)])
      expect(await getOrUndefined(api, path)).toBeDefined();
  } finally {
    await cleanUp(ns);
  }
});

test("HELM_DRIVER=configmap in kube-sweep's own environment does not break the uninstall of a Secret release", async () => {
  const ns = uniqueName('cmdrv-env');
  await install(clusterEnv().helm4, ns, 'secret');
  const before = process.env.HELM_DRIVER;
  process.env.HELM_DRIVER = 'configmap';
  try {
    const { report, failures } = await runAction({
      mode: 'teardown',
      namespaces: ns,
      'uninstall-mode': 'helm',
      'delete-namespaces': 'false',
      'stage-timeout': '60s',
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');
    expect(report.teardown!.stages.flatMap((s) => s.releases).map((r) => [r.release, r.status])).toEqual([
      [`${ns}/r`, 'uninstalled'],
    ]);
    expect(await getOrUndefined(api, record(ns, 'secrets'))).toBeUndefined();
    expect(await getOrUndefined(api, clusterRole(ns))).toBeUndefined();
  } finally {
    if (before === undefined) delete process.env.HELM_DRIVER;
    // eslint-disable-next-line require-atomic-updates -- restores what this test changed, nothing else writes it
    else process.env.HELM_DRIVER = before;
    await cleanUp(ns);
  }
});

test('clean negative: a namespace with only ordinary ConfigMaps holds no release, and its ConfigMaps are not listed again', async () => {
  const ns = uniqueName('cmdrv-none');
  await createNamespace(api, ns);
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { release: 'x' } },
  });
  try {
    const mark = auditMark();
    const { report } = await runAction({ mode: 'plan', namespaces: ns });
    expect(report.verdict).toBe('planned');
    expect(report.plan!.releases).toEqual([]);
    expect(report.plan!.refusals ?? []).toEqual([]);
    expect((report.findings ?? []).filter((f) => f.code.startsWith('Helm'))).toEqual([]);
    // The snapshot saw no release ConfigMap there, so the plan sent no ConfigMap list for it.
    expect(
      kubeSweepRequestsSince(mark).filter((e) =>
        e.requestURI.startsWith(`/api/v1/namespaces/${ns}/configmaps`),
      ),
    ).toEqual([]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    await waitGone(api, `/api/v1/namespaces/${ns}`);
  }
});

test('a configmap-driver record that does not decode is refused like a Secret one: not used, one HelmReleaseRecordInvalid', async () => {
  const ns = uniqueName('cmdrv-bad');
  await createNamespace(api, ns);
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: {
      metadata: {
        name: 'sh.helm.release.v1.cm.v1',
        labels: { owner: 'helm', name: 'cm', status: 'deployed', version: '1' },
      },
      data: { release: '%%% not base64 of gzip %%%' },
    },
  });
  try {
    const { report } = await runAction({ mode: 'plan', namespaces: ns });
    expect(report.verdict).toBe('planned');
    expect(report.plan!.releases).toEqual([]);
    expect(report.warnings).toContain(
      `release ConfigMap ${ns}/sh.helm.release.v1.cm.v1 could not be decoded: it is not base64 of gzipped JSON; ` +
        'it is not used (finding HelmReleaseRecordInvalid)',
    );
    expect(
      (report.findings ?? [])
        .filter((f) => f.code === 'HelmReleaseRecordInvalid')
        .map((f) => [f.object.kind, f.object.namespace, f.object.name]),
    ).toEqual([['ConfigMap', ns, 'sh.helm.release.v1.cm.v1']]);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

test('an identity that may read release Secrets but not ConfigMaps gets an error, not a teardown blind to configmap-driver releases', async () => {
  expect.hasAssertions();
  const ns = uniqueName('cmdrv-nocm');
  await createNamespace(api, ns);
  const user = uniqueName('no-configmaps');
  const rules = [
    { apiGroups: ['*'], resources: ['namespaces', 'secrets', 'deployments', 'services'], verbs: ['*'] },
  ];
  try {
    await withClusterRole(api, { name: `kube-sweep-test-${user}`, user, rules }, async () => {
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig: await userKubeconfig(user),
      });
      expect(report.verdict).toBe('error');
      expect(failures[0]).toMatch(
        new RegExp(
          `^could not read the Helm releases in scope, so the order is unknown; nothing was deleted: listing Helm release ConfigMaps in namespace ${ns}: .*HTTP 403`,
        ),
      );
      expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}`)).toBeDefined();
    });
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
