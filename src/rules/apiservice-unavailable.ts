import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { conditionOf, fullObjectsOf, refOfWhole } from './kubernetes-objects.js';
import { describeCondition } from './namespace-conditions.js';
import type { Rule } from './rule.js';
import { serviceBackends, servicePath } from './service-backends.js';
import { formatDuration, ageSeconds } from './snapshot-views.js';

const rule = 'apiservice-unavailable';

/**
 * apiservice-unavailable: an aggregated APIService (apiregistration.k8s.io/v1, with
 * `spec.service`) whose `Available` condition is False. kube-apiserver's availability
 * controller (k8s.io/kube-aggregator/pkg/controllers/status) sets the reasons ServiceNotFound,
 * MissingEndpoints, ServiceAccessError or FailedDiscoveryCheck. Discovery of its group-version
 * then fails, and the namespace controller refuses to finish any namespace until discovery is
 * complete (scenario S01: it cannot prove the namespace empty), so one such APIService blocks
 * every namespace deletion in the cluster. Reported at once, without a threshold: the blocking
 * starts as soon as the condition is False. Local APIServices (no `spec.service`) are skipped.
 */
export const apiServiceUnavailableRule: Rule = {
  name: rule,
  title: 'Aggregated APIServices that are not Available',
  codes: ['StaleAPIService'],
  check(inventory, context) {
    const backend = serviceBackends(inventory);
    const findings: Finding[] = [];
    for (const apiService of fullObjectsOf(inventory, 'apiservices')) {
      const service = apiService.spec?.service;
      const available = conditionOf(apiService.status?.conditions, 'Available');
      if (!service || available?.status !== 'False') continue;
      const name = apiService.metadata?.name ?? '';
      const groupVersion = `${apiService.spec?.group ?? ''}/${apiService.spec?.version ?? ''}`;
      const state = backend(service);
      const since = ageSeconds(available.lastTransitionTime, context.now);
      findings.push(
        buildFinding(
          rule,
          'StaleAPIService',
          {
            object: refOfWhole('apiregistration.k8s.io/v1', 'APIService', apiService.metadata),
            namespaces: [service.namespace],
            message:
              `APIService ${name} is not Available (${available.reason ?? 'no reason'}): discovery of ` +
              `${groupVersion} fails, so no namespace in the cluster can finish deleting`,
            evidence: [
              describeCondition(available) + (since !== undefined ? ` (for ${formatDuration(since)})` : ''),
              `backend: service ${servicePath(service)}${service.port ? ` port ${service.port}` : ''}` +
                ('detail' in state ? `: ${state.detail}` : state.state === 'present' ? ' exists' : ''),
              ...inventory.failedGroupVersions
                .filter((f) => f.groupVersion === groupVersion)
                .map((f) => `discovery: ${f.message}`),
            ],
            remediation: {
              summary:
                `Restore the backend (service ${servicePath(service)} and the pods behind it). If the API is no ` +
                'longer wanted, delete the APIService: its objects live in the extension server, not in this ' +
                "cluster's etcd. Do not clear the finalizers of the namespaces it blocks.",
              commands: [
                `kubectl get service ${service.name ?? ''} -n ${service.namespace ?? ''}`,
                `kubectl get endpointslices -n ${service.namespace ?? ''} -l kubernetes.io/service-name=${service.name ?? ''}`,
                '# if the API is no longer wanted:',
                `kubectl delete apiservice ${name}`,
              ],
            },
          },
          context,
        ),
      );
    }
    return findings;
  },
};
