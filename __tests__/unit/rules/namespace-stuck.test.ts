import { namespaceStuckRule } from '../../../src/rules/namespace-stuck.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

function check(name: string, overrides = {}) {
  const { fixture, inventory } = loadRecordedFixture(name);
  return {
    fixture,
    inventory,
    findings: namespaceStuckRule.check(inventory, replayContext(fixture, overrides)),
  };
}

test('S01: NamespaceBlockedByDiscovery names the failing group-version and the APIService to delete', () => {
  const { fixture, findings } = check('s01-stale-apiservice');
  const { namespace, group, apiService } = fixture.names;
  expect(findings).toHaveLength(1);
  const [f] = findings;
  expect(f).toMatchObject({
    code: 'NamespaceBlockedByDiscovery',
    rule: 'namespace-stuck',
    severity: 'error',
    scope: 'environment',
    object: { apiVersion: 'v1', kind: 'Namespace', name: namespace },
  });
  expect(f!.message).toMatch(
    new RegExp(
      `^Namespace ${namespace} has been Terminating for \\d+s: the namespace controller cannot discover ${group}/v1beta1,`,
    ),
  );
  expect(f!.evidence).toEqual([
    `NamespaceDeletionDiscoveryFailure=True (DiscoveryFailed): Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: ${group}/v1beta1: stale GroupVersion discovery: ${group}/v1beta1`,
    `${group}/v1beta1: stale GroupVersion discovery: ${group}/v1beta1`,
    `in the snapshot: stale GroupVersion discovery: ${group}/v1beta1`,
  ]);
  expect(f!.remediation.commands).toEqual([
    `kubectl get apiservice ${apiService} -o yaml`,
    "# if the API is no longer wanted (its objects live in the extension server, not in this cluster's etcd):",
    `kubectl delete apiservice ${apiService}`,
    '# Do NOT clear spec.finalizers of the namespace or PUT /api/v1/namespaces/<ns>/finalize: its objects would stay in etcd, unreachable',
  ]);
});

