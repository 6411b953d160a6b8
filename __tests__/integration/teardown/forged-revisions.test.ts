/**
 * What `helm uninstall` reads is what kube-sweep checks (issue 36). Helm reads every record
 * labelled `owner=helm,name=<release>` in its driver's namespace, skips only what it cannot
 * decode and acts on the highest `version` of the record's JSON (helm.sh/helm pkg/storage
 * `History`, driver `Query`, pkg/action/uninstall.go). kube-sweep used to drop a record it
 * refused and check the newest one it accepted, and to file a record under its JSON name: a
 * tenant who may write Secrets (or ConfigMaps) in a scoped namespace planted a revision 2 that
 * only kube-sweep rejects (a crds/ file whose group has no dot), or a record labelled `name=r`
 * whose JSON says `zz`, naming a ClusterRole no release owns. kube-sweep checked revision 1 and
 * Helm 3 deleted the ClusterRole, verdict clean. Now each teardown is refused before any
 * change (audit log: no mutating request), naming the record, and the ClusterRole is there.
 * Built for real: records planted through the API, the teardown runs Helm 3 or Helm 4.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { userKubeconfig, withClusterRole } from '../support/identities.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
import {
  adminApiForSuite,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
} from '../support/cluster.js';
import {
  configMapRecordOf,
  recordOf,
  releaseConfigMap,
  releaseSecret,
  type RecordFiling,
} from '../support/release-records.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

type Driver = 'secret' | 'configmap';
const binaryOf = (helm: 'helm3' | 'helm4') => (helm === 'helm3' ? clusterEnv().helm3 : clusterEnv().helm4);
const clusterRole = (name: string) => `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
const roleManifest = (name: string) =>
  `---\n# Source: forged/templates/role.yaml\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\n`;
const benignManifest =
  '---\n# Source: forged/templates/config.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n';
/** A crds/ file the API server would refuse (a group without a dot), which Helm never reads on uninstall. */
const dotlessCrd =
  'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.nodot\n' +
  'spec:\n  group: nodot\n  scope: Namespaced\n  names: {plural: things, kind: Thing}\n' +
  '  versions: [{name: v1, served: true, storage: true}]\n';

/** The JSON of revision `version` of release `name` in `ns`, as Helm 3 and 4 decode it. */
function revision(
  name: string,
  ns: string,
  version: number,
  manifest: string,
  more: { crdFiles?: string[]; info?: Record<string, unknown> } = {},
) {
  return {
    name,
    namespace: ns,
    version,
    info: { status: 'deployed', description: 'Upgrade complete', ...more.info },
    chart: {
      metadata: { apiVersion: 'v2', name: 'forged', version: '0.1.0' },
      files: (more.crdFiles ?? []).map((yaml, i) => ({
        name: `crds/file-${i}.yaml`,
        data: Buffer.from(yaml).toString('base64'),
      })),
    },
    manifest,
  };
}

