import type { ApiClient } from '../../../src/cluster/api-client.js';

/** Path of the ValidatingWebhookConfiguration `name`. */
export const webhookConfigurationPath = (name: string) =>
  `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`;

/**
 * Creates a ValidatingWebhookConfiguration whose backend Service's namespace (`<name>-gone`)
 * does not exist (WebhookBackendMissing, failurePolicy Fail). Harmless: it intercepts DELETE of
 * a group nobody serves (`<name>.example.com`).
 */
export async function createWebhookWithoutBackend(api: ApiClient, name: string): Promise<void> {
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
          rules: [
            {
              apiGroups: [`${name}.example.com`],
              apiVersions: ['v1'],
              resources: ['things'],
              operations: ['DELETE'],
            },
          ],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { namespace: `${name}-gone`, name: 'backend', port: 443 } },
        },
      ],
    },
  });
}
