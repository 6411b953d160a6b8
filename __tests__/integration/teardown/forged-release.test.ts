/**
 * A release record forged by a tenant who may write Secrets in a namespace that is torn down
 * (issue 21), on the real control plane: its manifest names a ClusterRole that is not the
 * release's (no Helm ownership marks), and its pre-delete hook would create a ClusterRoleBinding
 * to cluster-admin. Under `uninstall-mode: auto` kube-sweep would have deleted the ClusterRole
 * itself, and under `helm` Helm 3 would, and `helm uninstall` would have created the binding
 * with kube-sweep's identity. Both teardowns are refused before any change (audit log: no
 * mutating request), the ClusterRole is still there and no binding exists. A real release's own
 * ClusterRole, installed by Helm, still goes (uninstall-mode.test.ts).
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { UnsafeRequestPathError } from '../../../src/cluster/errors.js';
import { runAction } from '../support/action.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
import { recordOf, releaseSecret } from '../support/release-records.js';
import {
  adminApi,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

const clusterRole = (name: string) => `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
const binding = (name: string) => `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`;

/** Runs a teardown with `inputs` and expects it refused before any change, its error containing `why`. */
async function expectRefusedTeardown(inputs: Record<string, string>, why: string): Promise<void> {
  const mark = auditMark();
  const since = new Date();
  const { report, failures } = await runAction({ mode: 'teardown', 'stage-timeout': '30s', ...inputs });
  expect(report.verdict).toBe('error');
  expect(failures[0]).toContain(why);
  expect(toolMutationsSince(mark, since)).toEqual([]);
}

/** Plants a forged record of release `name` (revision 1, deployed) holding `manifest` in namespace `env`. */
const plantRecord = (env: string, name: string, manifest: string) =>
  api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${env}/secrets`,
    body: releaseSecret(
      env,
      name,
      recordOf({ name, namespace: env, version: 1, info: { status: 'deployed' }, manifest }),
    ),
  });

test.each(['auto', 'helm'])(
  'uninstall-mode %s: a forged record naming a foreign ClusterRole, and a hook binding cluster-admin, are refused; nothing changes',
  async (mode) => {
    const id = uniqueName('forged');
    const env = `${id}-env`;
    const victim = `${id}-victim`;
    const escalation = `${id}-escalation`;
    await createNamespace(api, env);
    await api.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      body: { metadata: { name: victim }, rules: [] },
    });
    const role = `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${victim}\n`;
    const hook =
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${escalation}\n` +
      'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\n' +
      `subjects: [{kind: ServiceAccount, name: default, namespace: ${env}}]\n`;
    const info = { status: 'deployed' };
    const post = (body: unknown) =>
      api.request({ method: 'POST', path: `/api/v1/namespaces/${env}/secrets`, body });
    const record = (name: string, release: Record<string, unknown>) =>
      releaseSecret(env, name, recordOf({ name, namespace: env, version: 1, info, ...release }));
    await post(record('sysrel', { manifest: `---\n# Source: sysrel/templates/role.yaml\n${role}` }));
    await post(
      record('hooky', {
        manifest: '',
        hooks: [
          {
            name: escalation,
            kind: 'ClusterRoleBinding',
            path: 'hooky/templates/hook.yaml',
            manifest: hook,
            events: ['pre-delete'],
          },
        ],
      }),
    );
    try {
      const mark = auditMark();
      const since = new Date();
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: env,
        'uninstall-mode': mode,
        'stage-timeout': '30s',
      });
      expect(report.verdict).toBe('error');
      expect(failures[0]).toMatch(/^refusing to tear down \(nothing was deleted\)/);
      expect(failures[0]).toContain(
        `release ${env}/sysrel names ClusterRole ${victim} in its manifest, outside the scope, but that object is not ` +
          "the release's (it has no meta.helm.sh/release-name and release-namespace annotations)",
      );
      expect(failures[0]).toContain(
        `release ${env}/hooky has a pre-delete hook (hooky/templates/hook.yaml) that creates ClusterRoleBinding ` +
          `${escalation}, a cluster-scoped object`,
      );
      expect(toolMutationsSince(mark, since)).toEqual([]);
      expect(await getOrUndefined(api, clusterRole(victim))).toBeDefined();
      expect(await getOrUndefined(api, binding(escalation))).toBeUndefined();
      expect(await getOrUndefined(api, `/api/v1/namespaces/${env}`)).toBeDefined();
    } finally {
      await deleteIfPresent(api, binding(escalation));
      await deleteIfPresent(api, clusterRole(victim));
      await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
    }
  },
);

/**
 * Names and apiVersions from a record go into API paths (a tester's findings, session 9): a
 * ConfigMap named `.` in another namespace made kube-sweep send `DELETE …/configmaps/.`, which URL
 * resolution turns into the collection's DELETE (every ConfigMap of that namespace went), and a
 * Namespace of apiVersion `/v1` slipped past the Namespace refusal (written for `v1`) and was
 * to be deleted. Such a record is refused as invalid; the teardown of the scope goes on and
 * nothing outside it changes.
 */
