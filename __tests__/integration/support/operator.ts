import type { ApiClient } from '../../../src/cluster/api-client.js';
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { getOrUndefined } from './cluster.js';

interface WidgetList {
  items: {
    metadata: { namespace: string; name: string; finalizers?: string[]; deletionTimestamp?: string };
  }[];
}
interface DeploymentObject {
  metadata: { deletionTimestamp?: string };
}

/**
 * A live "operator" for tests (no kubelet runs real pods here): a loop outside the cluster
 * that removes `<group>/cleanup` from Widgets being deleted, but only while its Deployment
 * exists and is not being deleted. Once the Deployment goes, it stops for good, as a real
 * operator would, and the finalizers it owns stay (scenarios S02/S03).
 */
export function startWidgetOperator(
  api: ApiClient,
  options: { group: string; deploymentNamespace: string; deploymentName: string; intervalMs?: number },
): { stop: () => Promise<void>; finalized: () => number; stopped: () => boolean } {
  let running = true;
  let gone = false;
  let count = 0;
  const finalizer = `${options.group}/cleanup`;
  const loop = (async () => {
    while (running) {
      const deployment = await getOrUndefined<DeploymentObject>(
        api,
        `/apis/apps/v1/namespaces/${options.deploymentNamespace}/deployments/${options.deploymentName}`,
      ).catch(() => undefined);
      if (!deployment || deployment.metadata.deletionTimestamp) {
        gone = true;
        return;
      }
      try {
        const list = await api.request<WidgetList>({ path: `/apis/${options.group}/v1/widgets` });
        for (const w of list.items) {
          if (!w.metadata.deletionTimestamp || !w.metadata.finalizers?.includes(finalizer)) continue;
          await api.request({
            method: 'PATCH',
            path: `/apis/${options.group}/v1/namespaces/${w.metadata.namespace}/widgets/${w.metadata.name}`,
            contentType: 'application/merge-patch+json',
            body: { metadata: { finalizers: w.metadata.finalizers.filter((f) => f !== finalizer) } },
          });
          count++;
        }
      } catch (error) {
        if (!(error instanceof KubernetesApiError)) throw error; // 404 while the CRD goes: keep looping
      }
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 200));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
    finalized: () => count,
    stopped: () => gone,
  };
}

/** Removes every finalizer from every Widget of `group` (test cleanup). 404s are ignored. */
export async function clearWidgetFinalizers(api: ApiClient, group: string): Promise<void> {
  let list: WidgetList;
  try {
    list = await api.request<WidgetList>({ path: `/apis/${group}/v1/widgets` });
  } catch {
    return;
  }
  for (const w of list.items) {
    await api
      .request({
        method: 'PATCH',
        path: `/apis/${group}/v1/namespaces/${w.metadata.namespace}/widgets/${w.metadata.name}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { finalizers: null } },
      })
      .catch(() => undefined);
  }
}
