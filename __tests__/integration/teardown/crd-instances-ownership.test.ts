/**
 * The "instances first" step (deletecollection of the custom resources of the CRDs a release
 * ships, in the scoped namespaces, before the release goes) runs only for a CRD that is the
 * release's (plan/crd-ownership.ts, issue 36). A release record is writable by anyone who may
 * write Secrets in a scoped namespace, and its chart's crds/ files are text: one that declared
 * `ingresses.networking.k8s.io` made kube-sweep delete every Ingress of the scope (also with
 * `delete-namespaces: false`, an Ingress no release owns), verdict clean; one that named another
 * team's real CRD deleted that team's objects. Both are now refused before any change, naming
 * the file. A genuine crds/ CRD, installed by Helm 3 or 4 with no mark at all, still has its
 * instances deleted first.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { auditMark, toolMutationsSince } from '../support/audit.js';
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
import { recordOf, releaseSecret } from '../support/release-records.js';
import { chart, createWidgetCrd, waitCrdEstablished, whenServed } from '../support/widgets.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

const crdPath = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;

/** Plants a forged record of release `name` in `ns` whose chart has the crds/ file `crdFile` and whose manifest is one ConfigMap. */
const plantRelease = (ns: string, name: string, crdFile: string) =>
  api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/secrets`,
    body: releaseSecret(
      ns,
      name,
      recordOf({
        name,
        namespace: ns,
        version: 1,
        info: { status: 'deployed' },
        chart: {
          metadata: { apiVersion: 'v2', name, version: '0.1.0' },
          files: [{ name: 'crds/kind.yaml', data: Buffer.from(crdFile).toString('base64') }],
        },
        manifest: `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-config\n`,
      }),
    ),
  });

/** Runs a teardown of `env` (namespaces kept) and expects it refused before any change, naming `why`. */
async function expectRefused(env: string, why: string): Promise<void> {
  const mark = auditMark();
  const since = new Date();
  const { report, failures } = await runAction({
    mode: 'teardown',
    namespaces: env,
    'delete-namespaces': 'false',
    'stage-timeout': '60s',
  });
  expect(report.verdict).toBe('error');
  expect(failures[0]).toMatch(/^refusing to tear down \(nothing was deleted\)/);
  expect(failures[0]).toContain(why);
  expect(toolMutationsSince(mark, since)).toEqual([]);
}

test('a crds/ file declaring ingresses.networking.k8s.io is refused; an Ingress no release owns stays', async () => {
  const env = uniqueName('crd-ingress');
  await createNamespace(api, env);
  const ingress = `/apis/networking.k8s.io/v1/namespaces/${env}/ingresses/precious`;
  try {
    await api.request({
      method: 'POST',
      path: `/apis/networking.k8s.io/v1/namespaces/${env}/ingresses`,
      body: {
        metadata: { name: 'precious' },
        spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
      },
    });
    await plantRelease(
      env,
      'ing',
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ingresses.networking.k8s.io\n' +
        'spec:\n  group: networking.k8s.io\n  scope: Namespaced\n  names: {plural: ingresses, kind: Ingress}\n' +
        '  versions: [{name: v1, served: true, storage: true}]\n',
    );
    await expectRefused(
      env,
      `release ${env}/ing declares CustomResourceDefinition ingresses.networking.k8s.io in its chart file crds/kind.yaml, ` +
        `but "networking.k8s.io" is a group the API server serves itself`,
    );
    expect(await getOrUndefined(api, ingress)).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
  }
});

test("another team's CRD (marked as another release's) named in a crds/ file is refused; its objects stay", async () => {
  const id = uniqueName('crd-foreign');
  const env = `${id}-env`;
  const group = `${id}.kube-sweep.test`;
  const crd = `widgets.${group}`;
  await createNamespace(api, env);
  try {
    await createWidgetCrd(api, group);
    // Another team's release installed it from its templates: Helm's marks name that release.
    await api.request({
      method: 'PATCH',
      path: crdPath(crd),
      contentType: 'application/merge-patch+json',
      body: {
        metadata: {
          labels: { 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: { 'meta.helm.sh/release-name': 'billing', 'meta.helm.sh/release-namespace': 'team-b' },
        },
      },
    });
    await waitCrdEstablished(api, crd);
    const widgets = `/apis/${group}/v1/namespaces/${env}/widgets`;
    await whenServed(`Widget in ${env}`, () =>
      api.request({
        method: 'POST',
        path: widgets,
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'theirs' } },
      }),
    );
    await plantRelease(
      env,
      'thief',
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${crd}\n` +
        `spec:\n  group: ${group}\n  scope: Namespaced\n  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}\n` +
        '  versions: [{name: v1, served: true, storage: true}]\n',
    );
    await expectRefused(
      env,
      `release ${env}/thief declares CustomResourceDefinition ${crd} in its chart file crds/kind.yaml, but the one in the ` +
        `cluster is not the release's (its meta.helm.sh annotations name release "team-b/billing")`,
    );
    expect(await getOrUndefined(api, `${widgets}/theirs`)).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
    await deleteIfPresent(api, crdPath(crd));
  }
});

test.each(['helm3', 'helm4'] as const)(
  'a genuine crds/ CRD installed by %s (no marks) still has its instances deleted first; verdict clean',
  async (major) => {
    const env = uniqueName(`crd-own-${major}`);
    const binary = major === 'helm3' ? clusterEnv().helm3 : clusterEnv().helm4;
    const crd = 'widgets.stack.kube-sweep.test';
    try {
      const installed = await helm(binary, [
        'install',
        'st',
        chart('stack'),
        '-n',
        env,
        '--create-namespace',
      ]);
      if (installed.exitCode !== 0) throw new Error(`helm install: ${String(installed.stderr)}`);
      await waitCrdEstablished(api, crd);
      const { report, failures } = await runAction({
        mode: 'teardown',
        namespaces: env,
        helm: binary,
        'delete-namespaces': 'false',
        'stage-timeout': '60s',
      });
      expect(failures).toEqual([]);
      expect(report.verdict).toBe('clean');
      expect(report.plan!.stages.map((s) => s.crdInstancesFirst)).toEqual([[crd]]);
      expect(report.teardown!.stages[0]!.crdInstances.map((x) => [x.crd, x.remaining])).toEqual([[crd, []]]);
      expect(
        await getOrUndefined(api, `/apis/stack.kube-sweep.test/v1/namespaces/${env}/widgets/default-widget`),
      ).toBeUndefined();
    } finally {
      await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
      await deleteIfPresent(api, crdPath(crd));
      await waitGone(api, crdPath(crd));
    }
  },
);
