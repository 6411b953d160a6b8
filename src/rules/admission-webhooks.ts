/**
 * Admission webhook configurations (admissionregistration.k8s.io/v1) as rules read them:
 * both kinds in one list, which requests a webhook intercepts, and how to print its rules.
 * Matching follows k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules (apiGroups,
 * resources and operations; `*` matches all; `<resource>/*` only subresources).
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectRef } from '../inventory/types.js';
import { helmReleaseOf } from './helm-releases.js';
import {
  fullObjectsOf,
  refOfWhole,
  type AdmissionWebhook,
  type LabelSelector,
  type WebhookRule,
} from './kubernetes-objects.js';

const kinds = [
  { resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration' },
  { resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration' },
] as const;

/** One Validating/MutatingWebhookConfiguration. */
export interface WebhookConfiguration {
  readonly kind: (typeof kinds)[number]['kind'];
  readonly name: string;
  readonly ref: ObjectRef;
  readonly webhooks: readonly AdmissionWebhook[];
  /** The Helm release that shipped it (its meta.helm.sh annotations), when known. */
  readonly release?: { readonly namespace: string; readonly name: string };
}

/** Every webhook configuration of the snapshot, validating first, each sorted by name. */
export function webhookConfigurations(inventory: Inventory): WebhookConfiguration[] {
  return kinds.flatMap(({ resource, kind }) =>
    fullObjectsOf(inventory, resource)
      .map((c) => {
        const name = c.metadata?.name ?? '';
        const release = helmReleaseOf(c.metadata?.annotations);
        return {
          kind,
          name,
          ref: refOfWhole('admissionregistration.k8s.io/v1', kind, c.metadata),
          webhooks: c.webhooks ?? [],
          ...(release ? { release } : {}),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
}

/** The configurations that hold a webhook of one of `webhookNames`, one entry per webhook. */
export function webhookConfigurationsNamed(
  inventory: Inventory,
  webhookNames: readonly string[],
): {
  readonly kind: WebhookConfiguration['kind'];
  readonly configuration: string;
  readonly webhook: string;
}[] {
  const wanted = new Set(webhookNames);
  return webhookConfigurations(inventory).flatMap((c) =>
    c.webhooks
      .filter((w) => wanted.has(w.name))
      .map((w) => ({ kind: c.kind, configuration: c.name, webhook: w.name })),
  );
}

/** `failurePolicy`, defaulted as admissionregistration/v1 does (Fail). */
export function failurePolicyOf(webhook: AdmissionWebhook): string {
  return webhook.failurePolicy ?? 'Fail';
}

const matches = (values: readonly string[] | undefined, value: string) =>
  (values ?? []).some((v) => v === '*' || v === value);

/**
 * Whether the webhook intercepts `operation` (CREATE, UPDATE, DELETE, CONNECT) on the main
 * resource `resource` of `group`. Selectors are not evaluated (the caller says so).
 */
export function intercepts(
  webhook: AdmissionWebhook,
  group: string,
  resource: string,
  operation: string,
): boolean {
  return rulesMatch(webhook.rules, group, resource, operation);
}

/**
 * Whether one of `rules` (a webhook's rules, a policy's or binding's resourceRules) matches
 * `operation` on the main resource `resource` of `group`; `*` matches all, `<resource>/*` only
 * subresources. Selectors and resourceNames are the caller's.
 */
export function rulesMatch(
  rules: readonly WebhookRule[] | undefined,
  group: string,
  resource: string,
  operation: string,
): boolean {
  return (rules ?? []).some(
    (r) =>
      matches(r.apiGroups, group) &&
      (r.resources ?? []).some((x) => x === '*' || x === '*/*' || x === resource) &&
      matches(r.operations, operation),
  );
}

/**
 * Pure: whether `labels` satisfy a metav1.LabelSelector (matchLabels and matchExpressions with
 * In, NotIn, Exists, DoesNotExist; apimachinery LabelSelectorAsSelector). An absent or empty
 * selector matches everything; an unknown operator matches nothing.
 */
export function selectorMatches(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>> = {},
): boolean {
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
  return (
    Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
    (selector?.matchExpressions ?? []).every((e) => {
      const values = e.values ?? [];
      switch (e.operator) {
        case 'In':
          return has(e.key) && values.includes(labels[e.key]!);
        case 'NotIn':
          return !has(e.key) || !values.includes(labels[e.key]!);
        case 'Exists':
          return has(e.key);
        case 'DoesNotExist':
          return !has(e.key);
        default:
          return false;
      }
    })
  );
}

/** `k=v, key In (a, b)` of a selector, or undefined when it is empty. */
export function describeSelector(selector: LabelSelector | undefined): string | undefined {
  const labels = Object.entries(selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  const expressions = (selector?.matchExpressions ?? []).map(
    (e) => `${e.key} ${e.operator}${e.values?.length ? ` (${e.values.join(', ')})` : ''}`,
  );
  const all = [...labels, ...expressions];
  return all.length ? all.join(', ') : undefined;
}

/** Evidence lines for one webhook: its rules and non-empty selectors. */
export function describeWebhookMatch(webhook: AdmissionWebhook): string[] {
  const rules = (webhook.rules ?? []).map(
    (r) =>
      `webhook ${webhook.name} rule: apiGroups [${(r.apiGroups ?? []).join(', ')}] apiVersions ` +
      `[${(r.apiVersions ?? []).join(', ')}] resources [${(r.resources ?? []).join(', ')}] ` +
      `operations [${(r.operations ?? []).join(', ')}]`,
  );
  const namespaceSelector = describeSelector(webhook.namespaceSelector);
  const objectSelector = describeSelector(webhook.objectSelector);
  return [
    ...rules,
    ...(namespaceSelector ? [`webhook ${webhook.name} namespaceSelector: ${namespaceSelector}`] : []),
    ...(objectSelector ? [`webhook ${webhook.name} objectSelector: ${objectSelector}`] : []),
  ];
}
