import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command } from './kubectl.js';
import { conditionOf, fullObjectsOf, refOfWhole, type APIServiceObject } from './kubernetes-objects.js';
import { describeCondition } from './namespace-conditions.js';
import type { Rule, RuleContext } from './rule.js';
import { serviceBackends, servicePath } from './service-backends.js';
import { formatDuration, ageSeconds } from './snapshot-views.js';

const rule = 'apiservice-unavailable';

/** One unavailable aggregated APIService, as the rule reads it. */
interface StaleApiService {
  readonly object: APIServiceObject;
  readonly name: string;
  readonly groupVersion: string;
  readonly service: NonNullable<NonNullable<APIServiceObject['spec']>['service']>;
}

/** The aggregated APIServices whose `Available` condition is False, in snapshot order. */
function staleApiServices(inventory: Parameters<Rule['check']>[0]): StaleApiService[] {
  return fullObjectsOf(inventory, 'apiservices').flatMap((object) => {
    const service = object.spec?.service;
    if (!service || conditionOf(object.status?.conditions, 'Available')?.status !== 'False') return [];
    return [
      {
        object,
        name: object.metadata?.name ?? '',
        groupVersion: `${object.spec?.group ?? ''}/${object.spec?.version ?? ''}`,
        service,
      },
    ];
  });
}

const apiServiceRef = (a: StaleApiService) =>
  refOfWhole('apiregistration.k8s.io/v1', 'APIService', a.object.metadata);

/**
 * The `NamespaceDeletionWillHang` finding of one environment namespace that exists and is not
 * being deleted yet, while `stale` APIServices are unavailable: a teardown that deletes it
 * hangs in Terminating (NamespaceDeletionDiscoveryFailure) until they are fixed or deleted.
 * The linker (link.ts) links it to their `StaleAPIService` findings.
 */
function willHangFinding(
  namespace: { metadata?: { name?: string; uid?: string } },
  stale: readonly StaleApiService[],
  describe: (a: StaleApiService) => string,
  context: RuleContext,
): Finding {
  const name = namespace.metadata?.name ?? '';
  const list = stale.map(describe).join('; ');
  return buildFinding(
    rule,
    'NamespaceDeletionWillHang',
    {
      object: refOfWhole('v1', 'Namespace', namespace.metadata),
      message:
        `Deleting namespace ${name} will hang in Terminating: the namespace controller cannot discover ` +
        `${list}, and it finishes no namespace until discovery is complete`,
      evidence: stale.map((a) => `not Available: ${describe(a)}`),
      remediation: {
        summary:
          `Restore the backend of ${stale.map((a) => `APIService ${a.name} (service ${servicePath(a.service)})`).join(' and ')}, ` +
          `or delete the APIService if its API is no longer wanted, before deleting namespace ${name}. ` +
          'Otherwise the namespace stays Terminating until then; do not clear its finalizers.',
        commands: stale.flatMap((a) => [
          command('kubectl', 'get', 'apiservice', a.name, '-o', 'yaml'),
          '# if the API is no longer wanted:',
          command('kubectl', 'delete', 'apiservice', a.name),
        ]),
      },
    },
    context,
  );
}

/**
 * apiservice-unavailable: an aggregated APIService (apiregistration.k8s.io/v1, with
 * `spec.service`) whose `Available` condition is False. kube-apiserver's availability
 * controller (k8s.io/kube-aggregator/pkg/controllers/status) sets the reasons ServiceNotFound,
 * MissingEndpoints, ServiceAccessError or FailedDiscoveryCheck. Discovery of its group-version
 * then fails, and the namespace controller refuses to finish any namespace until discovery is
 * complete (scenario S01: it cannot prove the namespace empty), so one such APIService blocks
 * every namespace deletion in the cluster. Reported at once, without a threshold: the blocking
 * starts as soon as the condition is False. Local APIServices (no `spec.service`) are skipped.
 * While one is unavailable, each namespace of the environment that exists and is not being
 * deleted yet gets `NamespaceDeletionWillHang` (linked to the StaleAPIService findings), so that
 * a plan or dry run says before anything is deleted that the namespace deletion will hang.
 */
export const apiServiceUnavailableRule: Rule = {
  name: rule,
  title: 'Aggregated APIServices that are not Available',
  codes: ['StaleAPIService', 'NamespaceDeletionWillHang'],
  check(inventory, context) {
    const backend = serviceBackends(inventory);
    const stale = staleApiServices(inventory);
    const describe = (a: StaleApiService) => {
      const state = backend(a.service);
      const reason = conditionOf(a.object.status?.conditions, 'Available')?.reason ?? 'no reason';
      return (
        `${a.groupVersion} (APIService ${a.name}, ${reason}: service ${servicePath(a.service)}` +
        ('detail' in state ? `, ${state.detail}` : '') +
        ')'
      );
    };
    const findings: Finding[] = [];
    for (const a of stale) {
      const { object: apiService, name, groupVersion, service } = a;
      const available = conditionOf(apiService.status?.conditions, 'Available')!;
      const state = backend(service);
      const since = ageSeconds(available.lastTransitionTime, context.now);
      findings.push(
        buildFinding(
          rule,
          'StaleAPIService',
          {
            object: apiServiceRef(a),
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
                command('kubectl', 'get', 'service', service.name ?? '', '-n', service.namespace ?? ''),
                command(
                  'kubectl',
                  'get',
                  'endpointslices',
                  '-n',
                  service.namespace ?? '',
                  '-l',
                  `kubernetes.io/service-name=${service.name ?? ''}`,
                ),
                '# if the API is no longer wanted:',
                command('kubectl', 'delete', 'apiservice', name),
              ],
            },
          },
          context,
        ),
      );
    }
    if (stale.length === 0) return findings;
    for (const namespace of fullObjectsOf(inventory, 'namespaces'))
      if (
        context.environmentNamespaces.has(namespace.metadata?.name ?? '') &&
        !namespace.metadata?.deletionTimestamp
      )
        findings.push(willHangFinding(namespace, stale, describe, context));
    return findings;
  },
};
