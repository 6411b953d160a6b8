/**
 * S24: an app-of-apps teardown deletes the namespace Argo CD runs in. Built for real: CRD
 * `applications.argoproj.io` (v1alpha1); namespace `<id>-gitops` with the controller workloads
 * (StatefulSet argocd-application-controller, Deployment argocd-server) and three Applications
 * carrying `resources-finalizer.argocd.argoproj.io` (bootstrap, in-cluster, shop, whose
 * `status.resources` names ConfigMap web-config and Deployment web in `<id>-shop`); deleting
 * `<id>-gitops` removes the controller while the Applications wait on it, and nothing can be
 * created there any more (403). The rules must name what each Application guards (read from its
 * status by the inventory's held-objects pass), grade the removals (shop unsafe: its objects still
 * exist; the others safe: their status records nothing), and give as first action the way that
 * works without the controller, not "reinstall in place". The namespace carries the tracking id
 * of the app `in-cluster`, which lives in it: the evidence names the self-deletion, and the remedy
 * the teardown order for next time, and AppOfAppsSelfDeletion names that app as the cause. The
 * remedy is then followed for real.
 */
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import type { Finding } from '../../../src/rules/findings.js';
import { rootCausesOf } from '../../../src/report/root-causes.js';
import { waitFor } from '../../../src/util/wait.js';
import {
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  uniqueName,
  waitGone,
} from '../support/cluster.js';
import {
  adminApiForSuite,
  createCrd,
  createDeployment,
  createObject,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const argo = 'resources-finalizer.argocd.argoproj.io';
const appsPath = (ns: string) => `/apis/argoproj.io/v1alpha1/namespaces/${ns}/applications`;

/** An Application with Argo CD's cascade finalizer, destination `ns`, and `resources` as its status. */
function application(name: string, ns: string, resources: object[] = []) {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, finalizers: [argo] },
    spec: { project: 'default', destination: { server: 'https://kubernetes.default.svc', namespace: ns } },
    ...(resources.length ? { status: { resources } } : {}),
  };
}

const group = (findings: readonly Finding[], ns: string) =>
  findings.find((f) => f.key.includes(`finalizer ${argo} in namespace ${ns}`));

