import { nameTokens } from '../../../src/rules/finalizer-controllers.js';
import { helmLeftoverRule } from '../../../src/rules/helm-leftover.js';
import {
  loadRecordedFixture,
  replayContext,
  withDeployment,
  withInventory,
} from './support/recorded-fixture.js';

test('nameTokens: the distinctive words of a managed-by label', () => {
  expect(nameTokens('prometheus-operator')).toEqual(['prometheus']);
  expect(nameTokens('Helm')).toEqual([]);
  expect(nameTokens('cert-manager')).toEqual(['cert']);
});

test('operator-created: only for a removed release, outside its namespace, when its operator does not run', () => {
  const { fixture, inventory } = loadRecordedFixture('s17-helm-kept');
  const ns = fixture.names.namespace!;
  const made = {
    apiVersion: 'v1',
    kind: 'Service',
    resource: 'services',
    namespace: 'kube-system',
    name: 'keepy-kubelet',
    uid: 'u-made',
    creationTimestamp: '2020-01-01T00:00:00Z',
    labels: { 'app.kubernetes.io/managed-by': 'prometheus-operator' },
  };
  const withMade = withInventory(inventory, (d) => ({ ...d, objects: [...d.objects, made] }));
  const operatorCreated = (inv: typeof inventory, removed: { namespace: string; name: string }[]) =>
    helmLeftoverRule
      .check(inv, replayContext(fixture, { removedReleases: removed }))
      .filter((f) => f.evidence.includes('subtype: operator-created'))
      .map((f) => [f.severity, f.scope, f.object.name]);
  expect(operatorCreated(withMade, [{ namespace: ns, name: 'keepy' }])).toEqual([
    ['info', 'environment', 'keepy-kubelet'],
  ]);
  // Not known to be removed, or inside the release's own namespace: nothing.
  expect(operatorCreated(withMade, [])).toEqual([]);
  expect(operatorCreated(withMade, [{ namespace: 'kube-system', name: 'keepy' }])).toEqual([]);
  // A Deployment that looks like prometheus-operator runs: nothing.
  const operator = (availableReplicas: number) =>
    withDeployment(withMade, 'monitoring', 'prometheus-operator', availableReplicas);
  expect(operatorCreated(operator(1), [{ namespace: ns, name: 'keepy' }])).toEqual([]);
  // Scaled to zero, or none available: it does not run, so it counts for nothing.
  expect(operatorCreated(operator(0), [{ namespace: ns, name: 'keepy' }])).toEqual([
    ['info', 'environment', 'keepy-kubelet'],
  ]);
});
