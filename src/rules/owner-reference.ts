import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata, OwnerReference, ServedResource } from '../inventory/types.js';
import { objectPath, type Finding } from './findings.js';
import { buildFinding, type FindingParts } from './finding-builder.js';
import { deleteObject, getYaml, patchObject } from './kubectl.js';
import type { Rule, RuleContext } from './rule.js';
import { terminatingNamespaces } from './kubernetes-objects.js';
import { describeObject, objectsOf, refOf, wasListed } from './snapshot-views.js';

const rule = 'owner-reference';

/** Labels that the workload controllers put on what they create (apps/v1, batch/v1). */
const controllerMadeLabels = [
  'pod-template-hash',
  'controller-revision-hash',
  'batch.kubernetes.io/job-name',
];

function describeOwner(ref: OwnerReference): string {
  return `${ref.kind} ${ref.name} (${ref.apiVersion}, uid ${ref.uid})`;
}

/** Evidence about Helm ownership: the release the object names, and whether its release Secret exists. */
function helmEvidence(inventory: Inventory, o: ObjectMetadata): string[] {
  const release = o.annotations?.['meta.helm.sh/release-name'] ?? o.labels?.['app.kubernetes.io/instance'];
  if (!release || o.labels?.['app.kubernetes.io/managed-by'] !== 'Helm') return [];
  const namespace = o.annotations?.['meta.helm.sh/release-namespace'] ?? o.namespace ?? '';
  const prefix = `sh.helm.release.v1.${release}.v`;
  const exists = objectsOf(inventory, '', 'secrets').some(
    (s) => s.namespace === namespace && s.name.startsWith(prefix),
  );
  return [
    `Helm release ${namespace}/${release}: ${exists ? 'its release Secret exists' : 'no release Secret'}`,
  ];
}

type Problem = { readonly code: 'InvalidOwnerReference' | 'OrphanedDependent'; readonly parts: FindingParts };

function invalid(o: ObjectMetadata, ref: OwnerReference, index: number, why: string): Problem {
  const path = `/metadata/ownerReferences/${index}`;
  return {
    code: 'InvalidOwnerReference',
    parts: {
      object: refOf(o),
      subject: `${objectPath(refOf(o))} ownerReference ${ref.uid}`,
      message: `${describeObject(o)} has an ownerReference the garbage collector cannot resolve: ${why}`,
      evidence: [`ownerReference: ${describeOwner(ref)}`, why],
      remediation: {
        summary:
          'Fix the tool that sets this ownerReference (an owner must be in the same namespace, and a cluster-scoped ' +
          'object can only have cluster-scoped owners). Then delete the object, or remove the reference.',
        commands: [
          getYaml(o),
          '# removing the reference detaches the object from garbage collection of that owner:',
          patchObject(o, 'json', [
            { op: 'test', path: `${path}/uid`, value: ref.uid },
            { op: 'remove', path },
          ]),
        ],
      },
    },
  };
}

function orphaned(inventory: Inventory, o: ObjectMetadata, why: string, subject: string): Problem {
  return {
    code: 'OrphanedDependent',
    parts: {
      object: refOf(o),
      subject,
      message: `${describeObject(o)} was left behind by its owner: ${why}`,
      evidence: [
        why,
        ...controllerMadeLabels.filter((l) => o.labels?.[l]).map((l) => `label ${l}=${o.labels![l]}`),
        ...helmEvidence(inventory, o),
      ],
      remediation: {
        summary:
          'Delete it with background propagation (what it created goes with it), or re-adopt it by recreating ' +
          'its owner with the same selector. For the next teardown: never delete owners with --cascade=orphan.',
        commands: [getYaml(o), deleteObject(o, '--cascade=background')],
      },
    },
  };
}

/** Indexes built once per run. */
interface Lookup {
  /** `<group>/<Kind>` → a served resource of that kind (any version). */
  readonly servedKinds: ReadonlyMap<string, ServedResource>;
  readonly terminating: ReadonlySet<string>;
}

