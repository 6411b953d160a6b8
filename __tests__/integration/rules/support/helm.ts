/**
 * Helm building blocks of the rule scenarios S08, S15, S16, S17: release status from the
 * release Secret's labels, throw-away charts written to a temporary folder, and the Helm
 * findings of a run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ApiClient } from '../../../../src/cluster/api-client.js';
import type { Finding } from '../../../../src/rules/findings.js';
import { getOrUndefined } from '../../support/cluster.js';
import { helm4 } from '../../support/widgets.js';

/** The `status` label of revision `revision` of a release (undefined: no such Secret). */
export async function releaseStatus(
  api: ApiClient,
  namespace: string,
  name: string,
  revision = 1,
): Promise<string | undefined> {
  const secret = await getOrUndefined<{ metadata: { labels?: Record<string, string> } }>(
    api,
    `/api/v1/namespaces/${namespace}/secrets/sh.helm.release.v1.${name}.v${revision}`,
  );
  return secret?.metadata.labels?.status;
}

/** Runs Helm 4 (with `env` added, e.g. HELM_DRIVER) and throws with its stderr when it fails. */
export async function helm4Ok(args: string[], env: Readonly<Record<string, string>> = {}): Promise<void> {
  const r = await helm4(args, env);
  if (r.exitCode !== 0) throw new Error(`helm ${args.join(' ')}: ${String(r.stderr)}`);
}

/** A chart written to a temporary folder: `files` maps paths (Chart.yaml, templates/x.yaml) to text. */
export interface TempChart {
  readonly path: string;
  remove(): void;
}

export function writeChart(name: string, files: Record<string, string>): TempChart {
  const path = mkdtempSync(join(tmpdir(), `kube-sweep-chart-${name}-`));
  writeFileSync(
    join(path, 'Chart.yaml'),
    `apiVersion: v2\nname: ${name}\ntype: application\nversion: 0.1.0\n`,
  );
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(path, file)), { recursive: true });
    writeFileSync(join(path, file), text);
  }
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The findings of the two Helm rules. */
export function helmFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => f.code === 'HelmReleaseStuck' || f.code === 'HelmLeftover');
}

/** `[code, severity, kind, namespace/name, scope]` of each finding, for compact assertions. */
export function summarize(findings: readonly Finding[]): string[][] {
  return findings.map((f) => [
    f.code,
    f.severity,
    f.object.kind,
    `${f.object.namespace ?? ''}/${f.object.name}`,
    f.scope,
  ]);
}

/** Chart `api` of the S28 scenarios: ConfigMap `api-config` and ClusterRole `<release namespace>-api-reader`. */
export const apiChart = (): TempChart =>
  writeChart('api', {
    'templates/objects.yaml': [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: api-config',
      'data:',
      '  port: "8080"',
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRole',
      'metadata:',
      '  name: {{ .Release.Namespace }}-api-reader',
      'rules:',
      '  - apiGroups: [""]',
      '    resources: [configmaps]',
      '    verbs: [get]',
      '',
    ].join('\n'),
  });

/**
 * Moves release record `name` (a Secret or, for the configmap driver, a ConfigMap) from namespace
 * `from` to `to`: what a GitOps Helm controller's storage namespace does from the start.
 */
export async function moveRecord(
  api: ApiClient,
  resource: 'secrets' | 'configmaps',
  from: string,
  to: string,
  name: string,
): Promise<void> {
  const path = (ns: string) => `/api/v1/namespaces/${ns}/${resource}/${name}`;
  const record = await api.request<{ metadata: Record<string, unknown>; [k: string]: unknown }>({
    path: path(from),
  });
  const metadata: Record<string, unknown> = { ...record.metadata, namespace: to };
  for (const field of ['resourceVersion', 'uid', 'creationTimestamp', 'managedFields'])
    delete metadata[field];
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${to}/${resource}`,
    body: { ...record, metadata },
  });
  await api.request({ method: 'DELETE', path: path(from) });
}
