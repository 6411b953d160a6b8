/**
 * Pure: what `remediate: safe` does about a scan's findings, and what it leaves alone.
 *
 * Scope rule (nothing outside the scope of the inputs is ever changed):
 * - `clusterWide` is true only in `mode: scan` with `scan-scope: cluster` and none of
 *   `namespaces`, `selector`, `releases` given (the inputs then scope the whole cluster): every
 *   reported finding is in scope. Otherwise only findings tied to the environment are acted on,
 *   even when `scan-scope: cluster` reports more:
 * - a namespaced action (recreate a namespace, remove a finalizer from a namespaced object)
 *   needs the namespace in `environmentNamespaces` (the namespaces the inputs select, including
 *   a namespace that no longer exists whose name a `namespaces` pattern matches);
 * - a cluster-scoped action (delete an APIService or webhook configuration) needs a finding with
 *   scope `environment`, i.e. its backend Service's namespace is in the environment;
 * - a finalizer of a cluster-scoped object is removed only when `clusterWide`;
 * - protected namespaces (kube-system, kube-public, kube-node-lease, default, every kube-*, those
 *   the `protect` input matches and those labelled kube-sweep.io/protected=true) are never
 *   touched, in every mode, `clusterWide` included: no namespace re-created or deleted there, no
 *   finalizer removed from an object there.
 * Only findings the scan reports (after `scan-scope` and `ignore`) are acted on.
 *
 * Safety rule: only registrations whose backend is gone for good are deleted (an APIService or
 * webhook configuration whose Service or namespace no longer exists; a configuration only when
 * every webhook in it is dead); a finalizer is removed only if the user named it in
 * `force-remove-finalizers` and a StuckFinalizer/OperatorGoneFinalizer finding reports it on
 * that object. A namespace is never finalized through /finalize (scenario S10).
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import {
  nameProtectionOnly,
  protectionReason,
  type NamespaceProtection,
} from '../plan/protected-namespaces.js';
import { findingKey, type Finding } from '../rules/findings.js';
import { webhookConfigurations } from '../rules/admission-webhooks.js';
import { fullObjectsOf } from '../rules/kubernetes-objects.js';
import { serviceBackends } from '../rules/service-backends.js';
import { finalizerGroupSubject } from '../rules/stuck-finalizer.js';
import type { RemediationAction, SkippedRemediation } from './actions.js';

/** The inputs that decide what may be done. */
export interface RemediationPolicy {
  /** Finalizer names the user allows kube-sweep to remove (`force-remove-finalizers`). */
  readonly forceRemoveFinalizers: readonly string[];
  /** Namespaces of the environment (see the scope rule above). */
  readonly environmentNamespaces: ReadonlySet<string>;
  /** `mode: scan` with `scan-scope: cluster` and no namespaces/selector/releases input. */
  readonly clusterWide: boolean;
  /** The `protect` input and the labelled namespaces (default: protection by name only). */
  readonly protection?: NamespaceProtection;
}

export interface RemediationPlan {
  /** In the order to run: registrations, namespaces re-created, finalizers, namespaces deleted. */
  readonly actions: readonly RemediationAction[];
  readonly skipped: readonly SkippedRemediation[];
}

function namespaceAllowed(namespace: string, policy: RemediationPolicy): string | undefined {
  const why = protectionReason(namespace, policy.protection ?? nameProtectionOnly);
  if (why) return `namespace ${namespace} is protected (${why})`;
  if (!policy.clusterWide && !policy.environmentNamespaces.has(namespace))
    return `namespace ${namespace} is outside the scope of the inputs`;
  return undefined;
}

