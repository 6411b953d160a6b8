import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding, type FindingParts } from './finding-builder.js';
import { deleteObject, getYaml, patchObject } from './kubectl.js';
import {
  fullObjectsOf,
  terminatingNamespaces,
  type BindingObject,
  type RbacSubject,
} from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import { describeObject, objectsOf, refOf, wasListed } from './snapshot-views.js';

const rule = 'rbac-dangling-subjects';

/** The label kube-apiserver's RBAC bootstrap puts on the roles and bindings it creates itself. */
export const bootstrapLabel = 'kubernetes.io/bootstrapping';

/** Which service accounts a subject stands for: one (`name`) or all of a namespace. */
interface ServiceAccountSubject {
  readonly index: number;
  readonly namespace: string;
  /** Undefined: every ServiceAccount of the namespace (Group `system:serviceaccounts:<ns>`). */
  readonly name: string | undefined;
  readonly text: string;
}

/**
 * Pure: the service accounts a binding subject names, in any of the three spellings
 * (k8s.io/apiserver/pkg/authentication/serviceaccount): kind ServiceAccount with a namespace,
 * User `system:serviceaccount:<ns>:<name>`, Group `system:serviceaccounts:<ns>`. Undefined for
 * other users and groups (they do not live in a namespace).
 */
export function serviceAccountOf(subject: RbacSubject, index: number): ServiceAccountSubject | undefined {
  const name = subject.name ?? '';
  if (subject.kind === 'ServiceAccount' && subject.namespace)
    return { index, namespace: subject.namespace, name, text: `ServiceAccount ${subject.namespace}/${name}` };
  const user = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  if (subject.kind === 'User' && user)
    return { index, namespace: user[1]!, name: user[2]!, text: `User ${name}` };
  const group = /^system:serviceaccounts:([^:]+)$/.exec(name);
  if (subject.kind === 'Group' && group)
    return { index, namespace: group[1]!, name: undefined, text: `Group ${name}` };
  return undefined;
}

const describeSubject = (s: RbacSubject) =>
  `${s.kind ?? ''} ${s.namespace ? `${s.namespace}/` : ''}${s.name ?? ''}`.trim();

/**
 * The JSON patch that removes the subjects at `indexes`, highest index first so that each
 * index still points where the snapshot saw it, each guarded by a `test` of the subject's name.
 */
function removeSubjectsPatch(binding: BindingObject, indexes: readonly number[]): unknown[] {
  const ops = [...indexes]
    .sort((a, b) => b - a)
    .flatMap((i) => [
      { op: 'test', path: `/subjects/${i}/name`, value: binding.subjects?.[i]?.name ?? '' },
      { op: 'remove', path: `/subjects/${i}` },
    ]);
  return ops;
}

/** What every finding about one binding uses. */
interface BindingFacts {
  /** The binding's metadata in the snapshot. */
  readonly meta: ObjectMetadata;
  /** `<roleRef kind> <roleRef name>`. */
  readonly role: string;
  readonly subjectCount: number;
  /** The namespaces of the subjects whose namespace is gone, sorted, each once. */
  readonly goneNamespaces: readonly string[];
  readonly evidence: readonly string[];
  /** The kubectl command that patches out the subjects at these indexes. */
  readonly patch: (indexes: readonly number[]) => string;
}

/**
 * Pure: the evidence about a binding: its roleRef, one line per subject (its namespace gone, its
 * ServiceAccount missing, or not dangling), what a namespace created again under a gone name
 * would get, and why nothing cleans bindings up.
 */
