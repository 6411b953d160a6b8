/**
 * The root-cause linker: sets `causedBy` on findings whose cause another finding of the same
 * run names. Pure; it reads the snapshot again (the same parsers the rules use) rather than
 * text of other findings, and links only to keys that exist in the run.
 *
 * Links:
 * - NamespaceBlockedByDiscovery → StaleAPIService of each group-version its DiscoveryFailure
 *   condition names (the APIService named `<version>.<group>`, which apiregistration
 *   validation requires); every StaleAPIService when the message names none (S01).
 * - NamespaceDeletionWillHang → every StaleAPIService (any one blocks every namespace deletion).
 * - NamespaceBlockedByFinalizer → StuckFinalizer / OperatorGoneFinalizer of each finalizer that
 *   remains in the namespace (S02, S03); WebhookBackendMissing of webhooks that intercept
 *   UPDATE of a resource holding one, because they reject the finalizer's removal (S04).
 * - NamespaceContentDeletionFailed → WebhookBackendMissing of the webhooks its message quotes (S04).
 * - DeletionRefused → WebhookBackendMissing of the webhooks the server's answer quotes (a
 *   deletecollection or DELETE of kube-sweep's own that a webhook without backend failed).
 * - CRDStuckTerminating → StuckFinalizer / OperatorGoneFinalizer of its instances' finalizers (S06).
 * - NamespaceContentDeletionFailed / NamespaceStuckTerminating → PodStuckTerminating of the
 *   namespace's pods (S11: pods that no kubelet confirms are what remains).
 * - NamespaceBlockedByFinalizer → PVCProtectionBlocked of the namespace's claims (S12).
 * - PVCProtectionBlocked → PodStuckTerminating of the pods that use the claim (S12).
 * - NamespaceContentDeletionFailed → ConversionWebhookBackendMissing of the CRDs whose group and
 *   kind its message quotes (the namespace controller cannot list their objects in the preferred
 *   version when the conversion webhook is gone).
 * - StuckFinalizer of `foregroundDeletion` → the findings about the dependents with
 *   `blockOwnerDeletion` that the owners wait for (foreground-deletion.ts): their finalizer
 *   findings and any finding about the dependent object itself.
 * - Any finding about an object stored in a namespace that does not exist → that object's
 *   OrphanInMissingNamespace; a finalizer group there → the OrphanInMissingNamespace of each
 *   object waiting in it (S10: the namespace was force-finalized while they waited, so one
 *   object gets one entry and one remedy: recreate the namespace and delete it properly).
 * - HelmReleaseRecordLost → what holds its objects in deletion (helm-release-record-lost.ts, S21),
 *   and the other findings about those held objects (a held CRD's CRDStuckTerminating).
 * - The findings about objects whose finalizer removal an admission policy binding denies
 *   (admission-policy-param-missing.ts, S26): the NamespaceBlockedByFinalizer of their namespace,
 *   the finalizer findings of their finalizers there, and any finding about the object itself
 *   (PVCProtectionBlocked) → that binding's AdmissionPolicyParamMissing: the controllers act and
 *   are refused.
 * - HelmLeftover of an object whose release is stored outside its namespace, and that namespace
 *   is gone → the HelmReleaseNamespaceGone of that release's record (S28).
 * - The finalizer findings of a GitOps family's finalizers in a namespace that its own app
 *   deleted → that app's AppOfAppsSelfDeletion (app-of-apps-self-deletion.ts, S24): the
 *   controller that had to remove them went with the namespace.
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { findingKey, type Finding } from './findings.js';
import { bindingRef, paramDenials } from './admission-policy-param-missing.js';
import { selfDeletedNamespaces } from './app-of-apps-self-deletion.js';
import { intercepts, webhookConfigurations, webhookConfigurationsNamed } from './admission-webhooks.js';
import { instancesOf } from './crd-stuck.js';
import { fullObjectsOf, refOfWhole } from './kubernetes-objects.js';
import { parseFailingWebhooks, readNamespaceDeletionState } from './namespace-conditions.js';
import { blockingDependents, foregroundFinalizer, inForegroundDeletion } from './foreground-deletion.js';
import { recordLostCauses, recordLostHeld } from './helm-release-record-lost.js';
import { strandedReleases } from './helm-release-namespace-gone.js';
import { helmReleaseOf, releaseId } from './helm-releases.js';
import { blockedClaims, blockingPodKeys } from './pvc-protection-blocked.js';
import { objectIdentity, refOf, waitsForFinalizers } from './snapshot-views.js';
import { finalizerGroupSubject } from './stuck-finalizer.js';

const apiServiceKey = (name: string) =>
  findingKey('StaleAPIService', { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', name });

const webhookKey = (kind: string, name: string) =>
  findingKey('WebhookBackendMissing', { apiVersion: 'admissionregistration.k8s.io/v1', kind, name });

/** Keys of the finalizer findings for each (namespace, finalizer) that `holders` carry, plus `extra`. */
function finalizerKeys(
  holders: readonly ObjectMetadata[],
  extra: readonly { readonly namespace: string; readonly finalizer: string }[] = [],
): string[] {
  const pairs = [
    ...holders.flatMap((o) =>
      (o.finalizers ?? []).map((finalizer) => ({ namespace: o.namespace, finalizer })),
    ),
    ...extra,
  ];
  return [...new Set(pairs.map((p) => finalizerGroupSubject(p.namespace, p.finalizer)))].flatMap(
    (subject) => [findingKey('OperatorGoneFinalizer', subject), findingKey('StuckFinalizer', subject)],
  );
}

