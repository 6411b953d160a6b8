import { ClusterAccessError } from '../../../src/cluster/errors.js';
import { parseExecCredential } from '../../../src/cluster/exec-plugin.js';

const v1 = 'client.authentication.k8s.io/v1';
const credential = (status: unknown, apiVersion = v1) =>
  JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

test('a token and its RFC 3339 expiry are read', () => {
  expect(
    parseExecCredential(credential({ token: 'abc', expirationTimestamp: '2030-01-02T03:04:05Z' }), 'p', v1),
  ).toEqual({
    token: 'abc',
    expiresAt: Date.UTC(2030, 0, 2, 3, 4, 5),
  });
  expect(parseExecCredential(credential({ token: 'abc' }), 'p', v1)).toEqual({ token: 'abc' });
});

test.each([
  ['not JSON', 'hello', /'p' printed something that is not JSON/],
  [
    'another apiVersion',
    credential({ token: 'x' }, 'client.authentication.k8s.io/v1beta1'),
    /expected an ExecCredential of client\.authentication\.k8s\.io\/v1/,
  ],
  [
    'no status',
    JSON.stringify({ apiVersion: v1, kind: 'ExecCredential' }),
    /neither a token nor a client certificate/,
  ],
  [
    'a certificate without its key',
    credential({ clientCertificateData: 'C' }),
    /only one of the client certificate and key/,
  ],
  [
    'an unreadable expiry',
    credential({ token: 'x', expirationTimestamp: 'soon' }),
    /expirationTimestamp 'soon', which is not RFC 3339/,
  ],
])('%s is a kubeconfig problem naming the plugin', (_, stdout, message) => {
  let error: unknown;
  try {
    parseExecCredential(stdout, 'p', v1);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ClusterAccessError);
  expect((error as ClusterAccessError).problem).toBe('not-a-kubeconfig');
  expect((error as Error).message).toMatch(message);
});
