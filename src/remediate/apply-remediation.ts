/**
 * The requests of `remediate: safe`, one action at a time in plan order. Every action is
 * logged and returns a result; an API error is a `failed` result, never thrown (the caller
 * turns failures into an `error` verdict). Never sends PUT /api/v1/namespaces/<ns>/finalize.
 */
import type { ApiClient } from '../cluster/api-client.js';
import { groupOf } from '../kube/api-version.js';
import { KubernetesApiError } from '../cluster/errors.js';
import { refusalOf } from '../cluster/refusal.js';
import { describeRefusal, type RefusedRequest } from '../kube/refusal.js';
import { collectionPath } from '../inventory/list.js';
import { waitFor, WaitTimeoutError } from '../util/wait.js';
import {
  describeAction,
  type FinalizerTarget,
  type RemediationAction,
  type RemediationResult,
} from './actions.js';

export interface ApplyOptions {
  /** How long to wait for a re-created namespace to be gone after its delete, in ms. */
  readonly namespaceWaitMs: number;
  readonly log: (line: string) => void;
}

const status = (error: unknown) => (error instanceof KubernetesApiError ? error.status : undefined);

function errorText(error: unknown): string {
  return error instanceof KubernetesApiError
    ? `HTTP ${error.status}: ${error.apiMessage}`
    : ((error as Error)?.message ?? String(error));
}

/** `/api/v1/namespaces/ns/configmaps/cm1`, `/apis/example.com/v1/namespaces/ns/widgets/w1`. */
export function objectPath(o: FinalizerTarget): string {
  const group = groupOf(o.apiVersion);
  const version = group ? o.apiVersion.slice(group.length + 1) : o.apiVersion;
  return `${collectionPath({ group, version, resource: o.resource }, o.namespace)}/${encodeURIComponent(o.name)}`;
}

async function gone(api: ApiClient, path: string): Promise<boolean> {
  try {
    await api.request({ path });
    return false;
  } catch (error) {
    if (status(error) === 404) return true;
    throw error;
  }
}

/** DELETE; 404 counts as done (already gone). */
async function remove(api: ApiClient, path: string): Promise<string> {
  try {
    await api.request({ method: 'DELETE', path });
    return 'deleted';
  } catch (error) {
    if (status(error) === 404) return 'already gone';
    throw error;
  }
}

/**
 * Removes `finalizer` from the object: reads it, then a JSON patch that `test`s the finalizer at
 * the index just read and removes only that entry. If the list changed in between, the test op
 * fails (422) and nothing is clobbered.
 */
async function removeFinalizer(api: ApiClient, target: FinalizerTarget, finalizer: string): Promise<string> {
  const path = objectPath(target);
  let current: { metadata?: { finalizers?: string[] } };
  try {
    current = await api.request({ path });
  } catch (error) {
    if (status(error) === 404) return 'already gone';
    throw error;
  }
  const index = (current.metadata?.finalizers ?? []).indexOf(finalizer);
  if (index < 0) return 'finalizer already removed';
  const at = `/metadata/finalizers/${index}`;
  try {
    await api.request({
      method: 'PATCH',
      path,
      contentType: 'application/json-patch+json',
      body: [
        { op: 'test', path: at, value: finalizer },
        { op: 'remove', path: at },
      ],
    });
  } catch (error) {
    // 404 is also what NamespaceLifecycle answers for an object whose namespace is gone
    // (`namespaces "<ns>" not found`): only a fresh GET that finds nothing means "gone".
    if (status(error) === 404 && (await gone(api, path))) return 'already gone';
    throw error;
  }
  return `removed (was at index ${index})`;
}

