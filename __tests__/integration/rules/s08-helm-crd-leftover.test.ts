/**
 * S08: Helm never deletes CRDs from a chart's crds/ folder, nor templated CRDs with
 * `helm.sh/resource-policy: keep`. Built for real with Helm 4: chart stack (crds/) leaves a CRD
 * with no Helm marker at all, which no rule can tie to a release (nothing reported); a chart
 * whose CRD template has keep leaves a CRD with the annotations of the gone release, reported as
 * HelmLeftover (crd) with its instance count per namespace.
 */
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { createNamespace, getOrUndefined, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import { helm4Ok, helmFindings, summarize, writeChart } from './support/helm.js';
import {
  adminApiForSuite,
  createObject,
  deleteCrdAndWait,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

interface Meta {
  metadata: { annotations?: Record<string, string>; labels?: Record<string, string> };
}

test('S08: a crds/ CRD left by uninstall carries no Helm marker, so it is not reported', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s08-crds');
  const crd = 'widgets.stack.kube-sweep.test';
  try {
    await helm4Ok(['install', 'st', chart('stack'), '-n', ns, '--create-namespace']);
    await helm4Ok(['uninstall', 'st', '-n', ns]);
    const left = await getOrUndefined<Meta>(
      api,
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`,
    );
    expect(left).toBeDefined();
    expect(left!.metadata.annotations).toBeUndefined();
    expect(left!.metadata.labels).toBeUndefined();
    const findings = helmFindings(findingsOf(await snapshot(api), [ns]));
    expect(findingsAbout(findings, [ns, crd])).toEqual([]);
  } finally {
    await deleteCrdAndWait(api, crd).catch((error: unknown) => {
      if (!(error instanceof KubernetesApiError && error.status === 404)) throw error;
    });
    await deleteNamespaceAndWait(api, ns);
  }
});

test('S08: a templated CRD with resource-policy keep outlives its release: HelmLeftover (crd) with its instances', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s08');
  const group = `${id}.kube-sweep.test`;
  const crd = `widgets.${group}`;
  const mon = `${id}-mon`;
  const mon2 = `${id}-mon2`;
  const other = `${id}-apps`;
  const stackB = writeChart('stack-b', {
    'templates/crd.yaml': [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      `  name: ${crd}`,
      '  annotations:',
      '    helm.sh/resource-policy: keep',
      'spec:',
      `  group: ${group}`,
      '  scope: Namespaced',
      '  names: { plural: widgets, singular: widget, kind: Widget, listKind: WidgetList }',
      '  versions:',
      '    - name: v1',
      '      served: true',
      '      storage: true',
      '      schema:',
      '        openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }',
      '',
    ].join('\n'),
  });
  try {
    await helm4Ok(['install', 'a', stackB.path, '-n', mon, '--create-namespace']);
    await createNamespace(api, other);
    await createObject(api, `/apis/${group}/v1/namespaces/${other}/widgets`, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w1' },
    });
    await helm4Ok(['uninstall', 'a', '-n', mon]);
    const reinstall = await helm4(['install', 'b', stackB.path, '-n', mon2, '--create-namespace']);
    expect(reinstall.exitCode).not.toBe(0);
    expect(String(reinstall.stderr)).toMatch(/invalid ownership metadata/);

    const inventory = await snapshot(api);
    recordFixture('s08-helm-crd-leftover', inventory, {
      scenario: 'S08 CRD templated with resource-policy keep left by uninstall',
      names: { namespace: mon, instanceNamespace: other, release: 'a', crd },
      environmentNamespaces: [mon],
      selection: { namespaces: [mon, other], clusterObjects: [crd] },
    });
    const mine = helmFindings(findingsAbout(findingsOf(inventory, [mon]), [id]));
    expect(summarize(mine)).toEqual([
      ['HelmLeftover', 'warning', 'CustomResourceDefinition', `/${crd}`, 'environment'],
    ]);
    const [f] = mine;
    expect(f!.message).toBe(
      `Helm leftover (crd): customresourcedefinitions.apiextensions.k8s.io ${crd} carries the annotations of Helm release ${mon}/a, which no longer exists; 1 instance: 1 in ${other}`,
    );
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        'subtype: crd',
        'meta.helm.sh/release-name: a',
        `meta.helm.sh/release-namespace: ${mon}`,
        'helm.sh/resource-policy: keep',
        `instances: 1 instance: 1 in ${other}`,
      ]),
    );
    expect(f!.remediation.commands.slice(-2)).toEqual([
      expect.stringMatching(/^# WARNING: deleting the CRD deletes every instance/),
      `kubectl delete customresourcedefinitions.apiextensions.k8s.io ${crd}`,
    ]);
  } finally {
    stackB.remove();
    await helm4(['uninstall', 'b', '-n', mon2]);
    await deleteCrdAndWait(api, crd).catch(() => undefined);
    for (const ns of [mon, mon2, other]) await deleteNamespaceAndWait(api, ns);
  }
});