function bindingEvidence(
  binding: BindingObject,
  role: string,
  gone: readonly ServiceAccountSubject[],
  missing: readonly ServiceAccountSubject[],
): string[] {
  const goneIndexes = new Set(gone.map((s) => s.index));
  const missingIndexes = new Set(missing.map((s) => s.index));
  const subjectLines = (binding.subjects ?? []).map((s, i) =>
    goneIndexes.has(i)
      ? `subject ${describeSubject(s)}: namespace ${gone.find((g) => g.index === i)!.namespace} does not exist`
      : missingIndexes.has(i)
        ? `subject ${describeSubject(s)}: no such ServiceAccount in namespace ${s.namespace ?? ''} (the namespace exists)`
        : `subject ${describeSubject(s)}: not dangling`,
  );
  const reuse = gone.map(
    (s) =>
      `name reuse: a namespace created again as ${s.namespace} ` +
      `${s.name === undefined ? 'gets these rights for every ServiceAccount in it' : `with a ServiceAccount ${s.name} gets these rights`}`,
  );
  return [
    `roleRef: ${role}`,
    ...subjectLines,
    ...reuse,
    'neither the namespace controller nor the garbage collector edits bindings, and a binding may name a subject that does not exist yet (kubernetes/kubernetes#89098)',
  ];
}

/**
 * The finding about a binding with service-account subjects whose namespace is `gone` or whose
 * ServiceAccount is `missing` (not both empty): RBACBindingLeftover when every subject is gone,
 * RBACBindingDanglingSubject when some are, and that code as `info` when only ServiceAccounts
 * are missing. Undefined when the binding is not in the snapshot's metadata.
 */
function bindingFinding(
  inventory: Inventory,
  binding: BindingObject,
  gone: readonly ServiceAccountSubject[],
  missing: readonly ServiceAccountSubject[],
  context: RuleContext,
): Finding | undefined {
  const meta = inventory.byUid.get(binding.metadata?.uid ?? '');
  if (!meta) return undefined;
  const subjectCount = (binding.subjects ?? []).length;
  const role = `${binding.roleRef?.kind ?? 'Role'} ${binding.roleRef?.name ?? ''}`;
  const facts: BindingFacts = {
    meta,
    role,
    subjectCount,
    goneNamespaces: [...new Set(gone.map((s) => s.namespace))].sort(),
    evidence: bindingEvidence(binding, role, gone, missing),
    patch: (indexes) => patchObject(meta, 'json', removeSubjectsPatch(binding, indexes)),
  };
  if (gone.length > 0 && gone.length === subjectCount)
    return buildFinding(rule, 'RBACBindingLeftover', leftoverParts(facts), context);
  if (gone.length > 0)
    return buildFinding(rule, 'RBACBindingDanglingSubject', goneSubjectsParts(facts, gone), context);
  return buildFinding(rule, 'RBACBindingDanglingSubject', missingAccountsParts(facts, missing), context);
}

/** Pure: every subject's namespace is gone: the binding is a leftover of that environment; delete it. */
function leftoverParts(facts: BindingFacts): FindingParts {
  const { meta, role, goneNamespaces } = facts;
  return {
    object: refOf(meta),
    namespaces: [meta.namespace, ...goneNamespaces],
    message:
      `${describeObject(meta)} grants ${role} only to ServiceAccounts of namespaces that no longer exist ` +
      `(${goneNamespaces.join(', ')}): a leftover of that environment, and a new namespace of the same name ` +
      'would inherit the rights',
    evidence: facts.evidence,
    remediation: {
      summary:
        'Delete the binding: nothing it names exists any more. For the next teardown, delete the bindings ' +
        'that name the environment service accounts together with its namespaces (cluster-scoped bindings ' +
        'never go with a namespace).',
      commands: [getYaml(meta), deleteObject(meta)],
    },
  };
}

/** Pure: some subjects' namespaces are gone, besides others: patch out just those subjects. */
function goneSubjectsParts(facts: BindingFacts, gone: readonly ServiceAccountSubject[]): FindingParts {
  const { meta, role, subjectCount } = facts;
  const others = subjectCount - gone.length;
  return {
    object: refOf(meta),
    namespaces: [meta.namespace, ...facts.goneNamespaces],
    message:
      `${describeObject(meta)} grants ${role} to ${gone.length} subject${gone.length === 1 ? '' : 's'} in ` +
      `namespaces that no longer exist (${gone.map((s) => s.text).join(', ')}) besides ` +
      `${others} other${others === 1 ? '' : 's'}: a new namespace ` +
      'of the same name would inherit the rights',
    evidence: facts.evidence,
    remediation: {
      summary:
        'Remove just the dangling subjects from the binding, not the binding: it names other subjects too, so ' +
        'it belongs to someone else.',
      commands: [getYaml(meta), facts.patch(gone.map((s) => s.index))],
    },
  };
}

