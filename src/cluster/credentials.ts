import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ClusterAccessError } from './errors.js';
import { runExecPlugin, type ExecConfig } from './exec-plugin.js';
import { TokenSource } from './token-source.js';

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
  /** `authorization` (a static Bearer token, or Basic) when the user entry carries one. */
  headers: Record<string, string>;
  /**
   * Where the bearer token comes from when it can change during a run (an exec plugin, a
   * `tokenFile`, an auth-provider): the API client asks it before each request and renews it
   * after a 401. Absent for static credentials.
   */
  tokenSource?: TokenSource;
}

/** Options of `resolveHttpsCredentials`. */
export interface CredentialOptions {
  /** Called with every credential obtained while running (plugin tokens and keys, tokenFile tokens), to mask it. */
  readonly onSecret?: (value: string) => void;
}

/** How often a `tokenFile` is read again, in ms (client-go's cached file token source: one minute). */
export const tokenFileRereadMs = 60_000;

/**
 * The values of a base64 PEM to mask: the base64 itself and each line of the decoded PEM
 * (8 characters or more, not the BEGIN/END lines).
 */
export function pemLines(base64: string | undefined): string[] {
  if (!base64) return [];
  const out = [base64];
  const decoded = Buffer.from(base64, 'base64').toString('utf8');
  for (const line of decoded.split('\n')) {
    const t = line.trim();
    if (t.length >= 8 && !t.startsWith('-----')) out.push(t);
  }
  return out;
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
 * Builds the TLS material and the authorization straight from the kubeconfig's cluster and user
 * entries: certificate-authority(-data), insecure-skip-tls-verify, tls-server-name,
 * client-certificate(-data), client-key(-data), token, tokenFile, username/password, and `exec`
 * credential plugins (run here, src/cluster/exec-plugin.ts). Tokens that can change during a run
 * come with a `tokenSource`: an exec plugin's token is obtained again when its
 * `expirationTimestamp` has passed or the server answers 401; a `tokenFile` is read again every
 * minute and after a 401. Only the legacy `auth-provider` is resolved by @kubernetes/client-node,
 * imported only then: loading it costs about 87 MiB of memory (docs/benchmarks.md).
 * @param pinnedYaml the kubeconfig pinned to its context (used only for auth-provider)
 * @param kubeconfigPath the file the kubeconfig came from, to resolve relative paths (loadKubeconfig
 *   has already made them absolute)
 * @throws ClusterAccessError `not-a-kubeconfig` when a named file is missing or the plugin fails.
 */
export async function resolveHttpsCredentials(
  cluster: KubeconfigCluster,
  user: KubeconfigUser | undefined,
  pinnedYaml: string,
  kubeconfigPath?: string,
  options: CredentialOptions = {},
): Promise<HttpsCredentials> {
  const onSecret = options.onSecret ?? (() => {});
  if (user?.['auth-provider'] != null && user.exec == null) return fromClientNode(pinnedYaml, onSecret);
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
  if (user?.exec != null) {
    return { ...out, ...(await execCredentials(user.exec as ExecConfig, cluster, ca, onSecret)) };
  } else if (user?.token) {
    out.headers.authorization = `Bearer ${user.token}`;
  } else if (user?.tokenFile) {
    const tokenFile = user.tokenFile;
    const read = () => {
      const token = readMaterial(undefined, tokenFile, 'tokenFile', baseDir)?.toString('utf8').trim() ?? '';
      return { token, expiresAt: Date.now() + tokenFileRereadMs };
    };
    out.tokenSource = new TokenSource(() => Promise.resolve(read()), onSecret, read());
  } else if (user?.username && user.password !== undefined) {
    out.headers.authorization = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
  }
  return out;
}

/**
 * Runs the exec plugin once now (its client certificate, if any, is used for the whole run; it
 * is not rotated) and keeps its token in a TokenSource that runs the plugin again when needed.
 */
async function execCredentials(
  exec: ExecConfig,
  cluster: KubeconfigCluster,
  ca: Buffer | undefined,
  onSecret: (value: string) => void,
): Promise<Pick<HttpsCredentials, 'cert' | 'key' | 'tokenSource'>> {
  const info = {
    server: String(cluster.server ?? ''),
    ...(cluster['tls-server-name'] ? { 'tls-server-name': cluster['tls-server-name'] } : {}),
    ...(cluster['insecure-skip-tls-verify'] ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca ? { 'certificate-authority-data': ca.toString('base64') } : {}),
  };
  const first = await runExecPlugin(exec, info);
  const out: Pick<HttpsCredentials, 'cert' | 'key' | 'tokenSource'> = {};
  if (first.clientCertificateData && first.clientKeyData) {
    out.cert = Buffer.from(first.clientCertificateData);
    out.key = Buffer.from(first.clientKeyData);
    for (const line of pemLines(Buffer.from(first.clientKeyData).toString('base64'))) onSecret(line);
  }
  if (!first.token) return out;
  const issue = async () => {
    const next = await runExecPlugin(exec, info);
    if (!next.token) {
      throw new ClusterAccessError(
        'not-a-kubeconfig',
        `the kubeconfig's exec credential plugin '${exec.command}' stopped returning a token`,
      );
    }
    return { token: next.token, ...(next.expiresAt !== undefined ? { expiresAt: next.expiresAt } : {}) };
  };
  out.tokenSource = new TokenSource(issue, onSecret, {
    token: first.token,
    ...(first.expiresAt !== undefined ? { expiresAt: first.expiresAt } : {}),
  });
  return out;
}

/**
 * The legacy `auth-provider` (gcp, azure, oidc) through @kubernetes/client-node, which refreshes
 * an expired provider token itself: the bearer token is asked of it again every minute and
 * after a 401.
 */
async function fromClientNode(
  pinnedYaml: string,
  onSecret: (value: string) => void,
): Promise<HttpsCredentials> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  type Options = {
    ca?: Buffer | string;
    cert?: Buffer | string;
    key?: Buffer | string;
    rejectUnauthorized?: boolean;
    servername?: string;
    headers?: Record<string, string>;
  };
  const apply = async (): Promise<Options> => {
    const https: Options = {};
    try {
      kc.loadFromString(pinnedYaml);
      await kc.applyToHTTPSOptions(https as never);
    } catch (error) {
      throw new ClusterAccessError(
        'not-a-kubeconfig',
        `the kubeconfig's credential plugin (auth-provider) failed: ${(error as Error).message}`,
      );
    }
    return https;
  };
  const https = await apply();
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
  const bearer = (o: Options) =>
    /^Bearer (.+)$/i.exec(
      Object.entries(o.headers ?? {}).find(([n]) => n.toLowerCase() === 'authorization')?.[1] ?? '',
    )?.[1];
  const first = bearer(https);
  if (first) {
    delete out.headers.authorization;
    const ask = async () => ({
      token: bearer(await apply()) ?? '',
      expiresAt: Date.now() + tokenFileRereadMs,
    });
    out.tokenSource = new TokenSource(ask, onSecret, {
      token: first,
      expiresAt: Date.now() + tokenFileRereadMs,
    });
  }
  return out;
}
