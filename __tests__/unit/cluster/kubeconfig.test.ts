import { mkdtempSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ClusterAccessError } from '../../../src/cluster/errors.js';
import { loadKubeconfig, writeKubeconfigFile } from '../../../src/cluster/kubeconfig.js';
import { renderFaceWords } from '../../../src/words/input-words.js';

const certData = Buffer.from(
  '-----BEGIN CERTIFICATE-----\nMIIBcertificatebodyline1\n-----END CERTIFICATE-----\n',
).toString('base64');
const keyData = Buffer.from(
  '-----BEGIN PRIVATE KEY-----\nMIIEprivatekeybodyline1\n-----END PRIVATE KEY-----\n',
).toString('base64');

const yaml = `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster: { server: https://127.0.0.1:6443 }
- name: noserver
  cluster: {}
users:
- name: admin
  user: { token: s3cr3t-token-value, client-certificate-data: ${certData}, client-key-data: ${keyData} }
contexts:
- name: ctx-one
  context: { cluster: one, user: admin }
- name: ctx-noserver
  context: { cluster: noserver, user: admin }
- name: ctx-missing
  context: { cluster: nowhere, user: admin }
current-context: ctx-one
`;

const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-kc-'));
const file = join(dir, 'config');
writeFileSync(file, yaml);

function problemOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    // In the action's words, as the action prints it (the CLI's are checked in unit/cli/messages).
    if (error instanceof ClusterAccessError)
      return `${error.problem}: ${renderFaceWords('action', error.message)}`;
    throw error;
  }
  return undefined;
}

test.each([
  ['a path', file, 'file'],
  ['inline YAML', yaml, 'inline'],
  ['base64 of the YAML', Buffer.from(yaml).toString('base64'), 'base64'],
  ['base64 of a path', Buffer.from(file).toString('base64'), 'file'],
])('reads %s', (_what, input, origin) => {
  const loaded = loadKubeconfig(input, '', {});
  expect(loaded.context).toBe('ctx-one');
  expect(loaded.server).toBe('https://127.0.0.1:6443');
  expect(loaded.origin.kind).toBe(origin);
});

test('an empty input falls back to $KUBECONFIG, then ~/.kube/config', () => {
  expect(loadKubeconfig('', '', { KUBECONFIG: `/nonexistent:${file}` }).origin).toEqual({
    kind: 'env',
    paths: [file],
  });
  expect(problemOf(() => loadKubeconfig('', '', { KUBECONFIG: '/nonexistent', HOME: dir }))).toMatch(
    /^no-such-file: .*\$KUBECONFIG names no file/,
  );
  expect(problemOf(() => loadKubeconfig('', '', { HOME: dir }))).toMatch(
    /^no-such-file: .*\.kube\/config does not exist/,
  );
});

test('collects every credential for masking', () => {
  const { secrets } = loadKubeconfig(file, '', {});
  expect(secrets).toEqual(
    expect.arrayContaining([
      's3cr3t-token-value',
      certData,
      keyData,
      'MIIEprivatekeybodyline1',
      'MIIBcertificatebodyline1',
    ]),
  );
});

test.each([
  [
    'a missing file',
    '/no/such/kubeconfig',
    '',
    /^no-such-file: input 'kubeconfig': no such file '\/no\/such\/kubeconfig'/,
  ],
  [
    'YAML that is not a kubeconfig',
    'apiVersion: v1\nkind: ConfigMap\n',
    '',
    /^not-a-kubeconfig: .*no 'clusters', 'contexts' or 'users'/,
  ],
  ['broken YAML', 'clusters: [\n  - {', '', /^not-a-kubeconfig: .*not valid YAML/],
  [
    'an unknown context',
    file,
    'prod',
    /^no-such-context: input 'context' is 'prod'.*contexts there: ctx-one, ctx-noserver, ctx-missing/,
  ],
  ['a cluster without a server', file, 'ctx-noserver', /^no-server: .*has no 'server' URL/],
  [
    'a context whose cluster is not defined',
    file,
    'ctx-missing',
    /^no-server: .*'nowhere', which is not defined/,
  ],
])('rejects %s', (_what, input, context, message) => {
  const problem = problemOf(() => loadKubeconfig(input, context, {}));
  expect(problem).toMatch(message);
  expect(problem).not.toContain('s3cr3t');
});

test('writes the pinned kubeconfig with mode 0600', () => {
  const loaded = loadKubeconfig(file, '', {});
  const path = writeKubeconfigFile(loaded, dir);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  const written = parse(readFileSync(path, 'utf8')) as { 'current-context': string; contexts: unknown[] };
  expect(written['current-context']).toBe('ctx-one');
  expect(written.contexts).toHaveLength(1);
});

test('base64 wrapped at 76 characters (what `base64 file` prints) is read as base64', () => {
  const wrapped = Buffer.from(yaml)
    .toString('base64')
    .replace(/(.{76})/g, '$1\n');
  expect(wrapped.split('\n').length).toBeGreaterThan(3);
  const loaded = loadKubeconfig(wrapped, '', {});
  expect(loaded.origin).toEqual({ kind: 'base64' });
  expect(loaded.server).toBe('https://127.0.0.1:6443');
});

test('a mangled base64 kubeconfig is refused without echoing any of it', () => {
  const b64 = Buffer.from(yaml).toString('base64');
  const mangled = `${b64.slice(0, 200)}#${b64.slice(201)}`;
  const problem = problemOf(() => loadKubeconfig(mangled, '', {}));
  expect(problem).toMatch(/^no-such-file: input 'kubeconfig': no such file \(\d+ characters, not shown\)/);
  expect(problem).not.toContain(b64.slice(-40));
  expect(problem).not.toContain(b64.slice(0, 40));
});

test('base64 of something that is neither a kubeconfig nor a path says so, without echoing it', () => {
  const problem = problemOf(() =>
    loadKubeconfig(Buffer.from('hello world, not yaml').toString('base64'), '', {}),
  );
  expect(problem).toMatch(
    /^not-a-kubeconfig: input 'kubeconfig' looks like base64 \(\d+ characters\) but decodes neither/,
  );
  expect(problem).not.toContain('aGVsbG8');
});

test('a bare word (it may be a token) is never echoed; a path is', () => {
  const token = 'ghp_AbCdEf0123456789AbCdEf0123456789';
  const problem = problemOf(() => loadKubeconfig(token, '', {}));
  expect(problem).toMatch(/no such file \(\d+ characters, not shown\)/);
  expect(problem).not.toContain('AbCdEf');
  expect(problemOf(() => loadKubeconfig('/etc/no-such/config', '', {}))).toContain("'/etc/no-such/config'");
});

test('masks what credential plugins are given: exec env values and auth-provider config values', () => {
  const plugins = `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster: { server: https://127.0.0.1:6443 }
users:
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws-helper
      env:
      - { name: AWS_SECRET_ACCESS_KEY, value: wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY }
      - { name: AWS_REGION, value: eu }
- name: oidc
  user:
    auth-provider:
      name: oidc
      config: { client-secret: oidc-client-s3cret, refresh-token: "refresh-line-one\\nrefresh-line-two", extra-scopes: ab }
contexts:
- name: eks
  context: { cluster: one, user: eks }
- name: oidc
  context: { cluster: one, user: oidc }
current-context: eks
`;
  expect(loadKubeconfig(plugins, 'eks', {}).secrets).toEqual(['wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY']);
  expect(loadKubeconfig(plugins, 'oidc', {}).secrets).toEqual([
    'oidc-client-s3cret',
    'refresh-line-one',
    'refresh-line-two',
  ]);
});