async function deleteNamespace(api: ApiClient, namespace: string, waitMs: number): Promise<string> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}`;
  const first = await remove(api, path);
  if (first === 'already gone') return first;
  try {
    await waitFor(
      async () => {
        try {
          await api.request({ path });
          return { done: false, value: namespace };
        } catch (error) {
          if (status(error) === 404) return { done: true, value: namespace };
          throw error;
        }
      },
      { timeoutMs: waitMs, description: `namespace ${namespace} to be gone` },
    );
    return 'deleted; the namespace controller removed its objects';
  } catch (error) {
    if (!(error instanceof WaitTimeoutError)) throw error;
    return `deletion requested; still Terminating after ${Math.round(waitMs / 1000)}s (the re-scan says what holds it)`;
  }
}

/** The object an action is about (for a refusal's record). */
function objectOf(a: RemediationAction): RefusedRequest['object'] {
  switch (a.type) {
    case 'delete-apiservice':
      return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name: a.name };
    case 'delete-webhook-configuration':
      return { apiVersion: 'admissionregistration.k8s.io/v1', kind: a.kind, name: a.name };
    case 'recreate-namespace':
    case 'delete-namespace':
      return { apiVersion: 'v1', kind: 'Namespace', name: a.namespace };
    case 'remove-finalizer': {
      const { apiVersion, kind, namespace, name } = a.object;
      return { apiVersion, kind, ...(namespace !== undefined ? { namespace } : {}), name };
    }
  }
}

function requestOf(a: RemediationAction): string {
  switch (a.type) {
    case 'delete-apiservice':
      return `DELETE /apis/apiregistration.k8s.io/v1/apiservices/${a.name}`;
    case 'delete-webhook-configuration':
      return `DELETE /apis/admissionregistration.k8s.io/v1/${a.kind.toLowerCase()}s/${a.name}`;
    case 'recreate-namespace':
      return 'POST /api/v1/namespaces';
    case 'remove-finalizer':
      return `PATCH ${objectPath(a.object)} (JSON patch: test + remove /metadata/finalizers/<index>)`;
    case 'delete-namespace':
      return `DELETE /api/v1/namespaces/${a.namespace}`;
  }
}

async function run(api: ApiClient, a: RemediationAction, options: ApplyOptions): Promise<string> {
  switch (a.type) {
    case 'delete-apiservice':
      return remove(api, `/apis/apiregistration.k8s.io/v1/apiservices/${encodeURIComponent(a.name)}`);
    case 'delete-webhook-configuration':
      return remove(
        api,
        `/apis/admissionregistration.k8s.io/v1/${a.kind.toLowerCase()}s/${encodeURIComponent(a.name)}`,
      );
    case 'recreate-namespace':
      try {
        await api.request({
          method: 'POST',
          path: '/api/v1/namespaces',
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } },
        });
        return 'created';
      } catch (error) {
        if (status(error) === 409) return 'already exists';
        throw error;
      }
    case 'remove-finalizer':
      return removeFinalizer(api, a.object, a.finalizer);
    case 'delete-namespace':
      return deleteNamespace(api, a.namespace, options.namespaceWaitMs);
  }
}

/**
 * Carries out `actions` in order, logging one line each.
 * @returns one result per action; a request that fails gives `failed` with the API's message,
 *   one the API server refuses (`isRefusal`: RBAC, admission, quota) `refused` with its answer.
 *   When re-creating a namespace fails, the finalizer removals and the delete of that
 *   namespace still run (each fails or succeeds on its own).
 * @throws ClusterAccessError when the API server cannot be reached at all.
 */
export async function applyRemediation(
  api: ApiClient,
  actions: readonly RemediationAction[],
  options: ApplyOptions,
): Promise<RemediationResult[]> {
  const results: RemediationResult[] = [];
  for (const action of actions) {
    const description = describeAction(action);
    const request = requestOf(action);
    let result: RemediationResult;
    try {
      result = { action, description, request, status: 'done', message: await run(api, action, options) };
    } catch (error) {
      if ((error as Error)?.name === 'ClusterAccessError') throw error;
      const refusal = refusalOf(error, { step: 'remediation', object: objectOf(action) });
      result = refusal
        ? { action, description, request, status: 'refused', message: describeRefusal(refusal), refusal }
        : { action, description, request, status: 'failed', message: errorText(error) };
    }
    options.log(
      `${{ done: 'done', failed: 'FAILED', refused: 'REFUSED' }[result.status]}: ${description}: ${result.message} [${request}]`,
    );
    results.push(result);
  }
  return results;
}
