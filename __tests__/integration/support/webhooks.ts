import type { ApiClient } from '../../../src/cluster/api-client.js';

/** Path of the ValidatingWebhookConfiguration `name`. */
export const webhookConfigurationPath = (name: string) =>
  `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`;

/**
 * Creates the ValidatingWebhookConfiguration `name` with one webhook `validate.<name>.example.com`
 * (failurePolicy Fail, sideEffects None, AdmissionReview v1) and the fields of `webhook`
 * (rules, clientConfig, selectors, timeoutSeconds).
 */
export async function createFailingWebhook(
  api: ApiClient,
  name: string,
  webhook: Readonly<Record<string, unknown>>,
): Promise<void> {
  await api.request({
    method: 'POST',
    path: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        {
          name: `validate.${name}.example.com`,
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          ...webhook,
        },
      ],
    },
  });
}

/**
 * Creates a ValidatingWebhookConfiguration whose backend Service's namespace (`<name>-gone`)
 * does not exist (WebhookBackendMissing, failurePolicy Fail). Harmless: it intercepts DELETE of
 * a group nobody serves (`<name>.example.com`).
 */
export async function createWebhookWithoutBackend(api: ApiClient, name: string): Promise<void> {
  await createFailingWebhook(api, name, {
    rules: [
      {
        apiGroups: [`${name}.example.com`],
        apiVersions: ['v1'],
        resources: ['things'],
        operations: ['DELETE'],
      },
    ],
    clientConfig: { service: { namespace: `${name}-gone`, name: 'backend', port: 443 } },
  });
}
