import type { Finding } from './findings.js';
import {
  describeWebhookMatch,
  failurePolicyOf,
  webhookConfigurations,
  type WebhookConfiguration,
} from './admission-webhooks.js';
import { buildFinding } from './finding-builder.js';
import { helmReleaseOf } from './helm-releases.js';
import { command } from './kubectl.js';
import {
  fullObjectsOf,
  refOfWhole,
  type AdmissionWebhook,
  type CustomResourceDefinitionObject,
  type ServiceReference,
} from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import { serviceBackends, servicePath, type BackendState } from './service-backends.js';

const rule = 'webhook-backend-missing';

function describeService(service: ServiceReference): string {
  return `service ${servicePath(service)}${service.port ? ` port ${service.port}` : ''}${service.path ? ` path ${service.path}` : ''}`;
}

/** A webhook whose Service backend is gone, with that Service and what is missing. */
interface BrokenWebhook {
  readonly webhook: AdmissionWebhook;
  readonly service: ServiceReference;
  readonly state: Extract<BackendState, { detail: string }>;
}

/** The webhooks of `configuration` called through a Service whose backend is gone. */
function brokenWebhooksOf(
  configuration: WebhookConfiguration,
  backend: (service: ServiceReference) => BackendState,
): BrokenWebhook[] {
  return configuration.webhooks.flatMap((webhook) => {
    const service = webhook.clientConfig?.service;
    const state = service ? backend(service) : undefined;
    return service && state && 'detail' in state ? [{ webhook, service, state }] : [];
  });
}

/**
 * Pure: the WebhookBackendMissing finding for one configuration with its broken webhooks
 * (at least one): `error` when one of them has failurePolicy Fail, `warning` otherwise.
 */
function webhookConfigurationFinding(
  configuration: WebhookConfiguration,
  broken: readonly BrokenWebhook[],
  context: RuleContext,
): Finding {
  const failing = broken.filter((b) => failurePolicyOf(b.webhook) === 'Fail');
  const type = configuration.kind.toLowerCase();
  return buildFinding(
    rule,
    'WebhookBackendMissing',
    {
      object: configuration.ref,
      namespaces: broken.map((b) => b.service.namespace),
      severity: failing.length ? 'error' : 'warning',
      message:
        `${configuration.kind} ${configuration.name}: admission webhook ` +
        broken.map((b) => `${b.webhook.name} calls ${servicePath(b.service)}`).join(', ') +
        ` whose backend is gone (${broken.map((b) => b.state.detail).join('; ')}); ` +
        (failing.length
          ? 'with failurePolicy Fail the API server rejects every request it matches'
          : 'with failurePolicy Ignore matching requests skip it'),
      evidence: broken.flatMap(({ webhook, service, state }) => [
        `webhook ${webhook.name} → ${describeService(service)}: ${state.detail}`,
        `webhook ${webhook.name} failurePolicy: ${failurePolicyOf(webhook)}`,
        ...describeWebhookMatch(webhook),
      ]),
      remediation: {
        summary:
          `Delete ${configuration.kind} ${configuration.name}, whose backend is gone (reinstall ` +
          (configuration.release
            ? `Helm release ${configuration.release.namespace}/${configuration.release.name}, which shipped it,`
            : 'the component that serves it') +
          ' if it is still wanted). Setting failurePolicy to Ignore stops it from rejecting requests meanwhile.',
        commands: [
          command('kubectl', 'get', type, configuration.name, '-o', 'yaml'),
          command('kubectl', 'delete', type, configuration.name),
          '# or keep it, but stop it from rejecting requests until its backend is back:',
          ...failing.map((b) =>
            command(
              'kubectl',
              'patch',
              type,
              configuration.name,
              '--type',
              'json',
              '-p',
              JSON.stringify([
                {
                  op: 'replace',
                  path: `/webhooks/${configuration.webhooks.indexOf(b.webhook)}/failurePolicy`,
                  value: 'Ignore',
                },
              ]),
            ),
          ),
        ],
      },
    },
    context,
  );
}