/** Pure: the actions for `findings` (the scan's reported findings) over the same snapshot. */
export function planRemediation(
  findings: readonly Finding[],
  inventory: Inventory,
  policy: RemediationPolicy,
): RemediationPlan {
  const registrations: RemediationAction[] = [];
  const recreate = new Map<string, string[]>();
  const skipped: SkippedRemediation[] = [];
  const backend = serviceBackends(inventory);
  const dead = (service: { namespace?: string; name?: string } | null | undefined) => {
    const state = service ? backend(service).state : 'present';
    return state === 'namespace-missing' || state === 'service-missing';
  };
  const clusterScopedAllowed = (f: Finding) =>
    policy.clusterWide || f.scope === 'environment'
      ? undefined
      : 'its backend is outside the scope of the inputs';
  for (const f of findings) {
    if (f.code === 'StaleAPIService') {
      const api = fullObjectsOf(inventory, 'apiservices').find((a) => a.metadata?.name === f.object.name);
      const why =
        clusterScopedAllowed(f) ??
        (dead(api?.spec?.service) ? undefined : 'its backend Service exists: fix the backend instead');
      if (why) skipped.push({ finding: f.key, reason: why });
      else registrations.push({ type: 'delete-apiservice', name: f.object.name, because: [f.key] });
    } else if (f.code === 'WebhookBackendMissing') {
      const r = webhookRemediation(f, inventory, dead, clusterScopedAllowed(f));
      if ('reason' in r) skipped.push(r);
      else registrations.push(r);
    } else if (f.code === 'OrphanInMissingNamespace') {
      const ns = f.object.namespace ?? '';
      const why = namespaceAllowed(ns, policy);
      if (why) skipped.push({ finding: f.key, reason: why });
      else recreate.set(ns, [...(recreate.get(ns) ?? []), f.key]);
    }
  }
  const finalizers = finalizerRemovals(findings, inventory, policy, skipped);
  const namespaces = [...recreate.keys()].sort();
  return {
    actions: [
      ...registrations,
      ...namespaces.map((namespace) => ({
        type: 'recreate-namespace' as const,
        namespace,
        because: recreate.get(namespace)!,
      })),
      ...finalizers,
      ...namespaces.map((namespace) => ({
        type: 'delete-namespace' as const,
        namespace,
        because: recreate.get(namespace)!,
      })),
    ],
    skipped,
  };
}

/**
 * Pure: deleting a webhook configuration whose every webhook's backend is gone, or why not
 * (`outOfScope`: the reason it is outside the scope, from the caller).
 */
function webhookRemediation(
  f: Finding,
  inventory: Inventory,
  dead: (service: { namespace?: string; name?: string } | null | undefined) => boolean,
  outOfScope: string | undefined,
): RemediationAction | SkippedRemediation {
  const config = webhookConfigurations(inventory).find(
    (c) => c.kind === f.object.kind && c.name === f.object.name,
  );
  const allDead = config !== undefined && config.webhooks.every((w) => dead(w.clientConfig?.service));
  const why =
    outOfScope ??
    (allDead ? undefined : 'some webhook in it has a backend or a URL: remove the dead webhook by hand');
  if (why || !config) return { finding: f.key, reason: why ?? 'configuration not in the snapshot' };
  return { type: 'delete-webhook-configuration', kind: config.kind, name: config.name, because: [f.key] };
}

/**
 * Pure: removing each finalizer that `force-remove-finalizers` names from an object being
 * deleted, when an OperatorGoneFinalizer or StuckFinalizer finding is about it and the object is
 * in scope; the others are added to `skipped` with why.
 */
function finalizerRemovals(
  findings: readonly Finding[],
  inventory: Inventory,
  policy: RemediationPolicy,
  skipped: SkippedRemediation[],
): RemediationAction[] {
  const findingKeys = new Set(findings.map((f) => f.key));
  const named = new Set(policy.forceRemoveFinalizers);
  const out: RemediationAction[] = [];
  for (const o of inventory.objects) {
    if (!o.deletionTimestamp) continue;
    for (const finalizer of o.finalizers ?? []) {
      if (!named.has(finalizer)) continue;
      const subject = finalizerGroupSubject(o.namespace, finalizer);
      const because = [
        findingKey('OperatorGoneFinalizer', subject),
        findingKey('StuckFinalizer', subject),
      ].filter((k) => findingKeys.has(k));
      if (because.length === 0) continue;
      const why =
        o.namespace !== undefined
          ? namespaceAllowed(o.namespace, policy)
          : policy.clusterWide
            ? undefined
            : 'a cluster-scoped object (only a cluster-wide scan removes those)';
      if (why) skipped.push({ finding: because[0]!, reason: `${o.resource} ${o.name}: ${why}` });
      else out.push({ type: 'remove-finalizer', object: target(o), finalizer, because });
    }
  }
  return out;
}

function target(o: ObjectMetadata) {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    resource: o.resource,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    name: o.name,
  };
}