/** The problems of one ownerReference, if any. */
function checkReference(
  inventory: Inventory,
  o: ObjectMetadata,
  ref: OwnerReference,
  index: number,
  lookup: Lookup,
): Problem | undefined {
  const ownerGroup = groupOf(ref.apiVersion);
  const served = lookup.servedKinds.get(`${ownerGroup}/${ref.kind}`);
  const owner = inventory.byUid.get(ref.uid);
  if (o.namespace === undefined && (served?.namespaced || owner?.namespace !== undefined))
    return invalid(
      o,
      ref,
      index,
      `a cluster-scoped object cannot be owned by the namespaced ${ref.kind} ${ref.name}`,
    );
  if (owner) {
    if (o.namespace !== undefined && owner.namespace !== undefined && owner.namespace !== o.namespace)
      return invalid(
        o,
        ref,
        index,
        `the owner is in namespace ${owner.namespace}, not ${o.namespace} (GC event OwnerRefInvalidNamespace)`,
      );
    return undefined;
  }
  const gvFailed = inventory.failedGroupVersions.some((f) => f.groupVersion.split('/')[0] === ownerGroup);
  if (!served) {
    if (gvFailed) return undefined; // discovery failed: no conclusion
    return invalid(o, ref, index, `kind ${ref.kind} of ${ref.apiVersion} is not served by the API server`);
  }
  if (!wasListed(inventory, served.group, served.resource) || o.deletionTimestamp) return undefined;
  if (o.namespace !== undefined && lookup.terminating.has(o.namespace)) return undefined; // the namespace controller deletes it
  return orphaned(
    inventory,
    o,
    `its owner ${describeOwner(ref)} does not exist, and the garbage collector has not deleted it`,
    `${objectPath(refOf(o))} ownerReference ${ref.uid}`,
  );
}

/** S14: controller-made ReplicaSets and Pods with no controller ownerReference and nothing to adopt them. */
function checkControllerMade(inventory: Inventory, o: ObjectMetadata): Problem | undefined {
  if (groupOf(o.apiVersion) === '' ? o.resource !== 'pods' : o.resource !== 'replicasets') return undefined;
  if (o.deletionTimestamp || (o.ownerReferences ?? []).some((r) => r.controller)) return undefined;
  const hash = o.labels?.['pod-template-hash'];
  if (!hash) return undefined;
  const siblings = (inventory.byNamespace.get(o.namespace ?? '') ?? []).filter((s) => !s.deletionTimestamp);
  // A live ReplicaSet with the same hash adopts the pod; a Deployment named like the ReplicaSet adopts it.
  if (
    o.resource === 'pods' &&
    siblings.some((s) => s.resource === 'replicasets' && s.labels?.['pod-template-hash'] === hash)
  )
    return undefined;
  const deployment = o.name.endsWith(`-${hash}`) ? o.name.slice(0, -hash.length - 1) : undefined;
  if (
    o.resource === 'replicasets' &&
    siblings.some((s) => s.resource === 'deployments' && s.name === deployment)
  )
    return undefined;
  return orphaned(
    inventory,
    o,
    `it carries pod-template-hash=${hash} (made by a ${o.resource === 'pods' ? 'ReplicaSet' : 'Deployment'}) but has no controller ownerReference, and nothing in namespace ${o.namespace ?? ''} will adopt it`,
    `${objectPath(refOf(o))} without controller`,
  );
}

/**
 * owner-reference: ownerReferences that kube-controller-manager's garbage collector
 * (pkg/controller/garbagecollector) cannot resolve, and dependents their owner left behind.
 * - `InvalidOwnerReference`: a namespaced owner in another namespace (GC event
 *   OwnerRefInvalidNamespace), a cluster-scoped object owned by a namespaced kind, or an owner
 *   kind the API server does not serve;
 * - `OrphanedDependent`: an owner that no longer exists although its kind was listed in full
 *   (the GC should have deleted the dependent), or a ReplicaSet/Pod made by a controller
 *   (`pod-template-hash`) without a controller ownerReference and with nothing to adopt it
 *   (orphan propagation, `--cascade=orphan`, scenario S14).
 * Owners are looked up by UID across the snapshot. Objects being deleted, group-versions whose
 * discovery failed and kinds that could not be listed are not judged.
 */
export const ownerReferenceRule: Rule = {
  name: rule,
  title: 'Dangling or invalid ownerReferences',
  codes: ['InvalidOwnerReference', 'OrphanedDependent'],
  check(inventory: Inventory, context: RuleContext) {
    const findings: Finding[] = [];
    const lookup: Lookup = {
      servedKinds: new Map(inventory.resources.map((r) => [`${r.group}/${r.kind}`, r])),
      terminating: terminatingNamespaces(inventory),
    };
    for (const o of inventory.objects) {
      const problems = [
        ...(o.ownerReferences ?? []).map((ref, i) => checkReference(inventory, o, ref, i, lookup)),
        checkControllerMade(inventory, o),
      ];
      for (const p of problems) if (p) findings.push(buildFinding(rule, p.code, p.parts, context));
    }
    return findings;
  },
};
