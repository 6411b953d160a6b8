/**
 * Refusals are results, not crashes (issue 21 item 3): when the API server refuses a DELETE of
 * kube-sweep's own (an admission policy, RBAC), the teardown records it with the server's
 * message, goes on with the rest, awaits every helm process before the run ends (and before
 * the CLI deletes the kubeconfig copy helm reads), and ends `leftovers` with a DeletionRefused
 * finding among the root causes, the summary's first screen.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { isRefusal } from '../../../src/cluster/refusal.js';
import { main } from '../../../src/cli/index.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import type { Report } from '../../../src/report/report.js';
import { waitFor } from '../../../src/util/wait.js';
import { schemaErrors } from '../../unit/support/report-schema.js';
import { runAction } from '../support/action.js';
import { recordFixture, snapshot } from '../rules/support/scenario.js';
import {
  adminApiForSuite,
  clusterEnv,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import { userKubeconfig, withClusterRole } from '../support/identities.js';
import { chart, helm4 } from '../support/widgets.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

const admission = '/apis/admissionregistration.k8s.io/v1';

/**
 * A ValidatingAdmissionPolicy (and its binding) that denies the DELETE of one object of
 * `resource` (group `group`) named `name`, with `message`; runs `fn`, then removes both.
 * Waits until the policy is in force (a dry-run DELETE is refused) before `fn`.
 */
async function withDenyDeletePolicy<T>(
  options: { name: string; group: string; resource: string; object: string; path: string; message: string },
  fn: () => Promise<T>,
): Promise<T> {
  const { name, group, resource, object, message } = options;
  await api.request({
    method: 'POST',
    path: `${admission}/validatingadmissionpolicies`,
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: [group], apiVersions: ['*'], operations: ['DELETE'], resources: [resource] },
          ],
        },
        validations: [{ expression: `oldObject.metadata.name != '${object}'`, message }],
      },
    },
  });
  try {
    await api.request({
      method: 'POST',
      path: `${admission}/validatingadmissionpolicybindings`,
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name },
        spec: { policyName: name, validationActions: ['Deny'] },
      },
    });
    // The policy is in force once the API server refuses a dry-run DELETE of the object.
    await waitFor(
      async () => {
        try {
          await api.request({ method: 'DELETE', path: options.path, query: { dryRun: 'All' } });
          return { done: false, value: 'allowed' };
        } catch (error) {
          if (isRefusal(error)) return { done: true, value: 'refused' };
          throw error;
        }
      },
      { timeoutMs: 30_000, description: `policy ${name} to be in force` },
    );
    return await fn();
  } finally {
    await deleteIfPresent(api, `${admission}/validatingadmissionpolicybindings/${name}`);
    await deleteIfPresent(api, `${admission}/validatingadmissionpolicies/${name}`);
  }
}

/**
 * A `helm` that runs the real Helm 4, but holds `helm uninstall` in namespace `slow` for
 * `seconds` first, and records whether the kubeconfig it was given still exists when it goes
 * on and when it ends (lines in the returned log file).
 */
function slowHelm(slow: string, seconds: number): { path: string; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-slow-helm-'));
  const log = join(dir, 'log');
  const path = join(dir, 'helm');
  writeFileSync(log, '');
  writeFileSync(
    path,
    `#!/bin/bash
kc=""; ns=""; args=("$@")
for ((i = 0; i < \${#args[@]}; i++)); do
  case "\${args[$i]}" in
    --kubeconfig) kc="\${args[$((i + 1))]}" ;;
    --namespace) ns="\${args[$((i + 1))]}" ;;
  esac
done
if [ "$1" = uninstall ] && [ "$ns" = '${slow}' ]; then
  echo "held $ns" >> '${log}'
  sleep ${seconds}
  if [ -f "$kc" ]; then echo "kubeconfig present $ns" >> '${log}'; else echo "kubeconfig missing $ns" >> '${log}'; fi
fi
'${clusterEnv().helm4}' "$@"; rc=$?
[ "$1" = uninstall ] && echo "ended $ns $rc" >> '${log}'
exit $rc
`,
  );
  chmodSync(path, 0o755);
  return { path, log };
}