test.each([
  [
    'a ConfigMap named "."',
    (victim: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "."\n  namespace: ${victim}\n`,
  ],
  [
    'a Namespace of apiVersion "/v1"',
    (victim: string) => `apiVersion: /v1\nkind: Namespace\nmetadata:\n  name: ${victim}\n`,
  ],
])(
  'a forged record naming %s outside the scope is refused; nothing outside the scope changes',
  async (_what, object) => {
    const id = uniqueName('forged-path');
    const env = `${id}-env`;
    const victim = `${id}-victim`;
    await createNamespace(api, env);
    await createNamespace(api, victim);
    const precious = ['db-password', 'app-settings'];
    for (const name of precious)
      await api.request({
        method: 'POST',
        path: `/api/v1/namespaces/${victim}/configmaps`,
        body: { metadata: { name }, data: { k: 'v' } },
      });
    const manifest = `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n---\n${object(victim)}`;
    await plantRecord(env, 'dotty', manifest);
    try {
      const mark = auditMark();
      const since = new Date();
      const { report } = await runAction({ mode: 'teardown', namespaces: env, 'stage-timeout': '30s' });
      expect(JSON.stringify(report.warnings ?? report)).toContain(
        `release Secret ${env}/sh.helm.release.v1.dotty.v1 is not a valid Helm release`,
      );
      // Every change kube-sweep made was inside the scope: the env namespace and its content.
      const outside = toolMutationsSince(mark, since).filter(
        (e) => !e.requestURI.startsWith(`/api/v1/namespaces/${env}`),
      );
      expect(outside.map((e) => `${e.verb} ${e.requestURI}`)).toEqual([]);
      const left = await api.request<{ items: { metadata: { name: string } }[] }>({
        path: `/api/v1/namespaces/${victim}/configmaps`,
      });
      expect(left.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(precious));
      const ns = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
        api,
        `/api/v1/namespaces/${victim}`,
      );
      expect(ns?.metadata.deletionTimestamp).toBeUndefined();
    } finally {
      await deleteIfPresent(api, `/api/v1/namespaces/${victim}`);
      await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
    }
  },
);

test('no request with a dot segment is ever sent: the client refuses it before the server sees it', async () => {
  const ns = uniqueName('dot-path');
  await createNamespace(api, ns);
  try {
    await api.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/configmaps`,
      body: { metadata: { name: 'precious' }, data: { k: 'v' } },
    });
    for (const name of ['.', '%2e', '']) {
      await expect(
        api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}/configmaps/${name}` }),
      ).rejects.toThrow(UnsafeRequestPathError);
    }
    expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/precious`)).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});

/**
 * Helm 3 splits a manifest at every line that starts with `---` before it reads YAML
 * (pkg/releaseutil/manifest.go `SplitManifests`); a YAML reader of the whole text sees `---#x: "`
 * as a key whose quoted value hides the indented lines after it. A second tester planted a
 * ClusterRole there: kube-sweep saw one ConfigMap, and Helm 3 deleted the ClusterRole. kube-sweep now
 * reads manifests as Helm splits them, so the ownership check sees the ClusterRole and refuses.
 */
test('a ClusterRole hidden from a YAML reader but not from Helm 3 is seen, and the teardown refused', async () => {
  const id = uniqueName('forged-split');
  const env = `${id}-env`;
  const victim = `${id}-role`;
  await createNamespace(api, env);
  await api.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: { metadata: { name: victim }, rules: [] },
  });
  const manifest =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n---#x: "\n' +
    ` apiVersion: rbac.authorization.k8s.io/v1\n kind: ClusterRole\n metadata:\n   name: ${victim}\n #"\n`;
  await plantRecord(env, 'split', manifest);
  try {
    await expectRefusedTeardown(
      { namespaces: env, 'uninstall-mode': 'helm', helm: clusterEnv().helm3 },
      `release ${env}/split names ClusterRole ${victim} in its manifest, outside the scope, but that object is not the release's`,
    );
    expect(await getOrUndefined(api, clusterRole(victim))).toBeDefined();
  } finally {
    await deleteIfPresent(api, clusterRole(victim));
    await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
  }
});

/**
 * An Event is served under two groups, and the snapshot lists it under the core group only: a
 * record naming an events.k8s.io Event in another namespace was never found in the snapshot, so
 * its ownership was never checked, and kube-sweep deleted it (a second tester's finding).
 */
test('an events.k8s.io Event outside the scope that is not the release is found and the teardown refused', async () => {
  const id = uniqueName('forged-event');
  const env = `${id}-env`;
  const victim = `${id}-victim`;
  await createNamespace(api, env);
  await createNamespace(api, victim);
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${victim}/events`,
    body: {
      metadata: { name: 'evidence' },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: victim, name: 'any' },
      reason: 'Audit',
      message: 'keep me',
      type: 'Normal',
    },
  });
  const manifest = `apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: evidence\n  namespace: ${victim}\n`;
  await plantRecord(env, 'ev', manifest);
  try {
    await expectRefusedTeardown(
      { namespaces: env },
      `release ${env}/ev names Event ${victim}/evidence in its manifest, outside the scope`,
    );
    expect(await getOrUndefined(api, `/api/v1/namespaces/${victim}/events/evidence`)).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${victim}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
  }
});
