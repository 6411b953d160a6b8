import { KubernetesApiError } from '../../../src/cluster/errors.js';
import { deletionRefusalOf, isFailedDeletion, isRefusal, refusalOf } from '../../../src/cluster/refusal.js';
import { describeRefusal } from '../../../src/kube/refusal.js';

const answer = (status: number, reason = '', message = '') =>
  new KubernetesApiError(status, 'DELETE', '/api/v1/namespaces/pr-1', reason, message);

test.each([
  [400, true],
  [401, true],
  [403, true],
  [405, true],
  [422, true],
  [404, false],
  [408, false],
  [409, false],
  [429, false],
  [500, false],
  [503, false],
])('HTTP %i is a refusal: %s', (status, refused) => {
  expect(isRefusal(answer(status))).toBe(refused);
});

test('an error that is no answer of the API server is no refusal', () => {
  expect(isRefusal(new Error('socket hang up'))).toBe(false);
  expect(isRefusal(undefined)).toBe(false);
});

test("a refusal keeps the request, the status and the server's message as they came", () => {
  const r = refusalOf(answer(403, 'Forbidden', 'namespaces "pr-1" is forbidden: User "ci" cannot delete'), {
    step: 'delete-namespace',
    object: { apiVersion: 'v1', kind: 'Namespace', name: 'pr-1' },
  });
  expect(r).toEqual({
    step: 'delete-namespace',
    request: 'DELETE /api/v1/namespaces/pr-1',
    object: { apiVersion: 'v1', kind: 'Namespace', name: 'pr-1' },
    status: 403,
    reason: 'Forbidden',
    message: 'namespaces "pr-1" is forbidden: User "ci" cannot delete',
  });
  expect(describeRefusal(r!)).toBe(
    'refused (HTTP 403 Forbidden): namespaces "pr-1" is forbidden: User "ci" cannot delete',
  );
  expect(refusalOf(answer(503), { step: 'delete-namespace', object: r!.object })).toBeUndefined();
});

test.each([
  [403, true],
  [422, true],
  [408, true],
  [429, true],
  [500, true],
  [503, true],
  [504, true],
  [404, false],
  [409, false],
])('a teardown DELETE answered HTTP %i is a failed deletion: %s', (status, failed) => {
  expect(isFailedDeletion(answer(status))).toBe(failed);
});

test("a failing webhook's 500 on a DELETE is recorded as that object's refusal, with the server's words", () => {
  const words =
    'Internal error occurred: failed calling webhook "deny.example.com": context deadline exceeded';
  const r = deletionRefusalOf(answer(500, 'InternalError', words), {
    step: 'delete-namespace',
    object: { apiVersion: 'v1', kind: 'Namespace', name: 'pr-1' },
    environmentNamespace: 'pr-1',
  });
  expect(r).toEqual({
    step: 'delete-namespace',
    request: 'DELETE /api/v1/namespaces/pr-1',
    object: { apiVersion: 'v1', kind: 'Namespace', name: 'pr-1' },
    environmentNamespace: 'pr-1',
    status: 500,
    reason: 'InternalError',
    message: words,
  });
  expect(describeRefusal(r!)).toBe(`refused (HTTP 500 InternalError): ${words}`);
  // No answer at all is not a deletion the server refused: the caller throws it.
  expect(
    deletionRefusalOf(new Error('socket hang up'), { step: 'delete-namespace', object: r!.object }),
  ).toBeUndefined();
});
