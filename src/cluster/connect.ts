import type { ApiClient } from './api-client.js';
import { ClusterAccessError, KubernetesApiError } from './errors.js';

/**
 * Checks that the cluster answers and the identity may read it: GET /version (401 → the
 * credentials are rejected) and a one-item namespace list (403 → the identity may not list
 * namespaces, which every mode needs).
 * @returns the server's gitVersion.
 * @throws ClusterAccessError `unauthorized`, `forbidden`, `unreachable` or `tls`.
 */
export async function checkAccess(api: ApiClient, context: string): Promise<string> {
  try {
    const version = await api.request<{ gitVersion?: string }>({ path: '/version' });
    await api.request({ path: '/api/v1/namespaces', query: { limit: 1 } });
    return version?.gitVersion ?? 'unknown';
  } catch (error) {
    if (error instanceof KubernetesApiError && error.status === 401) {
      throw new ClusterAccessError(
        'unauthorized',
        `${api.server} rejected the credentials of context '${context}' (401 Unauthorized); ` +
          'the token or client certificate is wrong or expired: refresh the kubeconfig',
      );
    }
    if (error instanceof KubernetesApiError && error.status === 403) {
      throw new ClusterAccessError(
        'forbidden',
        `the identity of context '${context}' may not list namespaces on ${api.server} (403: ${error.apiMessage}); ` +
          'bind it to the ClusterRole in rbac/ (see README, "Permissions")',
      );
    }
    throw error;
  }
}