/**
 * Pure: the ConversionWebhookBackendMissing finding for a CRD whose conversion webhook calls
 * `service`, whose backend is gone (`detail` says what is missing).
 */
function conversionWebhookFinding(
  crd: CustomResourceDefinitionObject,
  service: ServiceReference,
  detail: string,
  context: RuleContext,
): Finding {
  const name = crd.metadata?.name ?? '';
  const release = helmReleaseOf(crd.metadata?.annotations);
  const versions = (crd.spec?.versions ?? []).map(
    (v) => `${v.name}${v.served ? ' served' : ''}${v.storage ? ' storage' : ''}`,
  );
  return buildFinding(
    rule,
    'ConversionWebhookBackendMissing',
    {
      object: refOfWhole('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd.metadata),
      namespaces: [service.namespace],
      message:
        `CustomResourceDefinition ${name} converts between versions through ${servicePath(service)}, ` +
        `whose backend is gone (${detail}): reading or writing its objects in a version ` +
        'other than the stored one fails, and so does deleting a namespace that holds them',
      evidence: [
        `conversion strategy Webhook → ${describeService(service)}: ${detail}`,
        `versions: ${versions.join(', ')}`,
      ],
      remediation: {
        summary:
          `Restore the conversion webhook Service ${servicePath(service)} (reinstall ` +
          (release
            ? `Helm release ${release.namespace}/${release.name}, which shipped the CRD`
            : 'its operator') +
          '). Only if every served version has the same schema, switch conversion to None.',
        commands: [
          command('kubectl', 'get', 'customresourcedefinition', name, '-o', 'yaml'),
          '# WARNING: with strategy None the API server only rewrites apiVersion; only if all served versions share one schema:',
          command(
            'kubectl',
            'patch',
            'customresourcedefinition',
            name,
            '--type',
            'merge',
            '-p',
            JSON.stringify({ spec: { conversion: { strategy: 'None', webhook: null } } }),
          ),
        ],
      },
    },
    context,
  );
}

/**
 * webhook-backend-missing: admission webhooks (ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration, admissionregistration.k8s.io/v1) and CRD conversion webhooks
 * (apiextensions.k8s.io/v1 `spec.conversion.webhook`) whose `clientConfig.service` names a
 * Service, or a namespace, that does not exist. The API server calls the webhook in-process
 * and fails with `service "<name>" not found`; with failurePolicy Fail (the v1 default) the
 * request is rejected, so such a webhook blocks writes cluster-wide, finalizer removal included
 * (scenarios S04, S05). One `WebhookBackendMissing` per configuration (severity `error` when a
 * broken webhook has failurePolicy Fail, `warning` when all are Ignore); one
 * `ConversionWebhookBackendMissing` per CRD. Webhooks called by URL, and everything when
 * Services or Namespaces could not be listed, are not judged.
 */
export const webhookBackendMissingRule: Rule = {
  name: rule,
  title: 'Admission and conversion webhooks whose backend Service is gone',
  codes: ['WebhookBackendMissing', 'ConversionWebhookBackendMissing'],
  check(inventory, context) {
    const backend = serviceBackends(inventory);
    const findings: Finding[] = [];
    for (const configuration of webhookConfigurations(inventory)) {
      const broken = brokenWebhooksOf(configuration, backend);
      if (broken.length > 0) findings.push(webhookConfigurationFinding(configuration, broken, context));
    }
    for (const crd of fullObjectsOf(inventory, 'customresourcedefinitions')) {
      const conversion = crd.spec?.conversion;
      const service = conversion?.webhook?.clientConfig?.service;
      if (conversion?.strategy !== 'Webhook' || !service) continue;
      const state = backend(service);
      if ('detail' in state) findings.push(conversionWebhookFinding(crd, service, state.detail, context));
    }
    return findings;
  },
};
