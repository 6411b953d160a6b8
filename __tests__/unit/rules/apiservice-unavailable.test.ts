import { apiServiceUnavailableRule } from '../../../src/rules/apiservice-unavailable.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

test('S01: StaleAPIService on the APIService, with its condition and missing backend', () => {
  const { fixture, inventory } = loadRecordedFixture('s01-stale-apiservice');
  const { apiService, group, service } = fixture.names;
  const findings = apiServiceUnavailableRule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    key: `StaleAPIService:apiregistration.k8s.io/v1/APIService//${apiService}`,
    code: 'StaleAPIService',
    severity: 'error',
    scope: 'cluster',
    object: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: apiService },
    message: `APIService ${apiService} is not Available (ServiceNotFound): discovery of ${group}/v1beta1 fails, so no namespace in the cluster can finish deleting`,
  });
  expect(f!.evidence).toEqual([
    expect.stringMatching(
      new RegExp(
        `^Available=False \\(ServiceNotFound\\): service/${service} in "kube-system" is not present \\(for \\d+s\\)$`,
      ),
    ),
    `backend: service kube-system/${service} port 443: service ${service} does not exist in namespace kube-system`,
    `discovery: stale GroupVersion discovery: ${group}/v1beta1`,
  ]);
  expect(f!.remediation.commands.at(-1)).toBe(`kubectl delete apiservice ${apiService}`);
  // No finalizer advice for an APIService.
  expect(f!.remediation.commands.join('\n')).not.toMatch(/finalizers/);
});

test('the local APIServices of a healthy control plane give nothing', () => {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  expect(apiServiceUnavailableRule.check(inventory, replayContext(fixture))).toEqual([]);
});

test('when Services could not be listed, the backend is not called missing', () => {
  const { fixture, inventory } = loadRecordedFixture('s01-stale-apiservice');
  const gap = withInventory(inventory, (data) => ({
    ...data,
    coverage: [...data.coverage, { resource: 'services/v1', reason: 'forbidden', message: 'forbidden' }],
  }));
  const [f] = apiServiceUnavailableRule.check(gap, replayContext(fixture));
  expect(f!.evidence[1]).toBe(`backend: service kube-system/${fixture.names.service} port 443`);
});