test('an admission policy refuses the DELETE of one namespace: the other goes, every release goes, the refusal is a finding', async () => {
  const id = uniqueName('refuse');
  const kept = `${id}-kept`;
  const gone = `${id}-gone`;
  for (const ns of [kept, gone])
    expect((await helm4(['install', 'r', chart('modes'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  const message = `namespace ${kept} is kept by policy`;
  const helm = slowHelm(gone, 4);
  try {
    const { code, report } = await withDenyDeletePolicy(
      {
        name: id,
        group: '',
        resource: 'namespaces',
        object: kept,
        path: `/api/v1/namespaces/${kept}`,
        message,
      },
      async () => {
        let out = '';
        const code = await main(
          [
            'teardown',
            '--namespaces',
            `${id}-*`,
            '--kubeconfig',
            clusterEnv().kubeconfig,
            '--helm',
            helm.path,
            '--uninstall-mode',
            'helm',
            '--stage-timeout',
            '60s',
            '--output',
            'json',
          ],
          (s) => (out += s),
          () => {},
        );
        // What the slow helm recorded by the time the CLI returned.
        return { code, report: JSON.parse(out) as Report, helmLog: readFileSync(helm.log, 'utf8') };
      },
    ).then((r) => {
      // The held helm process ended before the run did, with its kubeconfig still there.
      // (The other release's helm uninstall is not held: it ends on its own, in any order.)
      const lines = r.helmLog.split('\n').filter(Boolean);
      expect(lines.filter((l) => l.endsWith(gone) || l.endsWith(`${gone} 0`))).toEqual([
        `held ${gone}`,
        `kubeconfig present ${gone}`,
        `ended ${gone} 0`,
      ]);
      expect(lines.filter((l) => l.includes(kept))).toEqual([`ended ${kept} 0`]);
      return r;
    });
    expect(code).toBe(1);
    expect(report.verdict).toBe('leftovers');
    expect(schemaErrors(report)).toEqual([]);
    const t = report.teardown!;
    expect(
      t.stages
        .flatMap((s) => s.releases)
        .map((r) => [r.release, r.status])
        .sort(),
    ).toEqual([
      [`${gone}/r`, 'uninstalled'],
      [`${kept}/r`, 'uninstalled'],
    ]);
    const namespaces = Object.fromEntries(t.namespaces.map((n) => [n.name, n]));
    expect(namespaces[gone]!.status).toBe('deleted');
    expect(namespaces[kept]!.status).toBe('refused');
    expect(namespaces[kept]!.message).toContain(message);
    expect(namespaces[kept]!.message).toMatch(/^refused \(HTTP 422 Invalid\): /);
    expect(t.refusals).toEqual([
      expect.objectContaining({
        step: 'delete-namespace',
        request: `DELETE /api/v1/namespaces/${kept}`,
        status: 422,
        message: expect.stringContaining(message),
      }),
    ]);
    recordFixture('deletion-refused', await snapshot(api), {
      scenario: "an admission policy refuses the DELETE of one of the environment's namespaces",
      names: { kept, gone },
      environmentNamespaces: [kept, gone],
      selection: { namespaces: [kept, gone], clusterObjects: [] },
      context: { refusals: t.refusals },
    });
    // The refused namespace is still there and not being deleted.
    const left = await getOrUndefined<{ metadata: { deletionTimestamp?: string } }>(
      api,
      `/api/v1/namespaces/${kept}`,
    );
    expect(left?.metadata.deletionTimestamp).toBeUndefined();
    expect(left).toBeDefined();
    const refused = report.findings!.filter((f) => f.code === 'DeletionRefused');
    expect(refused.map((f) => [f.object.name, f.severity, f.scope])).toEqual([
      [kept, 'error', 'environment'],
    ]);
    expect(refused[0]!.message).toContain(message);
    expect(report.failing).toContain(refused[0]!.key);
    // The summary's first screen, the root causes before the teardown's details, names it.
    const summary = renderMarkdown(report);
    const firstScreen = summary.slice(0, summary.indexOf('### Teardown'));
    expect(firstScreen).toContain('DeletionRefused');
  } finally {
    for (const ns of [kept, gone]) {
      await helm4(['uninstall', 'r', '-n', ns]);
      // The API server's policy cache may still hold the deleted policy for a moment.
      await waitFor(
        async () => {
          try {
            await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
            return { done: true, value: 'deleted' };
          } catch (error) {
            if (isRefusal(error)) return { done: false, value: 'still refused' };
            throw error;
          }
        },
        { timeoutMs: 30_000, description: `namespace ${ns} to be deletable again` },
      );
    }
  }
});

test('an identity that may not delete namespaces: the refusal is recorded with the RBAC message, never a crash', async () => {
  const user = uniqueName('no-ns-delete');
  const ns = uniqueName('rbac-refuse');
  expect((await helm4(['install', 'r', chart('modes'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  const rules = [
    { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
    // Everything Helm needs for this chart and its record; namespaces without delete.
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['*'] },
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['*'], verbs: ['*'] },
    {
      apiGroups: [''],
      resources: ['namespaces'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'],
    },
    { nonResourceURLs: ['/version', '/api', '/api/*', '/apis', '/apis/*'], verbs: ['get'] },
  ];
  try {
    await withClusterRole(api, { name: `kube-sweep-test-${user}`, user, rules }, async () => {
      const { report, failures, outputs } = await runAction({
        mode: 'teardown',
        namespaces: ns,
        kubeconfig: await userKubeconfig(user),
        'stage-timeout': '60s',
      });
      expect(report.verdict).toBe('leftovers');
      expect(report.error).toBeUndefined();
      const [outcome] = report.teardown!.namespaces;
      expect(outcome).toMatchObject({ name: ns, status: 'refused' });
      expect(outcome!.message).toMatch(
        new RegExp(`^refused \\(HTTP 403 Forbidden\\): .*User "${user}" cannot delete resource "namespaces"`),
      );
      // uninstall-mode auto would have removed the release with its namespace: not removed.
      const [release] = report.teardown!.stages.flatMap((s) => s.releases);
      expect(release).toMatchObject({ release: `${ns}/r`, status: 'failed', method: 'namespace' });
      expect(release!.message).toMatch(
        new RegExp(`^not removed: the deletion of namespace ${ns} was refused`),
      );
      // What kube-sweep had already deleted itself is in the record (the ClusterRole went first).
      expect(release!.message).toMatch(
        new RegExp(`; its 1 object\\(s\\) outside it were deleted \\(ClusterRole ${ns}-r-reader\\)$`),
      );
      expect(
        await getOrUndefined(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${ns}-r-reader`),
      ).toBeUndefined();
      const finding = report.findings!.find((f) => f.code === 'DeletionRefused');
      expect(finding).toMatchObject({ severity: 'error', object: { kind: 'Namespace', name: ns } });
      expect(failures[0]).toMatch(/^leftovers: /);
      expect(failures[0]).toContain('DeletionRefused');
      expect(outputs.get('stuck-namespaces')).toBe('0');
    });
  } finally {
    await helm4(['uninstall', 'r', '-n', ns]);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    await waitGone(api, `/api/v1/namespaces/${ns}`);
  }
});

test("uninstall-mode auto: a refused DELETE of a release's cluster-scoped object leaves the release and its namespace, recorded", async () => {
  const ns = uniqueName('refuse-obj');
  expect((await helm4(['install', 'r', chart('modes'), '-n', ns, '--create-namespace'])).exitCode).toBe(0);
  const role = `${ns}-r-reader`;
  const message = `ClusterRole ${role} is kept by policy`;
  try {
    await withDenyDeletePolicy(
      {
        name: ns,
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        object: role,
        path: `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`,
        message,
      },
      async () => {
        const { report } = await runAction({ mode: 'teardown', namespaces: ns, 'stage-timeout': '20s' });
        expect(report.verdict).toBe('leftovers');
        const [release] = report.teardown!.stages.flatMap((s) => s.releases);
        expect(release).toMatchObject({ release: `${ns}/r`, status: 'failed', method: 'namespace' });
        expect(release!.message).toContain(message);
        // Its namespace is kept (Helm's record is in it), so nothing else of it went.
        expect(report.teardown!.namespaces).toEqual([]);
        expect(await getOrUndefined(api, `/api/v1/namespaces/${ns}/configmaps/r-config`)).toBeDefined();
        expect(report.teardown!.refusals).toEqual([
          expect.objectContaining({
            step: 'delete-object',
            object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: role },
            environmentNamespace: ns,
            status: 422,
          }),
        ]);
        const finding = report.findings!.find((f) => f.code === 'DeletionRefused');
        expect(finding).toMatchObject({ severity: 'error', scope: 'environment', object: { name: role } });
      },
    );
  } finally {
    // The ClusterRole first, once the API server's policy cache has let the deleted policy go:
    // left behind, it would be a HelmLeftover in every later cluster-wide scan of this cluster.
    await waitFor(
      async () => {
        try {
          await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${role}`);
          return { done: true, value: 'deleted' };
        } catch (error) {
          if (isRefusal(error)) return { done: false, value: 'still refused' };
          throw error;
        }
      },
      { timeoutMs: 30_000, description: `ClusterRole ${role} to be deletable again` },
    );
    await helm4(['uninstall', 'r', '-n', ns]);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