/** Plants the record `json` (of release `json.name`) in `ns` with `driver`, filed as `filing` says. */
async function plant(
  ns: string,
  driver: Driver,
  json: { name: string },
  filing: RecordFiling,
): Promise<void> {
  const body =
    driver === 'secret'
      ? releaseSecret(ns, json.name, recordOf(json), filing)
      : releaseConfigMap(ns, json.name, configMapRecordOf(json), filing);
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/${driver === 'secret' ? 'secrets' : 'configmaps'}`,
    body,
  });
}

/**
 * Runs a teardown with `inputs` and expects it refused before any change, its error naming
 * each of `records`, and the ClusterRole `victim` still there.
 */
async function expectRefused(inputs: Record<string, string>, records: string[], victim: string) {
  const mark = auditMark();
  const since = new Date();
  const { report, failures } = await runAction({ mode: 'teardown', 'stage-timeout': '60s', ...inputs });
  expect(report.verdict).toBe('error');
  expect(failures[0]).toMatch(/^refusing to tear down \(nothing was deleted\)/);
  for (const r of records) expect(failures[0]).toContain(r);
  expect(toolMutationsSince(mark, since)).toEqual([]);
  expect(await getOrUndefined(api, clusterRole(victim))).toBeDefined();
  return failures[0]!;
}

/** A namespace and a ClusterRole that no release owns, for `prefix`; removed by `cleanUp`. */
async function setUp(prefix: string): Promise<{ env: string; victim: string; cleanUp: () => Promise<void> }> {
  const id = uniqueName(prefix);
  const env = `${id}-env`;
  const victim = `${id}-victim`;
  await createNamespace(api, env);
  await api.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    body: { metadata: { name: victim }, rules: [] },
  });
  return {
    env,
    victim,
    cleanUp: async () => {
      await deleteIfPresent(api, clusterRole(victim));
      await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
    },
  };
}

test.each([
  ['secret', 'helm3'],
  ['secret', 'helm4'],
  ['configmap', 'helm3'],
] as const)(
  'driver %s, %s: a forged revision 2 behind a crds/ file only kube-sweep rejects is refused with its release; the ClusterRole stays',
  async (driver: Driver, helm) => {
    const { env, victim, cleanUp } = await setUp(`rev2-${driver.slice(0, 2)}-${helm}`);
    try {
      await plant(env, driver, revision('r', env, 1, benignManifest, { info: { status: 'superseded' } }), {});
      await plant(env, driver, revision('r', env, 2, roleManifest(victim), { crdFiles: [dotlessCrd] }), {
        revision: 2,
      });
      const kind = driver === 'secret' ? 'Secret' : 'ConfigMap';
      const refusal = await expectRefused(
        {
          namespaces: env,
          helm: binaryOf(helm),
          'uninstall-mode': 'helm',
          'delete-namespaces': 'false',
        },
        [
          `release r in namespace ${env} has release ${kind}s that kube-sweep refused (release ${kind} ${env}/sh.helm.release.v1.r.v2 is not a valid Helm release`,
          `helm uninstall reads every ${kind} labelled owner=helm,name=r in namespace ${env} (HELM_DRIVER=${driver})`,
        ],
        victim,
      );
      expect(refusal).toContain(`kubectl delete ${driver} -n ${env} -- sh.helm.release.v1.r.v2`);
    } finally {
      await cleanUp();
    }
  },
);

test.each(['secret', 'configmap'] as const)(
  'driver %s: a record labelled name=r whose JSON says zz is not filed under zz; the teardown of releases: ns/r is refused',
  async (driver: Driver) => {
    const { env, victim, cleanUp } = await setUp(`label-${driver.slice(0, 2)}`);
    try {
      await plant(env, driver, revision('r', env, 1, benignManifest), {});
      // Named sh.helm.release.v1.zz.v2 and labelled name=r, version=2: Helm 3 read it for r and deleted the ClusterRole.
      await plant(env, driver, revision('zz', env, 2, roleManifest(victim)), { revision: 2, nameLabel: 'r' });
      const kind = driver === 'secret' ? 'Secret' : 'ConfigMap';
      await expectRefused(
        { releases: `${env}/r`, helm: clusterEnv().helm3, 'uninstall-mode': 'helm' },
        [
          `release ${kind} ${env}/sh.helm.release.v1.zz.v2 is labelled name=r, but its record is of release zz`,
          `helm uninstall reads every ${kind} labelled owner=helm,name=r in namespace ${env}`,
        ],
        victim,
      );
    } finally {
      await cleanUp();
    }
  },
);

/**
 * The other way round: a revision 2 that kube-sweep accepts but Helm cannot decode (Go's JSON
 * reader refuses a `last_deployed` that is not a time), so `helm uninstall` skips it and acts on
 * revision 1. kube-sweep checked only revision 2; now it checks every stored revision.
 */
test('helm3: an earlier revision Helm falls back to, when it cannot decode the newest, is checked too', async () => {
  const { env, victim, cleanUp } = await setUp('fallback');
  try {
    await plant(env, 'secret', revision('r', env, 1, roleManifest(victim)), {});
    await plant(
      env,
      'secret',
      revision('r', env, 2, benignManifest, { info: { last_deployed: 'not a time' } }),
      {
        revision: 2,
      },
    );
    await expectRefused(
      { namespaces: env, helm: clusterEnv().helm3, 'uninstall-mode': 'helm', 'delete-namespaces': 'false' },
      [
        `release ${env}/r (stored revision 1) names ClusterRole ${victim} in its manifest, outside the scope, but that object is not the release's`,
      ],
      victim,
    );
  } finally {
    await cleanUp();
  }
});