/** Keys of `code` findings about the objects of core `resource` in the namespace that are being deleted. */
function deletingKeys(
  objects: readonly ObjectMetadata[],
  resource: string,
  code: 'PodStuckTerminating' | 'PVCProtectionBlocked',
): string[] {
  return objects
    .filter((o) => o.resource === resource && o.apiVersion === 'v1' && o.deletionTimestamp)
    .map((o) => findingKey(code, refOf(o)));
}

function namespaceCauses(f: Finding, inventory: Inventory, staleKeys: readonly string[]): string[] {
  const ns = fullObjectsOf(inventory, 'namespaces').find((n) => n.metadata?.name === f.object.name);
  const state = readNamespaceDeletionState(ns?.status?.conditions);
  const objects = inventory.byNamespace.get(f.object.name) ?? [];
  const holders = objects.filter(waitsForFinalizers);
  const pods = deletingKeys(objects, 'pods', 'PodStuckTerminating');
  switch (f.code) {
    case 'NamespaceBlockedByDiscovery': {
      const gvs = state.failingGroupVersions.map((g) => g.groupVersion);
      return gvs.length
        ? gvs.map((gv) => apiServiceKey(`${gv.slice(gv.indexOf('/') + 1)}.${gv.slice(0, gv.indexOf('/'))}`))
        : [...staleKeys];
    }
    case 'NamespaceBlockedByFinalizer': {
      const finalizers = finalizerKeys(
        holders,
        state.remainingFinalizers.map((r) => ({ namespace: f.object.name, finalizer: r.finalizer })),
      );
      const webhooks = webhookConfigurations(inventory).flatMap((c) =>
        c.webhooks.some((w) =>
          holders.some((o) => intercepts(w, groupOf(o.apiVersion), o.resource, 'UPDATE')),
        )
          ? [webhookKey(c.kind, c.name)]
          : [],
      );
      return [
        ...finalizers,
        ...webhooks,
        ...deletingKeys(objects, 'persistentvolumeclaims', 'PVCProtectionBlocked'),
      ];
    }
    case 'NamespaceContentDeletionFailed':
      return [
        ...webhookConfigurationsNamed(inventory, state.failingWebhooks).map((c) =>
          webhookKey(c.kind, c.configuration),
        ),
        ...conversionKeys(inventory, state.failing.map((c) => c.message ?? '').join('\n')),
        ...pods,
      ];
    case 'NamespaceStuckTerminating':
      return pods;
    case 'NamespaceDeletionWillHang':
      return [...staleKeys];
    default:
      return [];
  }
}

/**
 * Keys of the ConversionWebhookBackendMissing findings of CRDs with a conversion webhook whose
 * group and kind (or plural) `message` quotes (`conversion webhook for <group>/<version>,
 * Kind=<Kind> failed: ...`).
 */