/** Pure: only ServiceAccounts are missing, in namespaces that exist (`info`): patch out those subjects. */
function missingAccountsParts(facts: BindingFacts, missing: readonly ServiceAccountSubject[]): FindingParts {
  const { meta, role } = facts;
  return {
    object: refOf(meta),
    severity: 'info',
    message:
      `${describeObject(meta)} grants ${role} to ServiceAccounts that do not exist in namespaces that do ` +
      `(${missing.map((s) => s.text).join(', ')}): whoever creates them gets the rights`,
    evidence: facts.evidence,
    remediation: {
      summary:
        'Remove the subject if its ServiceAccount is not coming back (a binding may be made before its ' +
        'ServiceAccount on purpose, so this ranks below a missing namespace).',
      commands: [getYaml(meta), facts.patch(missing.map((s) => s.index))],
    },
  };
}

/**
 * rbac-dangling-subjects (scenario S19): RoleBindings and ClusterRoleBindings
 * (rbac.authorization.k8s.io/v1) whose subjects are service accounts (kind ServiceAccount, User
 * `system:serviceaccount:<ns>:<name>`, Group `system:serviceaccounts:<ns>`) of namespaces that
 * do not exist. Every subject dangling: `RBACBindingLeftover` (a leftover of that environment,
 * delete it); some: `RBACBindingDanglingSubject` (patch out just those). Both warn: a namespace
 * created again under the same name (the next `pr-123`) silently gets the rights. Ranked below
 * them, as `info`: ServiceAccounts that do not exist in a namespace that does, except in the
 * control plane's own bootstrap bindings (label `kubernetes.io/bootstrapping`), whose
 * controller accounts exist only when kube-controller-manager uses service-account credentials.
 * Namespaces being deleted count as existing. Not judged unless bindings, namespaces and
 * ServiceAccounts were all listed; bindings being deleted are skipped.
 */
export const rbacDanglingSubjectsRule: Rule = {
  name: rule,
  title: 'RBAC bindings that name service accounts of deleted namespaces',
  codes: ['RBACBindingLeftover', 'RBACBindingDanglingSubject'],
  check(inventory, context) {
    const rbac = 'rbac.authorization.k8s.io';
    const listed =
      wasListed(inventory, rbac, 'rolebindings') &&
      wasListed(inventory, rbac, 'clusterrolebindings') &&
      wasListed(inventory, '', 'namespaces') &&
      wasListed(inventory, '', 'serviceaccounts');
    if (!listed) return [];
    const accounts = new Set(
      objectsOf(inventory, '', 'serviceaccounts').map((o) => `${o.namespace}/${o.name}`),
    );
    const terminating = terminatingNamespaces(inventory);
    const findings: Finding[] = [];
    const bindings = [
      ...fullObjectsOf(inventory, 'clusterrolebindings'),
      ...fullObjectsOf(inventory, 'rolebindings'),
    ];
    for (const binding of bindings) {
      if (binding.metadata?.deletionTimestamp) continue;
      const named = (binding.subjects ?? []).flatMap((s, i) => serviceAccountOf(s, i) ?? []);
      const gone = named.filter((s) => !inventory.namespaceNames.has(s.namespace));
      const bootstrap = binding.metadata?.labels?.[bootstrapLabel] !== undefined;
      const missing = named.filter(
        (s) =>
          !bootstrap &&
          s.name !== undefined &&
          inventory.namespaceNames.has(s.namespace) &&
          !terminating.has(s.namespace) &&
          !accounts.has(`${s.namespace}/${s.name}`),
      );
      if (gone.length === 0 && missing.length === 0) continue;
      const finding = bindingFinding(inventory, binding, gone, missing, context);
      if (finding) findings.push(finding);
    }
    return findings;
  },
};