/**
 * Go's JSON reader (encoding/json, which Helm 3 and 4 decode records with) matches object keys
 * to struct fields without regard to case (and folds `ſ` to `s`, `K` to `k`), the last key
 * winning; JSON.parse keeps `manifest` and `MANIFEST` as two keys. A record with a benign
 * `manifest` followed by a `MANIFEST` naming a ClusterRole was checked by its benign manifest,
 * and Helm 3 uninstalled the other: the ClusterRole was deleted, verdict clean. Now the record
 * is refused, naming the key, and its release with it.
 */
test.each([
  ['MANIFEST', 'secret'],
  ['manifeſt', 'configmap'],
] as const)(
  'helm3, key %s, driver %s: a record whose manifest key only Go reads as manifest is refused; the ClusterRole stays',
  async (key, driver: Driver) => {
    const { env, victim, cleanUp } = await setUp(`fold-${driver.slice(0, 2)}`);
    try {
      await plant(env, driver, revision('r', env, 1, benignManifest, { info: { status: 'superseded' } }), {});
      await plant(
        env,
        driver,
        { ...revision('r', env, 2, benignManifest), [key]: roleManifest(victim) },
        { revision: 2 },
      );
      const kind = driver === 'secret' ? 'Secret' : 'ConfigMap';
      await expectRefused(
        { namespaces: env, helm: clusterEnv().helm3, 'uninstall-mode': 'helm', 'delete-namespaces': 'false' },
        [
          `release ${kind} ${env}/sh.helm.release.v1.r.v2 is not a valid Helm release: its JSON has a key ${JSON.stringify(key)} that Helm reads as "manifest"`,
        ],
        victim,
      );
    } finally {
      await cleanUp();
    }
  },
);

/**
 * An identity that may delete ClusterRoles but not list them (a coverage gap): the snapshot has
 * no ClusterRoles, so the ownership check saw none, and Helm 3 deleted a ClusterRole that no
 * release owns, named by a forged record (measured: deleted, verdict leftovers). Now the plan
 * refuses an object outside the scope of a kind it could not list (plan/release-reach.ts
 * `unlistedKinds`).
 */
test('helm3: an identity that cannot list ClusterRoles is refused a release naming one outside the scope; the ClusterRole stays', async () => {
  const { env, victim, cleanUp } = await setUp('unlisted');
  const user = uniqueName('no-list-roles');
  const listable = ['namespaces', 'secrets', 'configmaps', 'roles', 'rolebindings', 'clusterrolebindings'];
  const rules = [
    { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'watch', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['*'], resources: listable, verbs: ['list'] },
  ];
  try {
    await plant(env, 'secret', revision('r', env, 1, roleManifest(victim)), {});
    await withClusterRole(api, { name: `kube-sweep-test-${user}`, user, rules }, async () => {
      await expectRefused(
        {
          namespaces: env,
          helm: clusterEnv().helm3,
          'uninstall-mode': 'helm',
          'delete-namespaces': 'false',
          kubeconfig: await userKubeconfig(user),
        },
        [
          `release ${env}/r names ClusterRole ${victim} in its manifest, outside the scope, but that object is not the release's (kube-sweep could not list ClusterRole objects`,
        ],
        victim,
      );
    });
  } finally {
    await cleanUp();
  }
});