function conversionKeys(inventory: Inventory, message: string): string[] {
  if (!message.includes('conversion webhook')) return [];
  return fullObjectsOf(inventory, 'customresourcedefinitions')
    .filter((crd) => {
      const group = crd.spec?.group ?? '';
      const names = [crd.spec?.names?.kind, crd.spec?.names?.plural].filter((n): n is string => !!n);
      return (
        crd.spec?.conversion?.strategy === 'Webhook' &&
        group !== '' &&
        message.includes(group) &&
        names.some((n) => message.includes(n))
      );
    })
    .map((crd) =>
      findingKey(
        'ConversionWebhookBackendMissing',
        refOfWhole('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd.metadata),
      ),
    );
}

/** `objectIdentity` lives with the snapshot views (rules use it too); re-exported here for the linker's callers. */
export { objectIdentity };

/** Keys of the findings about the dependents that foreground-deleting owners in the group wait for. */
function foregroundCauses(
  f: Finding,
  inventory: Inventory,
  byObject: ReadonlyMap<string, readonly string[]>,
): string[] {
  const owners = (
    f.object.namespace !== undefined
      ? (inventory.byNamespace.get(f.object.namespace) ?? [])
      : inventory.objects.filter((o) => o.namespace === undefined)
  ).filter(inForegroundDeletion);
  const dependents = owners.flatMap((o) => blockingDependents(inventory, o));
  return [
    ...finalizerKeys(dependents.filter(waitsForFinalizers)),
    ...dependents.flatMap((d) => byObject.get(objectIdentity(refOf(d))) ?? []),
  ];
}

function crdCauses(f: Finding, inventory: Inventory): string[] {
  const crd = fullObjectsOf(inventory, 'customresourcedefinitions').find(
    (c) => c.metadata?.name === f.object.name,
  );
  return crd ? finalizerKeys(instancesOf(inventory, crd).filter(waitsForFinalizers)) : [];
}

/** Pure: finding keys by the `objectIdentity` of the object each finding is about. */
export function findingsByObject(findings: readonly Finding[]): Map<string, string[]> {
  const byObject = new Map<string, string[]>();
  for (const f of findings) {
    const id = objectIdentity(f.object);
    byObject.set(id, [...(byObject.get(id) ?? []), f.key]);
  }
  return byObject;
}

/** Keys of the OrphanInMissingNamespace findings that explain `f`, when its namespace is missing. */
function orphanCauses(f: Finding, inventory: Inventory): string[] {
  const ns = f.object.namespace;
  if (f.code === 'OrphanInMissingNamespace' || ns === undefined || inventory.namespaceNames.has(ns))
    return [];
  const waiting =
    f.code === 'OperatorGoneFinalizer' || f.code === 'StuckFinalizer'
      ? (inventory.byNamespace.get(ns) ?? []).filter(waitsForFinalizers).map(refOf)
      : [];
  return [f.object, ...waiting].map((ref) => findingKey('OrphanInMissingNamespace', ref));
}

/**
 * Keys of the findings that a denial by an admission policy binding explains (S26), each with
 * the keys of the AdmissionPolicyParamMissing findings that explain it: the namespace's
 * NamespaceBlockedByFinalizer, the finalizer groups of the denied objects, and the findings about
 * the denied objects themselves.
 */
function deniedByPolicy(
  inventory: Inventory,
  byObject: ReadonlyMap<string, readonly string[]>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (key: string, cause: string) => out.set(key, [...(out.get(key) ?? []), cause]);
  // Every held object, whatever its age (now 0): links only reach findings that exist.
  for (const d of paramDenials(inventory, { now: 0, stuckAfterSeconds: 0 })) {
    const cause = findingKey('AdmissionPolicyParamMissing', bindingRef(d));
    for (const o of d.denied) {
      if (o.namespace !== undefined)
        add(
          findingKey('NamespaceBlockedByFinalizer', refOfWhole('v1', 'Namespace', { name: o.namespace })),
          cause,
        );
      for (const key of finalizerKeys([o])) add(key, cause);
      for (const key of byObject.get(objectIdentity(refOf(o))) ?? []) add(key, cause);
    }
  }
  return out;
}

/** Keys of the HelmReleaseNamespaceGone findings by the release id (`<namespace>/<name>`) they are about. */
function strandedKeys(inventory: Inventory): Map<string, string> {
  return new Map(
    strandedReleases(inventory).map((h) => [
      releaseId(h.namespace, h.name),
      findingKey('HelmReleaseNamespaceGone', refOf(h.current.record)),
    ]),
  );
}

/** The HelmReleaseNamespaceGone key of the release a HelmLeftover's object carries the annotations of. */
function leftoverCauses(f: Finding, inventory: Inventory, stranded: ReadonlyMap<string, string>): string[] {
  if (f.code !== 'HelmLeftover' || !f.object.uid) return [];
  const release = helmReleaseOf(inventory.byUid.get(f.object.uid)?.annotations);
  const key = release && stranded.get(releaseId(release.namespace, release.name));
  return key ? [key] : [];
}

/**
 * Keys of the AppOfAppsSelfDeletion findings by the key of each finalizer finding they explain:
 * the family's finalizers on the objects held in the namespace its own app deleted (S24).
 */
function selfDeletionKeys(inventory: Inventory): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { family, match, held } of selfDeletedNamespaces(inventory)) {
    const app = findingKey('AppOfAppsSelfDeletion', refOf(match.app));
    const pairs = held.flatMap((o) =>
      (o.finalizers ?? [])
        .filter((f) => family.finalizers.includes(f))
        .map((finalizer) => ({ namespace: match.namespace, finalizer })),
    );
    for (const key of finalizerKeys([], pairs)) out.set(key, [...(out.get(key) ?? []), app]);
  }
  return out;
}

