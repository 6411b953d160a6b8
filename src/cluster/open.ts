import type { CommandRunner } from '../util/command.js';
import { createApiClient, type ApiClient } from './api-client.js';
import { checkAccess } from './connect.js';
import { ensureKindCluster, type KindCluster, type KindRequest } from './kind.js';
import { ClusterAccessError, KubernetesApiError, transportErrorCode } from './errors.js';
import {
  describeKubeconfigOrigin,
  loadKubeconfig,
  writeKubeconfigFile,
  type KubeconfigEnvironment,
  type LoadedKubeconfig,
} from './kubeconfig.js';

/** An open connection to the cluster the settings name. */
export interface OpenCluster {
  readonly loaded: LoadedKubeconfig;
  readonly api: ApiClient;
  readonly serverVersion: string;
  /** A 0600 kubeconfig file for tools that need one (helm, kubectl). */
  readonly kubeconfigPath: string;
  /** Set when `cluster: kind`. */
  readonly kind?: KindCluster;
  /**
   * For `mode: teardown`: when its overall `timeout` ends (ms since the epoch), counted from
   * the moment the API client was made; the client never retries past it (`deadlineAt`), and the
   * teardown gets what is left of it.
   */
  readonly deadlineAt?: number;
}

export interface OpenClusterPorts {
  readonly env: KubeconfigEnvironment & { RUNNER_TEMP?: string | undefined };
  readonly commands: CommandRunner;
  /** Masks a credential in every later log line (core.setSecret in the action). */
  readonly setSecret: (value: string) => void;
  readonly log: (line: string) => void;
  /** Called as soon as a kind cluster exists, before anything else can fail (post-step state). */
  readonly onKindCluster?: (cluster: KindCluster) => void;
}

/** A short reason for a retry log line: the HTTP status, the transport error code or the error's name. */
function retryReason(error: unknown): string {
  if (error instanceof KubernetesApiError)
    return `HTTP ${error.status}${error.reason ? ` ${error.reason}` : ''}`;
  return transportErrorCode(error) ?? (error as Error)?.name ?? 'error';
}

/**
 * The settings that say which cluster to open (a part of config/settings.ts `Settings`, which
 * satisfies it, named here so that cluster/ does not import config/).
 */
export interface ClusterSettings {
  /** `existing`: use `kubeconfig`/`context`; `kind`: create (or reuse) a kind cluster. */
  readonly cluster: 'existing' | 'kind';
  /** Raw `kubeconfig` input: a path, inline YAML, base64 of either, or '' for the default chain. */
  readonly kubeconfig: string;
  /** Context to use; '' means the kubeconfig's current-context. */
  readonly context: string;
  /** What to ask kind for when `cluster` is `kind`. */
  readonly kind: KindRequest;
  /** Timeout of one API request, in ms. */
  readonly requestTimeoutMs: number;
  /**
   * The run's mode and overall `timeout` (ms): a `teardown` is bounded by it, so retries and
   * outage waits never go past the deadline it sets when the cluster is opened.
   */
  readonly mode: string;
  readonly timeoutMs: number;
}

/**
 * Gets the cluster: creates or reuses a kind cluster, or loads the kubeconfig and context;
 * masks every credential; checks that the API answers and the identity may list namespaces.
 * @throws ClusterAccessError (see cluster/errors.ts) with a message that names the fix.
 */
export async function openCluster(settings: ClusterSettings, ports: OpenClusterPorts): Promise<OpenCluster> {
  let kind: KindCluster | undefined;
  let kubeconfigInput = settings.kubeconfig;
  if (settings.cluster === 'kind') {
    kind = await ensureKindCluster(settings.kind, ports.commands);
    ports.onKindCluster?.(kind);
    ports.log(`kind cluster '${kind.name}' ${kind.created ? 'created' : 'reused'}`);
    kubeconfigInput = kind.kubeconfig;
  }
  const loaded = loadKubeconfig(kubeconfigInput, settings.context, ports.env);
  for (const secret of loaded.secrets) ports.setSecret(secret);
  // `timeout` bounds the whole teardown step: retries, outages and the scan afterwards included.
  const deadlineAt = settings.mode === 'teardown' ? Date.now() + settings.timeoutMs : undefined;
  const api = await createApiClient(loaded, {
    timeoutMs: settings.requestTimeoutMs,
    ...(deadlineAt !== undefined ? { deadlineAt } : {}),
    onDeadline: (req, error) =>
      ports.log(
        `not trying ${req.method ?? 'GET'} ${req.path} again (${retryReason(error)}): the overall timeout (${settings.timeoutMs / 1000}s) has run out`,
      ),
    onSecret: ports.setSecret,
    onTokenRenewed: (req) =>
      ports.log(
        `the API server refused the token (401) for ${req.method ?? 'GET'} ${req.path}; got a new one from the kubeconfig's credential plugin or tokenFile and sent it again`,
      ),
    onRetry: (req, n) =>
      ports.log(
        `retrying ${req.method ?? 'GET'} ${req.path} in ${n.delayMs} ms (try ${n.attempt + 1}): ${retryReason(n.error)}`,
      ),
    onOutage: (req, waited) =>
      ports.log(
        `the API server has not answered ${req.method ?? 'GET'} ${req.path} for ${Math.round(waited / 1000)} s; still trying (up to 60 s)`,
      ),
  });
  try {
    const serverVersion = await checkAccess(api, loaded.context);
    ports.log(`connected to ${loaded.server} (Kubernetes ${serverVersion}, context '${loaded.context}')`);
    // Written only once the credentials proved good: a failed connection leaves no copy behind.
    const kubeconfigPath = writeKubeconfigFile(loaded, ports.env.RUNNER_TEMP);
    return {
      loaded,
      api,
      serverVersion,
      kubeconfigPath,
      ...(kind ? { kind } : {}),
      ...(deadlineAt !== undefined ? { deadlineAt } : {}),
    };
  } catch (error) {
    await api.close();
    // The first requests prove the kubeconfig right or wrong: say which input to fix.
    if (error instanceof ClusterAccessError && settings.cluster !== 'kind') {
      throw new ClusterAccessError(
        error.problem,
        `${error.message} (server and credentials from ${describeKubeconfigOrigin(loaded.origin)}, context '${loaded.context}')`,
      );
    }
    throw error;
  }
}
