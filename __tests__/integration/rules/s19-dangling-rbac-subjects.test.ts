/**
 * S19: bindings keep naming the ServiceAccounts of a deleted namespace. Built for real: namespace
 * `<id>-pr-7` with ServiceAccount `deployer`, a ClusterRole, a ClusterRoleBinding naming only
 * that account, one naming it and kube-system/default, and a RoleBinding in another namespace
 * naming it; then the namespace is deleted. The API server still grants the rights (a
 * SubjectAccessReview says so), and the rules must report the whole-binding leftovers, the
 * partly dangling binding with just its dangling subject to patch out, and, ranked below, a
 * binding to a missing account in a namespace that exists. Clean: the control plane's own
 * bindings (bootstrap bindings of kube-system controllers among them) are never reported.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { bootstrapLabel, rbacDanglingSubjectsRule } from '../../../src/rules/rbac-dangling-subjects.js';
import { createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  recordFixture,
  scenarioContext,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();
const rbac = '/apis/rbac.authorization.k8s.io/v1';

const account = (namespace: string, name: string) => ({ kind: 'ServiceAccount', namespace, name });

async function binding(
  api: ApiClient,
  namespace: string | undefined,
  name: string,
  role: string,
  subjects: unknown[],
): Promise<void> {
  const kind = namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding';
  await createObject(
    api,
    namespace === undefined ? `${rbac}/clusterrolebindings` : `${rbac}/namespaces/${namespace}/rolebindings`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects,
    },
  );
}

/** Whether the API server lets `system:serviceaccount:<ns>:<name>` list pods in `where`. */
async function canListPods(api: ApiClient, namespace: string, name: string, where: string): Promise<boolean> {
  const review = await api.request<{ status?: { allowed?: boolean } }>({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: `system:serviceaccount:${namespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
        resourceAttributes: { verb: 'list', resource: 'pods', namespace: where },
      },
    },
  });
  return review.status?.allowed === true;
}

test('S19: RBACBindingLeftover for bindings whose only subject is gone, RBACBindingDanglingSubject for the shared one', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s19');
  const ns = `${id}-pr-7`;
  const other = `${id}-other`;
  const role = `${id}-env-reader`;
  const clusterBindings = [`${id}-pr-7-deployer`, `${id}-shared-readers`];
  try {
    await createNamespace(api, ns);
    await createNamespace(api, other);
    await createObject(api, `/api/v1/namespaces/${ns}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'deployer' },
    });
    await createObject(api, `${rbac}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: role },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    });
    await binding(api, undefined, clusterBindings[0]!, role, [account(ns, 'deployer')]);
    await binding(api, undefined, clusterBindings[1]!, role, [
      account('kube-system', 'default'),
      account(ns, 'deployer'),
    ]);
    await binding(api, other, 'reads', role, [account(ns, 'deployer')]);
    await binding(api, other, 'ghost-reader', role, [account(other, 'ghost')]);
    await deleteNamespaceAndWait(api, ns);
    // The rights outlive the namespace: a namespace created again under the name inherits them.
    expect(await canListPods(api, ns, 'deployer', 'kube-system')).toBe(true);

    const inventory = await snapshot(api);
    recordFixture('s19-dangling-rbac-subjects', inventory, {
      scenario: 'S19 bindings still name ServiceAccounts of a deleted namespace',
      names: { namespace: ns, other, role, leftover: clusterBindings[0]!, shared: clusterBindings[1]! },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns, other], clusterObjects: [role, ...clusterBindings] },
    });
    const mine = findingsAbout(runRules(inventory, scenarioContext([ns])), [id]);
    expect(
      mine
        .map((f) => [
          f.code,
          f.severity,
          f.object.kind,
          `${f.object.namespace ?? ''}/${f.object.name}`,
          f.scope,
        ])
        .sort((a, b) => a[3]!.localeCompare(b[3]!)),
    ).toEqual([
      ['RBACBindingLeftover', 'warning', 'ClusterRoleBinding', `/${clusterBindings[0]}`, 'environment'],
      [
        'RBACBindingDanglingSubject',
        'warning',
        'ClusterRoleBinding',
        `/${clusterBindings[1]}`,
        'environment',
      ],
      ['RBACBindingDanglingSubject', 'info', 'RoleBinding', `${other}/ghost-reader`, 'cluster'],
      ['RBACBindingLeftover', 'warning', 'RoleBinding', `${other}/reads`, 'environment'],
    ]);
    const byName = (name: string) => mine.find((f) => f.object.name === name)!;

    const leftover = byName(clusterBindings[0]!);
    expect(leftover.message).toBe(
      `clusterrolebindings.rbac.authorization.k8s.io ${clusterBindings[0]} grants ClusterRole ${role} only to ` +
        `ServiceAccounts of namespaces that no longer exist (${ns}): a leftover of that environment, and a new ` +
        'namespace of the same name would inherit the rights',
    );
    expect(leftover.evidence).toEqual(
      expect.arrayContaining([
        `roleRef: ClusterRole ${role}`,
        `subject ServiceAccount ${ns}/deployer: namespace ${ns} does not exist`,
        `name reuse: a namespace created again as ${ns} with a ServiceAccount deployer gets these rights`,
      ]),
    );
    expect(leftover.remediation.commands).toEqual([
      `kubectl get clusterrolebindings.rbac.authorization.k8s.io ${clusterBindings[0]} -o yaml`,
      `kubectl delete clusterrolebindings.rbac.authorization.k8s.io ${clusterBindings[0]}`,
    ]);

    // The shared binding belongs to someone else: patch out just the dangling subject (index 1).
    const shared = byName(clusterBindings[1]!);
    expect(shared.evidence).toEqual(
      expect.arrayContaining([
        'subject ServiceAccount kube-system/default: not dangling',
        `subject ServiceAccount ${ns}/deployer: namespace ${ns} does not exist`,
      ]),
    );
    expect(shared.remediation.commands.at(-1)).toBe(
      `kubectl patch clusterrolebindings.rbac.authorization.k8s.io ${clusterBindings[1]} --type json -p ` +
        `'[{"op":"test","path":"/subjects/1/name","value":"deployer"},{"op":"remove","path":"/subjects/1"}]'`,
    );
    // The patch does what it says: applied as printed, it leaves kube-system/default alone.
    await api.request({
      method: 'PATCH',
      path: `${rbac}/clusterrolebindings/${clusterBindings[1]}`,
      contentType: 'application/json-patch+json',
      body: JSON.parse(/'(.*)'$/.exec(shared.remediation.commands.at(-1)!)![1]!),
    });
    const patched = await api.request<{ subjects: unknown[] }>({
      path: `${rbac}/clusterrolebindings/${clusterBindings[1]}`,
    });
    expect(patched.subjects).toEqual([{ kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' }]);

    expect(byName('ghost-reader').message).toMatch(
      /to ServiceAccounts that do not exist in namespaces that do/,
    );
  } finally {
    for (const name of clusterBindings) await deleteIfPresent(api, `${rbac}/clusterrolebindings/${name}`);
    await deleteIfPresent(api, `${rbac}/clusterroles/${role}`);
    await deleteNamespaceAndWait(api, ns);
    await deleteNamespaceAndWait(api, other);
  }
});

test('clean: the control plane’s own bindings, and a binding to a ServiceAccount that exists, are never reported', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s19-clean');
  try {
    await createNamespace(api, ns);
    await binding(api, ns, 'default-reader', 'view', [account(ns, 'default')]);
    const inventory = await snapshot(api);
    const bindings = [...inventory.full.clusterrolebindings, ...inventory.full.rolebindings] as {
      metadata: { name: string; namespace?: string; labels?: Record<string, string> };
      subjects?: { kind: string }[];
    }[];
    const own = bindings.filter(
      (b) => b.metadata.labels?.[bootstrapLabel] !== undefined || b.metadata.namespace === ns,
    );
    // The snapshot holds them, with their ServiceAccount subjects (kube-system controllers).
    expect(own.filter((b) => b.subjects?.some((s) => s.kind === 'ServiceAccount')).length).toBeGreaterThan(
      10,
    );
    const findings = runRules(
      inventory,
      { ...scenarioContext([ns]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [rbacDanglingSubjectsRule],
    );
    const names = new Set(own.map((b) => `${b.metadata.namespace ?? ''}/${b.metadata.name}`));
    expect(findings.filter((f) => names.has(`${f.object.namespace ?? ''}/${f.object.name}`))).toEqual([]);
  } finally {
    await deleteNamespaceAndWait(api, ns);
  }
});
