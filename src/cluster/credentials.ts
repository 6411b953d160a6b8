import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ClusterAccessError } from './errors.js';

/**
 * The TLS material and headers for one API server, ready for an undici `Agent`'s `connect`
 * options. Buffers hold PEM text.
 */
export interface HttpsCredentials {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** false only for `insecure-skip-tls-verify: true`. */
  rejectUnauthorized: boolean;
  /** From the cluster's `tls-server-name`. */
  servername?: string;
  /** `authorization` (Bearer token or Basic) when the user entry carries one. */
  headers: Record<string, string>;
}

/** The `cluster` map of a kubeconfig cluster entry (field names as kubectl writes them). */
export interface KubeconfigCluster {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  [key: string]: unknown;
}

/** The `user` map of a kubeconfig user entry (field names as kubectl writes them). */
export interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  exec?: unknown;
  'auth-provider'?: unknown;
  [key: string]: unknown;
}

/**
 * True when the user entry needs a credential plugin (`exec`, e.g. aws/gke/azure login
 * helpers, or the legacy `auth-provider`), which only @kubernetes/client-node implements here.
 */
export function needsCredentialPlugin(user: KubeconfigUser | undefined): boolean {
  return user?.exec != null || user?.['auth-provider'] != null;
}

/**
 * Reads one credential that a kubeconfig gives either inline (`<name>-data`, base64) or as a
 * file path (relative paths are relative to the kubeconfig file's folder, as kubectl reads
 * them; see k8s.io/client-go/tools/clientcmd/loader.go ResolveLocalPaths).
 * @throws ClusterAccessError `not-a-kubeconfig` when the named file does not exist.
 */
function readMaterial(
  data: string | undefined,
  file: string | undefined,
  field: string,
  baseDir: string | undefined,
): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  if (!file) return undefined;
  const path = isAbsolute(file) || !baseDir ? file : resolve(baseDir, file);
  if (!existsSync(path)) {
    throw new ClusterAccessError(
      'not-a-kubeconfig',
      `the kubeconfig's '${field}' names ${path}, which does not exist; fix the path or use '${field}-data'`,
    );
  }
  return readFileSync(path);
}

/**
 * Builds the TLS material and the authorization header straight from the kubeconfig's
 * cluster and user entries: certificate-authority(-data), insecure-skip-tls-verify,
 * tls-server-name, client-certificate(-data), client-key(-data), token, tokenFile,
 * username/password. Entries with `exec` or `auth-provider` are resolved by
 * @kubernetes/client-node, imported only then: loading it costs about 87 MiB of memory
 * (bench/README.md), which ordinary kubeconfigs do not pay.
 * @param pinnedYaml the kubeconfig pinned to its context (used only for credential plugins)
 * @param kubeconfigPath the file the kubeconfig came from, to resolve relative paths (loadKubeconfig
 *   has already made them absolute)
 * @throws ClusterAccessError `not-a-kubeconfig` when a named file is missing or the plugin fails.
 */
export async function resolveHttpsCredentials(
  cluster: KubeconfigCluster,
  user: KubeconfigUser | undefined,
  pinnedYaml: string,
  kubeconfigPath?: string,
): Promise<HttpsCredentials> {
  if (needsCredentialPlugin(user)) return fromClientNode(pinnedYaml);
  const baseDir = kubeconfigPath ? dirname(kubeconfigPath) : undefined;
  const out: HttpsCredentials = {
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    headers: {},
  };
  const ca = readMaterial(
    cluster['certificate-authority-data'],
    cluster['certificate-authority'],
    'certificate-authority',
    baseDir,
  );
  if (ca) out.ca = ca;
  if (cluster['tls-server-name']) out.servername = cluster['tls-server-name'];
  const cert = readMaterial(
    user?.['client-certificate-data'],
    user?.['client-certificate'],
    'client-certificate',
    baseDir,
  );
  if (cert) out.cert = cert;
  const key = readMaterial(user?.['client-key-data'], user?.['client-key'], 'client-key', baseDir);
  if (key) out.key = key;
  let token = user?.token;
  if (!token && user?.tokenFile)
    token = readMaterial(undefined, user.tokenFile, 'tokenFile', baseDir)?.toString('utf8').trim();
  if (token) out.headers.authorization = `Bearer ${token}`;
  else if (user?.username && user.password !== undefined) {
    out.headers.authorization = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
  }
  return out;
}

async function fromClientNode(pinnedYaml: string): Promise<HttpsCredentials> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  const https: {
    ca?: Buffer | string;
    cert?: Buffer | string;
    key?: Buffer | string;
    rejectUnauthorized?: boolean;
    servername?: string;
    headers?: Record<string, string>;
  } = {};
  try {
    kc.loadFromString(pinnedYaml);
    await kc.applyToHTTPSOptions(https as never);
  } catch (error) {
    throw new ClusterAccessError(
      'not-a-kubeconfig',
      `the kubeconfig's credential plugin (exec or auth-provider) failed: ${(error as Error).message}`,
    );
  }
  const buffer = (v: Buffer | string | undefined) => (v === undefined ? undefined : Buffer.from(v));
  const out: HttpsCredentials = { rejectUnauthorized: https.rejectUnauthorized ?? true, headers: {} };
  const ca = buffer(https.ca);
  const cert = buffer(https.cert);
  const key = buffer(https.key);
  if (ca) out.ca = ca;
  if (cert) out.cert = cert;
  if (key) out.key = key;
  if (https.servername) out.servername = https.servername;
  for (const [name, value] of Object.entries(https.headers ?? {})) out.headers[name.toLowerCase()] = value;
  return out;
}