test('S24: the Applications outlive the Argo CD they ran in: what each guards, graded, and no reinstall in place', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s24');
  const gitops = `${id}-gitops`;
  const shop = `${id}-shop`;
  let crd: string | undefined;
  try {
    crd = await createCrd(api, {
      group: 'argoproj.io',
      plural: 'applications',
      kind: 'Application',
      versions: ['v1alpha1'],
    });
    await createNamespace(api, gitops);
    // The namespace is managed by the app `in-cluster`, which lives in it (Argo CD's tracking id).
    const tracking = `in-cluster:/Namespace:/${gitops}`;
    await api.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${gitops}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { annotations: { 'argocd.argoproj.io/tracking-id': tracking } } },
    });
    await createNamespace(api, shop);
    await createObject(api, `/apis/apps/v1/namespaces/${gitops}/statefulsets`, {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'argocd-application-controller' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'argocd-application-controller' } },
        template: {
          metadata: { labels: { app: 'argocd-application-controller' } },
          spec: { containers: [{ name: 'main', image: 'registry.invalid/argocd:1' }] },
        },
      },
    });
    await createDeployment(api, gitops, 'argocd-server', 1);
    const tracked = (kind: string, name: string) => ({
      labels: { 'app.kubernetes.io/instance': 'shop' },
      annotations: { 'argocd.argoproj.io/tracking-id': `shop:${kind}:${shop}/${name}` },
    });
    await createObject(api, `/api/v1/namespaces/${shop}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-config', ...tracked('/ConfigMap', 'web-config') },
    });
    await createObject(api, `/apis/apps/v1/namespaces/${shop}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', ...tracked('apps/Deployment', 'web') },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'main', image: 'registry.invalid/web:1' }] },
        },
      },
    });
    await createObject(api, appsPath(gitops), application('bootstrap', gitops));
    await createObject(api, appsPath(gitops), application('in-cluster', gitops));
    await createObject(
      api,
      appsPath(gitops),
      application('shop', shop, [
        { version: 'v1', kind: 'ConfigMap', namespace: shop, name: 'web-config' },
        { group: 'apps', version: 'v1', kind: 'Deployment', namespace: shop, name: 'web' },
      ]),
    );

    // The cascade reaches the namespace Argo CD runs in.
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${gitops}` });
    await waitGone(api, `/apis/apps/v1/namespaces/${gitops}/statefulsets/argocd-application-controller`);
    await waitGone(api, `/apis/apps/v1/namespaces/${gitops}/deployments/argocd-server`);
    // Argo CD cannot be reinstalled in place.
    let refused: KubernetesApiError | undefined;
    try {
      await api.request({
        method: 'POST',
        path: `/api/v1/namespaces/${gitops}/configmaps`,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm' } },
      });
    } catch (error) {
      if (!(error instanceof KubernetesApiError)) throw error;
      refused = error;
    }
    expect(refused?.status).toBe(403);
    expect(refused?.apiMessage).toContain(
      `unable to create new content in namespace ${gitops} because it is being terminated`,
    );
    const apps = await api.request<{ items: { metadata: { deletionTimestamp?: string } }[] }>({
      path: appsPath(gitops),
    });
    expect(apps.items.map((a) => a.metadata.deletionTimestamp !== undefined)).toEqual([true, true, true]);

    const inventory = await snapshot(api);
    recordFixture('s24-app-of-apps-self-deletion', inventory, {
      scenario: 'S24 an app of apps deleted with the Argo CD namespace it runs in',
      names: { gitopsNamespace: gitops, shopNamespace: shop },
      environmentNamespaces: [gitops, shop],
      selection: { namespaces: [gitops, shop], clusterObjects: [crd] },
    });
    const mine = findingsAbout(findingsOf(inventory, [gitops, shop]), [id]);
    const f = group(mine, gitops)!;
    expect(f).toBeDefined();
    expect(f.code).toBe('OperatorGoneFinalizer');
    expect(f.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${argo.replace(/\./g, '\\.')} belongs to Argo CD: it guards `)),
        `applications.argoproj.io ${gitops}/shop guards managed resource ConfigMap ${shop}/web-config (status.resources[]): still exists`,
        `applications.argoproj.io ${gitops}/shop guards managed resource apps/Deployment ${shop}/web (status.resources[]): still exists`,
        `removing ${argo} from applications.argoproj.io ${gitops}/shop: unsafe (2 of 2 guarded objects still exist)`,
        `removing ${argo} from applications.argoproj.io ${gitops}/bootstrap: safe (its status records no managed objects)`,
        `removing ${argo} from applications.argoproj.io ${gitops}/in-cluster: safe (its status records no managed objects)`,
        `namespace ${gitops} carries argocd.argoproj.io/tracking-id=${tracking}: it is managed by ` +
          `applications.argoproj.io ${gitops}/in-cluster, which lives in it, so Argo CD's own cascade deleted the ` +
          'namespace Argo CD runs in, together with the controller that had to finalize these objects',
      ]),
    );
    expect(f.remediation.summary).toContain(
      'Next time: delete the leaf Applications (cascade) and wait until they are gone, then the root app, then Argo CD itself, then its namespace',
    );
    expect(f.remediation.summary).toMatch(
      /^Delete the managed resources listed, confirm they are gone, then remove the finalizer/,
    );
    expect(f.remediation.summary).toContain(
      `Argo CD cannot come back in place, because namespace ${gitops} is Terminating`,
    );
    expect(f.remediation.summary).not.toMatch(/^(Reinstall|Scale up|Bring)/);
    const nsFinding = mine.find((x) => x.code === 'NamespaceBlockedByFinalizer' && x.object.name === gitops)!;
    expect(nsFinding.causedBy).toContain(f.key);
    // The cause has its own code, on the app that manages the namespace it lives in.
    const self = mine.filter((x) => x.code === 'AppOfAppsSelfDeletion');
    expect(self.map((x) => [x.severity, x.object.kind, x.object.namespace, x.object.name])).toEqual([
      ['error', 'Application', gitops, 'in-cluster'],
    ]);
    expect(self[0]!.evidence).toEqual(
      expect.arrayContaining([
        `namespace ${gitops} carries argocd.argoproj.io/tracking-id=${tracking}: it names applications.argoproj.io ${gitops}/in-cluster, which lives in it`,
        `applications.argoproj.io ${gitops}/shop is held by ${argo}`,
      ]),
    );
    // It is the root cause: the stuck finalizers link to it, and through them the namespace.
    expect(f.causedBy).toEqual([self[0]!.key]);
    expect(self[0]!.causedBy).toBeUndefined();
    const root = rootCausesOf(mine).causes.find((c) => c.finding.key === self[0]!.key);
    expect(root?.explains.map((x) => x.key)).toEqual(expect.arrayContaining([f.key, nsFinding.key]));

    // The remedy works: delete what shop manages, then remove the finalizers; the namespace completes.
    await deleteIfPresent(api, `/api/v1/namespaces/${shop}/configmaps/web-config`);
    await deleteIfPresent(api, `/apis/apps/v1/namespaces/${shop}/deployments/web`);
    await waitGone(api, `/apis/apps/v1/namespaces/${shop}/deployments/web`);
    for (const name of ['shop', 'bootstrap', 'in-cluster'])
      await removeFinalizers(api, `${appsPath(gitops)}/${name}`);
    await waitGone(api, `/api/v1/namespaces/${gitops}`, 90_000);
  } finally {
    for (const name of ['shop', 'bootstrap', 'in-cluster'])
      await removeFinalizers(api, `${appsPath(gitops)}/${name}`);
    await deleteNamespaceAndWait(api, gitops);
    await deleteNamespaceAndWait(api, shop);
    if (crd) {
      // Other Applications (none here) would hold the CRD: wait until it is really gone.
      await waitFor(
        async () => {
          const left = await getOrUndefined<{ items: unknown[] }>(
            api,
            '/apis/argoproj.io/v1alpha1/applications',
          );
          return { done: (left?.items.length ?? 0) === 0, value: left?.items.length };
        },
        { timeoutMs: 30_000, description: 'no Application left' },
      );
      await deleteCrdAndWait(api, crd);
    }
  }
}, 240_000);