/** Pure: the findings, each with `causedBy` set to the keys of the findings that cause it. */
export function linkFindings(findings: readonly Finding[], inventory: Inventory): Finding[] {
  const keys = new Set(findings.map((f) => f.key));
  const claimUsers = new Map(
    // Every claim being deleted, whatever its age (now 0): links only reach findings that exist.
    blockedClaims(inventory, { now: 0, stuckAfterSeconds: 0 }).map((b) => [
      `${b.claim.metadata?.namespace}/${b.claim.metadata?.name}`,
      blockingPodKeys(b.users),
    ]),
  );
  const staleKeys = findings.filter((f) => f.code === 'StaleAPIService').map((f) => f.key);
  const byObject = findingsByObject(findings);
  const denied = deniedByPolicy(inventory, byObject);
  const stranded = strandedKeys(inventory);
  const selfDeleted = selfDeletionKeys(inventory);
  const foregroundKey = (f: Finding) =>
    findingKey('StuckFinalizer', finalizerGroupSubject(f.object.namespace, foregroundFinalizer));
  return findings.map((f) => {
    const candidates =
      f.code === 'DeletionRefused'
        ? webhookConfigurationsNamed(inventory, parseFailingWebhooks(f.evidence.join('\n'))).map((c) =>
            webhookKey(c.kind, c.configuration),
          )
        : f.object.kind === 'Namespace' && f.object.apiVersion === 'v1'
          ? namespaceCauses(f, inventory, staleKeys)
          : f.code === 'CRDStuckTerminating'
            ? crdCauses(f, inventory)
            : f.code === 'PVCProtectionBlocked'
              ? (claimUsers.get(`${f.object.namespace}/${f.object.name}`) ?? [])
              : f.code === 'HelmReleaseRecordLost'
                ? [
                    ...recordLostCauses(f, inventory),
                    // What is found about a held object itself (a CRD held by its instances:
                    // CRDStuckTerminating, which links on to their finalizers).
                    ...recordLostHeld(f, inventory).flatMap(
                      (o) => byObject.get(objectIdentity(refOf(o))) ?? [],
                    ),
                  ]
                : f.key === foregroundKey(f)
                  ? foregroundCauses(f, inventory, byObject)
                  : [];
    const causedBy = [
      ...new Set(
        [
          ...candidates,
          ...(denied.get(f.key) ?? []),
          ...leftoverCauses(f, inventory, stranded),
          ...(selfDeleted.get(f.key) ?? []),
          ...orphanCauses(f, inventory),
        ].filter((k) => keys.has(k) && k !== f.key),
      ),
    ];
    return causedBy.length ? { ...f, causedBy } : f;
  });
}
