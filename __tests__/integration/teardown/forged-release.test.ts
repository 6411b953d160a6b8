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
import { runAction } from '../support/action.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
import { recordOf, releaseSecret } from '../support/release-records.js';
import {
  adminApi,
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
