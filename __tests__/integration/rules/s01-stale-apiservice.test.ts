/**
 * S01: an aggregated APIService without its backend blocks every namespace deletion. Built for
 * real: the APIService (variant A: no Service), an empty namespace deleted; the rules must name
 * the APIService (StaleAPIService) and link the namespace to it.
 */
import { findingKey } from '../../../src/rules/findings.js';
import {
  createNamespace,
  deleteIfPresent,
  uniqueName,
  waitGone,
  createApiServiceWithoutBackend,
} from '../support/cluster.js';
import {
  adminApiForSuite,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S01: StaleAPIService, and the Terminating namespace is linked to it', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s01');
  const group = `${id}.metrics.kube-sweep.test`;
  const apiService = `v1beta1.${group}`;
  const service = `metrics-server-${id}`;
  const ns = `${id}-empty`;
  const apiServicePath = `/apis/apiregistration.k8s.io/v1/apiservices/${apiService}`;
  await createApiServiceWithoutBackend(api, { group, version: 'v1beta1', serviceName: service });
  try {
    await waitForCondition(api, apiServicePath, 'Available', 'False');
    await createNamespace(api, ns);
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
    await waitForCondition(api, `/api/v1/namespaces/${ns}`, 'NamespaceDeletionDiscoveryFailure');

    const inventory = await snapshot(api);
    recordFixture('s01-stale-apiservice', inventory, {
      scenario: 'S01 Unavailable aggregated API blocks every namespace deletion (variant A: no Service)',
      names: { apiService, group, service, namespace: ns },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [apiService] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);

    expect(mine.map((f) => [f.code, f.object.kind, f.object.name, f.scope])).toEqual([
      ['NamespaceBlockedByDiscovery', 'Namespace', ns, 'environment'],
      ['StaleAPIService', 'APIService', apiService, 'cluster'],
    ]);
    const [blocked, stale] = mine;
    expect(stale!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Available=False \(ServiceNotFound\): /),
        `backend: service kube-system/${service} port 443: service ${service} does not exist in namespace kube-system`,
      ]),
    );
    expect(blocked!.evidence).toContain(`${group}/v1beta1: stale GroupVersion discovery: ${group}/v1beta1`);
    expect(blocked!.causedBy).toEqual([
      findingKey('StaleAPIService', {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        name: apiService,
      }),
    ]);
    expect(blocked!.remediation.commands).toContain(`kubectl delete apiservice ${apiService}`);
  } finally {
    await deleteIfPresent(api, apiServicePath);
    await waitGone(api, apiServicePath);
  }
  // Without the broken APIService the namespace controller finishes.
  await waitGone(api, `/api/v1/namespaces/${ns}`, 90_000);
});
