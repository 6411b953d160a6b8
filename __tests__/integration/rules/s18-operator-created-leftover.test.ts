/**
 * S18 (emulated, as scenarios.md says): a release `kps-…` in its own namespace, and the Service
 * `kube-system/<release>-kubelet` that prometheus-operator would have made for it (operator
 * labels, no Helm annotations). kube-sweep tears the release down; the scan after it must report
 * the Service as HelmLeftover (operator-created), severity info, tied to the environment, and
 * leave alone a look-alike labelled managed-by Helm.
 */
import { runAction } from '../support/action.js';
import { createNamespace, deleteIfPresent, uniqueName } from '../support/cluster.js';
import { chart } from '../support/widgets.js';
import { helm4Ok } from './support/helm.js';
import { adminApiForSuite, createObject, deleteNamespaceAndWait } from './support/scenario.js';

const suiteApi = adminApiForSuite();

async function service(name: string, managedBy: string) {
  await createObject(suiteApi(), '/api/v1/namespaces/kube-system/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': managedBy, 'k8s-app': 'kubelet' } },
    spec: { clusterIP: 'None', ports: [{ name: 'https-metrics', port: 10250 }] },
  });
}

test('S18: the operator-made Service of a torn-down release is HelmLeftover (operator-created)', async () => {
  const api = suiteApi();
  const release = uniqueName('kps');
  const ns = `${release}-monitoring`;
  const made = `${release}-kubelet`;
  const lookAlike = `${release}-helmish`;
  try {
    await createNamespace(api, ns);
    await helm4Ok(['install', release, chart('sample'), '-n', ns]);
    await service(made, 'prometheus-operator');
    await service(lookAlike, 'Helm');

    const { report } = await runAction({ mode: 'teardown', namespaces: ns });
    const mine = report.findings!.filter((f) => f.object.name.startsWith(release));
    expect(mine.map((f) => [f.code, f.severity, f.scope, f.object.namespace, f.object.name])).toEqual([
      ['HelmLeftover', 'info', 'environment', 'kube-system', made],
    ]);
    const [f] = mine;
    expect(f!.message).toBe(
      `Helm leftover (operator-created): services kube-system/${made} is named after Helm release ${ns}/${release}, ` +
        'which no longer exists, and was made by prometheus-operator, which no longer runs: nothing will delete it',
    );
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        'subtype: operator-created',
        `name starts with ${release}-: release ${ns}/${release} uninstalled by this teardown`,
        'labels: app.kubernetes.io/managed-by=prometheus-operator, k8s-app=kubelet',
      ]),
    );
    expect(f!.remediation.commands.at(-1)).toBe(`kubectl delete services ${made} -n kube-system`);
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/kube-system/services/${made}`);
    await deleteIfPresent(api, `/api/v1/namespaces/kube-system/services/${lookAlike}`);
    await deleteNamespaceAndWait(api, ns);
  }
}, 180_000);