test('S02: NamespaceBlockedByFinalizer lists each object with its finalizer, from the messages and the snapshot', () => {
  const { fixture, findings } = check('s02-operator-gone-finalizer');
  const { namespace: ns, group } = fixture.names;
  expect(findings.map((f) => f.code)).toEqual(['NamespaceBlockedByFinalizer']);
  const [f] = findings;
  expect(f!.message).toMatch(
    /: 2 objects still carry finalizer example\.com\/cleanup that no controller has removed$/,
  );
  const evidence = f!.evidence.map((e) => e.replace(/\(deletionTimestamp [^)]+\)/, '(deletionTimestamp …)'));
  expect(evidence).toEqual([
    `NamespaceContentRemaining=True (SomeResourcesRemain): Some resources are remaining: services. has 1 resource instances, widgets.${group} has 1 resource instances`,
    'NamespaceFinalizersRemaining=True (SomeFinalizersRemain): Some content in the namespace has finalizers remaining: example.com/cleanup in 2 resource instances',
    'remaining per the namespace controller: services × 1',
    `remaining per the namespace controller: widgets.${group} × 1`,
    'finalizer per the namespace controller: example.com/cleanup in 2 objects',
    `in the snapshot: services ${ns}/s1 [example.com/cleanup] (deletionTimestamp …)`,
    `in the snapshot: widgets.${group} ${ns}/t1 [example.com/cleanup] (deletionTimestamp …)`,
  ]);
  expect(f!.remediation.commands).toEqual([
    `kubectl get services s1 -n ${ns} -o yaml`,
    `kubectl get widgets.${group} t1 -n ${ns} -o yaml`,
    '# Do NOT clear spec.finalizers of the namespace or PUT /api/v1/namespaces/<ns>/finalize: its objects would stay in etcd, unreachable',
    expect.stringMatching(/^# WARNING: removing finalizers skips the cleanup/),
    `kubectl patch services s1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
    `kubectl patch widgets.${group} t1 -n ${ns} --type json -p '[{"op":"test","path":"/metadata/finalizers/0","value":"example.com/cleanup"},{"op":"remove","path":"/metadata/finalizers/0"}]'`,
  ]);
});

test('S02: when the snapshot could not list a remaining resource, the evidence says so', () => {
  const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
  const { group } = fixture.names;
  const gap = withInventory(inventory, (data) => ({
    ...data,
    objects: data.objects.filter((o) => o.resource !== 'widgets'),
    coverage: [{ resource: `widgets.${group}/v1`, reason: 'forbidden', message: 'forbidden' }],
  }));
  const [f] = namespaceStuckRule.check(gap, replayContext(fixture));
  expect(f!.evidence).toContain(
    `widgets.${group}: 1 per the namespace controller, 0 in the snapshot (this resource was not listed: see coverage)`,
  );
});

test('S04: NamespaceContentDeletionFailed names the admission webhook and its configuration', () => {
  const { fixture, findings } = check('s04-webhook-backend-missing');
  const { webhook, configuration } = fixture.names;
  expect(findings.map((f) => f.code)).toEqual(['NamespaceContentDeletionFailed']);
  const [f] = findings;
  expect(f!.message).toMatch(
    new RegExp(`; admission webhook ${webhook!.replace(/\./g, '\\.')} rejects the deletes$`),
  );
  expect(f!.evidence[0]).toMatch(
    new RegExp(
      `^NamespaceDeletionContentFailure=True \\(ContentDeletionFailed\\): Failed to delete all resource types, 1 remaining: Internal error occurred: failed calling webhook "${webhook}"`,
    ),
  );
  expect(f!.evidence[1]).toBe(
    `admission webhook ${webhook} belongs to ValidatingWebhookConfiguration ${configuration}`,
  );
  expect(f!.remediation.commands).toContain(`kubectl delete validatingwebhookconfiguration ${configuration}`);
});

test('a namespace deleted more recently than the threshold is not reported', () => {
  expect.hasAssertions();
  for (const name of ['s01-stale-apiservice', 's02-operator-gone-finalizer', 's04-webhook-backend-missing']) {
    expect(check(name, { stuckAfterSeconds: 3600 }).findings).toEqual([]);
  }
});

test('a Terminating namespace whose conditions name no reason: NamespaceStuckTerminating', () => {
  const { fixture, inventory } = loadRecordedFixture('s01-stale-apiservice');
  const noConditions = withInventory(inventory, (data) => ({
    ...data,
    full: {
      ...data.full,
      namespaces: data.full.namespaces.map((n) => {
        const ns = n as { metadata: { name: string }; status?: object };
        return ns.metadata.name === fixture.names.namespace ? { ...ns, status: { phase: 'Terminating' } } : n;
      }),
    },
  }));
  const findings = namespaceStuckRule.check(noConditions, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.object.name])).toEqual([
    ['NamespaceStuckTerminating', fixture.names.namespace],
  ]);
  expect(findings[0]!.message).toMatch(/and none of its deletion conditions names a reason$/);
});

/** The recorded snapshot with `finalizers` added to the Namespace's own metadata.finalizers. */
function withOwnFinalizer(name: string, finalizers: string[]) {
  const { fixture, inventory } = loadRecordedFixture(name);
  const ns = fixture.names.namespace!;
  const held = withInventory(inventory, (data) => ({
    ...data,
    objects: data.objects.map((o) =>
      o.resource === 'namespaces' && o.name === ns
        ? { ...o, finalizers: [...(o.finalizers ?? []), ...finalizers] }
        : o,
    ),
  }));
  return { ns, findings: namespaceStuckRule.check(held, replayContext(fixture)) };
}

test("a namespace held by its own metadata.finalizers is said to be, not '1 object still carry'", () => {
  const { ns, findings } = withOwnFinalizer('s01-stale-apiservice', ['example.com/hold']);
  const f = findings.find((x) => x.code === 'NamespaceBlockedByFinalizer')!;
  expect(f.message).toMatch(
    /: it is held by its own metadata\.finalizers example\.com\/hold, which only the controller that set them removes \(the namespace controller removes only spec\.finalizers\)$/,
  );
  expect(f.evidence[0]).toBe("the Namespace's own metadata.finalizers: example.com/hold");
  expect(f.remediation.commands).toContain(`kubectl get namespaces ${ns} -o yaml`);
});

test('own metadata.finalizers and content finalizers are both named', () => {
  const { findings } = withOwnFinalizer('s02-operator-gone-finalizer', ['example.com/hold']);
  expect(findings.map((f) => f.message)).toEqual([
    expect.stringMatching(
      /: it is held by its own metadata\.finalizers example\.com\/hold, .*; and 2 objects still carry finalizer example\.com\/cleanup that no controller has removed$/,
    ),
  ]);
});
