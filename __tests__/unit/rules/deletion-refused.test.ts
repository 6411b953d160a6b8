/**
 * deletion-refused: each request of the run's own that the API server refused is a finding,
 * error while the object is still there, info when it is gone anyway; a namespace's refused
 * deletecollections are one warning; no refusal, no finding (the clean negative).
 */
import type { RefusedRequest } from '../../../src/kube/refusal.js';
import { deletionRefusedRule } from '../../../src/rules/deletion-refused.js';
import { runRules } from '../../../src/rules/index.js';
import { loadRecordedFixture, replayContext } from './support/recorded-fixture.js';

const { fixture, inventory } = loadRecordedFixture('s01-stale-apiservice');
const ns = fixture.names.namespace!;

/** As kube-apiserver words a ValidatingAdmissionPolicy's denial of a namespace DELETE. */
const namespaceRefusal = (name: string): RefusedRequest => ({
  step: 'delete-namespace',
  request: `DELETE /api/v1/namespaces/${name}`,
  object: { apiVersion: 'v1', kind: 'Namespace', name },
  environmentNamespace: name,
  status: 422,
  reason: 'Invalid',
  message: `namespaces "${name}" is forbidden: ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: kept by policy`,
});

test('no refusal, no finding: a clean run gives no DeletionRefused', () => {
  expect(deletionRefusedRule.check(inventory, replayContext(fixture))).toEqual([]);
  expect(runRules(inventory, replayContext(fixture)).filter((f) => f.code === 'DeletionRefused')).toEqual([]);
});

test("a refused namespace DELETE whose namespace is still there is an error quoting the server's message", () => {
  expect(inventory.namespaceNames.has(ns)).toBe(true);
  const [f, ...rest] = deletionRefusedRule.check(
    inventory,
    replayContext(fixture, { refusals: [namespaceRefusal(ns)] }),
  );
  expect(rest).toEqual([]);
  expect(f).toMatchObject({
    code: 'DeletionRefused',
    severity: 'error',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'Namespace', name: ns },
  });
  expect(f!.message).toContain(
    `ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: kept by policy`,
  );
  expect(f!.message).toContain('HTTP 422 Invalid');
  expect(f!.evidence).toEqual([
    `DELETE /api/v1/namespaces/${ns}: HTTP 422 Invalid: ${namespaceRefusal(ns).message}`,
  ]);
  expect(f!.remediation.commands).toContain(`kubectl delete namespace ${ns}`);
});

test('a refused DELETE of an object that is gone after the run is only a note', () => {
  const [f] = deletionRefusedRule.check(
    inventory,
    replayContext(fixture, { refusals: [namespaceRefusal('gone-already')] }),
  );
  expect(f).toMatchObject({ severity: 'info' });
  expect(f!.message).toMatch(/is gone anyway/);
});

test("a namespace's refused deletecollections are one warning, every request in the evidence", () => {
  const collection = (resource: string): RefusedRequest => ({
    step: 'empty-namespace',
    request: `DELETE /api/v1/namespaces/${ns}/${resource}`,
    object: { apiVersion: 'v1', kind: 'Namespace', name: ns },
    environmentNamespace: ns,
    status: 403,
    reason: 'Forbidden',
    message: `${resource} is forbidden: User "ci" cannot deletecollection resource "${resource}" in API group "" in the namespace "${ns}"`,
  });
  const findings = deletionRefusedRule.check(
    inventory,
    replayContext(fixture, { refusals: [collection('configmaps'), collection('secrets')] }),
  );
  expect(findings).toHaveLength(1);
  expect(findings[0]).toMatchObject({ severity: 'warning' });
  expect(findings[0]!.evidence).toHaveLength(2);
  // Not a namespace DELETE: no command that deletes the namespace.
  expect(findings[0]!.remediation.commands.join('\n')).not.toMatch(/kubectl delete namespace/);
});

test('a name that is not a plain DNS label is never printed in a command', () => {
  const [f] = deletionRefusedRule.check(
    inventory,
    replayContext(fixture, { refusals: [namespaceRefusal("x'; touch pwned; '")] }),
  );
  expect(f!.remediation.commands.join('\n')).not.toContain('pwned');
});
