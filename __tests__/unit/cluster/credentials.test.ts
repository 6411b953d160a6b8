import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsCredentialPlugin, resolveHttpsCredentials } from '../../../src/cluster/credentials.js';
import { ClusterAccessError } from '../../../src/cluster/errors.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

test('inline data, server name and insecure-skip-tls-verify are carried over', async () => {
  const creds = await resolveHttpsCredentials(
    {
      'certificate-authority-data': b64('CA PEM'),
      'tls-server-name': 'api.internal',
      'insecure-skip-tls-verify': true,
    },
    { 'client-certificate-data': b64('CERT PEM'), 'client-key-data': b64('KEY PEM') },
    '',
  );
  expect(creds.ca?.toString()).toBe('CA PEM');
  expect(creds.cert?.toString()).toBe('CERT PEM');
  expect(creds.key?.toString()).toBe('KEY PEM');
  expect(creds.servername).toBe('api.internal');
  expect(creds.rejectUnauthorized).toBe(false);
  expect(creds.headers).toEqual({});
});

test('TLS is verified unless the kubeconfig says otherwise', async () => {
  expect((await resolveHttpsCredentials({}, undefined, '')).rejectUnauthorized).toBe(true);
});

test('a token wins over username/password; username/password become Basic', async () => {
  expect(
    (await resolveHttpsCredentials({}, { token: 't0k', username: 'u', password: 'p' }, '')).headers,
  ).toEqual({
    authorization: 'Bearer t0k',
  });
  expect((await resolveHttpsCredentials({}, { username: 'u', password: 'p' }, '')).headers).toEqual({
    authorization: `Basic ${b64('u:p')}`,
  });
});

test('a tokenFile is read and trimmed; relative to the kubeconfig file; read again after a 401, and masked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-cred-'));
  writeFileSync(join(dir, 'tok'), 'from-file\n');
  const masked: string[] = [];
  const creds = await resolveHttpsCredentials({}, { tokenFile: 'tok' }, '', join(dir, 'config'), {
    onSecret: (v) => masked.push(v),
  });
  expect(creds.headers.authorization).toBeUndefined();
  expect(await creds.tokenSource!.token()).toBe('from-file');
  writeFileSync(join(dir, 'tok'), 'rotated\n');
  expect(await creds.tokenSource!.renew('from-file')).toBe('rotated');
  expect(masked).toEqual(['from-file', 'rotated']);
});

test('a named file that does not exist is a kubeconfig problem that names the field', async () => {
  const error = await resolveHttpsCredentials(
    { 'certificate-authority': '/no/such/ca.crt' },
    undefined,
    '',
  ).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ClusterAccessError);
  expect((error as ClusterAccessError).problem).toBe('not-a-kubeconfig');
  expect((error as Error).message).toMatch(
    /'certificate-authority' names \/no\/such\/ca\.crt.*certificate-authority-data/,
  );
});

test('only exec and auth-provider need the credential plugin path', () => {
  expect(needsCredentialPlugin({ exec: { command: 'aws' } })).toBe(true);
  expect(needsCredentialPlugin({ 'auth-provider': { name: 'oidc' } })).toBe(true);
  expect(needsCredentialPlugin({ token: 'x' })).toBe(false);
  expect(needsCredentialPlugin(undefined)).toBe(false);
});
