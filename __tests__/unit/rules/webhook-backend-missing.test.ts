import { webhookBackendMissingRule } from '../../../src/rules/webhook-backend-missing.js';
import { loadRecordedFixture, replayContext, withInventory } from './support/recorded-fixture.js';

const rule = webhookBackendMissingRule;

test('S04: WebhookBackendMissing on the ValidatingWebhookConfiguration whose Service does not exist', () => {
  const { fixture, inventory } = loadRecordedFixture('s04-webhook-backend-missing');
  const { namespace: ns, configuration, webhook, group } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings).toHaveLength(1);
  expect(findings[0]).toMatchObject({
    code: 'WebhookBackendMissing',
    severity: 'error',
    scope: 'environment',
    object: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      name: configuration,
    },
    message:
      `ValidatingWebhookConfiguration ${configuration}: admission webhook ${webhook} calls ${ns}/vm-operator whose ` +
      `backend is gone (service vm-operator does not exist in namespace ${ns}); with failurePolicy Fail the API ` +
      'server rejects every request it matches',
    evidence: [
      `webhook ${webhook} → service ${ns}/vm-operator port 443 path /validate: service vm-operator does not exist in namespace ${ns}`,
      `webhook ${webhook} failurePolicy: Fail`,
      `webhook ${webhook} rule: apiGroups [${group}] apiVersions [v1] resources [widgets] operations [UPDATE, DELETE]`,
    ],
  });
});

test('S05: the Service namespace is gone; a CRD conversion webhook likewise', () => {
  const { fixture, inventory } = loadRecordedFixture('s05-mutating-webhook-leftover');
  const { missingNamespace, configuration, crd } = fixture.names;
  const findings = rule.check(inventory, replayContext(fixture));
  expect(findings.map((f) => [f.code, f.object.kind, f.object.name, f.severity, f.scope])).toEqual([
    ['WebhookBackendMissing', 'MutatingWebhookConfiguration', configuration, 'error', 'cluster'],
    ['ConversionWebhookBackendMissing', 'CustomResourceDefinition', crd, 'error', 'cluster'],
  ]);
  expect(findings[0]!.evidence[0]).toMatch(new RegExp(`: namespace ${missingNamespace} does not exist$`));
  expect(findings[1]!.remediation.commands.slice(-2)).toEqual([
    expect.stringMatching(/^# WARNING: with strategy None/),
    `kubectl patch customresourcedefinition ${crd} --type merge -p '{"spec":{"conversion":{"strategy":"None","webhook":null}}}'`,
  ]);
});

test('failurePolicy Ignore on every broken webhook: warning', () => {
  const { fixture, inventory } = loadRecordedFixture('s04-webhook-backend-missing');
  const ignore = withInventory(inventory, (d) => ({
    ...d,
    full: {
      ...d.full,
      validatingwebhookconfigurations: d.full.validatingwebhookconfigurations.map((c) => {
        const config = c as { webhooks: object[] };
        return { ...config, webhooks: config.webhooks.map((w) => ({ ...w, failurePolicy: 'Ignore' })) };
      }),
    },
  }));
  const [f] = rule.check(ignore, replayContext(fixture));
  expect(f!.severity).toBe('warning');
  expect(f!.message).toMatch(/with failurePolicy Ignore matching requests skip it$/);
});

test('nothing is concluded when Services could not be listed', () => {
  const { fixture, inventory } = loadRecordedFixture('s05-mutating-webhook-leftover');
  const gap = withInventory(inventory, (d) => ({
    ...d,
    coverage: [{ resource: 'services/v1', reason: 'failed', message: 'HTTP 500' }],
  }));
  expect(rule.check(gap, replayContext(fixture))).toEqual([]);
});
