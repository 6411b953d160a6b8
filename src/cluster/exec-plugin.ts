import { execFile } from 'node:child_process';
import { ClusterAccessError } from './errors.js';

/**
 * The `exec` map of a kubeconfig user entry (client.authentication.k8s.io; field names as
 * kubectl writes them). See k8s.io/client-go/tools/clientcmd/api/v1 ExecConfig.
 */
export interface ExecConfig {
  command?: string;
  args?: string[];
  env?: { name: string; value: string }[] | null;
  apiVersion?: string;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

/** What the plugin gets in KUBERNETES_EXEC_INFO `spec.cluster` when `provideClusterInfo` is set. */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'certificate-authority-data'?: string;
}

/** What one run of the plugin gave: a bearer token and/or a client certificate (PEM). */
export interface ExecCredentialResult {
  readonly token?: string;
  /** `status.expirationTimestamp` in ms since the epoch; undefined when the plugin gives none. */
  readonly expiresAt?: number;
  readonly clientCertificateData?: string;
  readonly clientKeyData?: string;
}

const supportedVersions = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** How long one run of the plugin may take, in ms. */
const pluginTimeoutMs = 60_000;

function pluginError(command: string, why: string, hint?: string): ClusterAccessError {
  return new ClusterAccessError(
    'not-a-kubeconfig',
    `the kubeconfig's exec credential plugin '${command}' ${why}` + (hint ? ` (${hint})` : ''),
  );
}

/**
 * Runs an exec credential plugin once, as client-go does
 * (k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go): no shell, the process environment plus
 * `exec.env`, and KUBERNETES_EXEC_INFO holding an ExecCredential with `spec.interactive: false`
 * (a run in CI has no terminal), plus `spec.cluster` when `provideClusterInfo` is set. The
 * output must be an ExecCredential of the configured apiVersion with a token or a certificate
 * and key pair.
 * @throws ClusterAccessError `not-a-kubeconfig` naming the command when the configuration is
 *   incomplete, the plugin needs a terminal (`interactiveMode: Always`), cannot be run, fails,
 *   or prints something else (its `installHint` is added when the command is not found).
 */
export async function runExecPlugin(
  exec: ExecConfig,
  cluster: ExecClusterInfo,
): Promise<ExecCredentialResult> {
  const command = exec.command ?? '';
  if (!command) throw pluginError('(none)', "has no 'command'; set exec.command in the kubeconfig");
  const apiVersion = exec.apiVersion ?? '';
  if (!supportedVersions.includes(apiVersion)) {
    throw pluginError(
      command,
      `has apiVersion '${apiVersion}'; set exec.apiVersion to ${supportedVersions.join(' or ')}`,
    );
  }
  if (exec.interactiveMode === 'Always') {
    throw pluginError(command, "has interactiveMode 'Always', but kube-sweep runs without a terminal");
  }
  const info = {
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(exec.provideClusterInfo ? { cluster } : {}) },
  };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const e of exec.env ?? []) env[e.name] = e.value;
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      command,
      exec.args ?? [],
      { env, timeout: pluginTimeoutMs, maxBuffer: 4 * 1024 * 1024 },
      (error, out, err) => {
        if (!error) return resolve(out);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return reject(pluginError(command, 'was not found', exec.installHint));
        const lastLine = String(err).trim().split('\n').pop() ?? '';
        reject(
          pluginError(
            command,
            error.killed
              ? `did not finish within ${pluginTimeoutMs / 1000} s`
              : `failed (${lastLine || error.message})`,
          ),
        );
      },
    );
  });
  return parseExecCredential(stdout, command, apiVersion);
}

/**
 * Pure: reads a plugin's output (an ExecCredential).
 * @throws ClusterAccessError `not-a-kubeconfig` naming the command when it is not one, has
 *   another apiVersion, no status, neither token nor certificate, or an unreadable expiry.
 */
export function parseExecCredential(
  stdout: string,
  command: string,
  apiVersion: string,
): ExecCredentialResult {
  let parsed: {
    apiVersion?: string;
    kind?: string;
    status?: {
      token?: string;
      expirationTimestamp?: string;
      clientCertificateData?: string;
      clientKeyData?: string;
    };
  };
  try {
    parsed = JSON.parse(stdout) as typeof parsed;
  } catch {
    throw pluginError(command, 'printed something that is not JSON; it must print an ExecCredential');
  }
  if (parsed?.kind !== 'ExecCredential' || parsed.apiVersion !== apiVersion) {
    throw pluginError(
      command,
      `printed kind '${parsed?.kind}' apiVersion '${parsed?.apiVersion}'; expected an ExecCredential of ${apiVersion}`,
    );
  }
  const status = parsed.status;
  if (!status || (!status.token && !status.clientCertificateData)) {
    throw pluginError(command, 'returned neither a token nor a client certificate and key');
  }
  if (!status.clientCertificateData !== !status.clientKeyData) {
    throw pluginError(command, 'returned only one of the client certificate and key');
  }
  let expiresAt: number | undefined;
  if (status.expirationTimestamp) {
    expiresAt = Date.parse(status.expirationTimestamp);
    if (Number.isNaN(expiresAt)) {
      throw pluginError(
        command,
        `returned expirationTimestamp '${status.expirationTimestamp}', which is not RFC 3339`,
      );
    }
  }
  return {
    ...(status.token ? { token: status.token } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    ...(status.clientCertificateData
      ? { clientCertificateData: status.clientCertificateData, clientKeyData: status.clientKeyData! }
      : {}),
  };
}
