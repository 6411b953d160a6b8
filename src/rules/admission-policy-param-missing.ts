/**
 * Admission policy bindings (ValidatingAdmissionPolicy and MutatingAdmissionPolicy) that deny
 * because their param object is missing (S26, kubernetes/kubernetes#129883). A binding's `paramRef` names the param object of the policy's
 * `paramKind`; with a namespaced paramKind and no `paramRef.namespace`, the param is looked up
 * in the namespace of each request. When none is found and `parameterNotFoundAction` is `Deny`,
 * the binding fails to configure, and the policy's `failurePolicy` (default `Fail`) turns that
 * into a denial of every request the policy and the binding match, whatever the validations say
 * (k8s.io/apiserver pkg/admission/plugin/policy/validating dispatcher: `failed to configure
 * binding: no params found for policy binding with \`Deny\` parameterNotFoundAction`). Params are
 * resolved before any matchCondition or expression runs. A namespace being deleted loses the
 * param with everything else, and from then on the finalizer removals of what remains there are
 * denied: the namespace never finishes, and the param cannot be recreated in it.
 * MutatingAdmissionPolicy bindings share the dispatcher and deny the same way (seen on v1.37.2:
 * `policy '<p>' with binding '<b>' denied request: failed to configure binding: …`); both are judged.
 */
import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata, ServedResource } from '../inventory/types.js';
import { describeSelector, rulesMatch, selectorMatches } from './admission-webhooks.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command, neverFinalizeNamespace } from './kubectl.js';
import {
  fullObjectsOf,
  refOfWhole,
  terminatingNamespaces,
  type MatchResources,
  type ValidatingAdmissionPolicyBindingObject,
  type ValidatingAdmissionPolicyObject,
} from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import {
  capLines,
  describeObject,
  objectsOf,
  stuckDeletionAge,
  typeName,
  waitsForFinalizers,
  wasListed,
} from './snapshot-views.js';

const rule = 'admission-policy-param-missing';
const admissionApiVersion = 'admissionregistration.k8s.io/v1';

/** The two kinds of admission policy whose bindings take params, and how each is named. */
export const policyFlavours = [
  {
    policyKind: 'ValidatingAdmissionPolicy',
    bindingKind: 'ValidatingAdmissionPolicyBinding',
    policies: 'validatingadmissionpolicies',
    bindings: 'validatingadmissionpolicybindings',
  },
  {
    policyKind: 'MutatingAdmissionPolicy',
    bindingKind: 'MutatingAdmissionPolicyBinding',
    policies: 'mutatingadmissionpolicies',
    bindings: 'mutatingadmissionpolicybindings',
  },
] as const;

/** One entry of `policyFlavours`. */
export type PolicyFlavour = (typeof policyFlavours)[number];

/** The finding's object of a binding. */
export function bindingRef(d: Pick<ParamDenial, 'flavour' | 'binding'>) {
  return refOfWhole(admissionApiVersion, d.flavour.bindingKind, d.binding.metadata);
}

/** The denial the API server returns (quoted in the evidence). */
export const paramNotFoundDenial =
  'failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction';

/** One binding whose missing param denies the finalizer removals of objects held in deletion. */
export interface ParamDenial {
  /** Validating or mutating. */
  readonly flavour: PolicyFlavour;
  readonly binding: ValidatingAdmissionPolicyBindingObject;
  readonly policy: ValidatingAdmissionPolicyObject;
  /** The served resource of the policy's paramKind. */
  readonly param: ServedResource;
  /** Objects held in deletion by finalizers whose removal (an UPDATE) the binding denies. */
  readonly denied: readonly ObjectMetadata[];
  /** The namespaces where the param was looked for and is missing, sorted. */
  readonly missingIn: readonly string[];
}

/** Whether UPDATE of `o` is matched by one MatchResources (absent: matches all). */
function matchesResources(
  match: MatchResources | undefined,
  o: ObjectMetadata,
  namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>,
  requireRules: boolean,
): boolean {
  if (!match) return !requireRules;
  const group = groupOf(o.apiVersion);
  const named = (rules: MatchResources['resourceRules']) =>
    (rules ?? []).filter((r) => !r.resourceNames?.length || r.resourceNames.includes(o.name));
  if (requireRules || match.resourceRules?.length) {
    if (!rulesMatch(named(match.resourceRules), group, o.resource, 'UPDATE')) return false;
  }
  if (rulesMatch(named(match.excludeResourceRules), group, o.resource, 'UPDATE')) return false;
  const nsLabels = o.namespace !== undefined ? namespaceLabels.get(o.namespace) : undefined;
  return (
    (o.namespace === undefined || selectorMatches(match.namespaceSelector, nsLabels ?? {})) &&
    selectorMatches(match.objectSelector, o.labels ?? {})
  );
}

/** The served resource of a paramKind (`apiVersion` + `kind`), if discovery lists it. */
function paramResource(inventory: Inventory, policy: ValidatingAdmissionPolicyObject) {
  const kind = policy.spec?.paramKind;
  if (!kind?.apiVersion || !kind.kind) return undefined;
  const group = groupOf(kind.apiVersion);
  const version = kind.apiVersion.slice(kind.apiVersion.indexOf('/') + 1);
  return inventory.resources.find(
    (r) => r.group === group && r.version === version && r.kind === kind.kind && !r.resource.includes('/'),
  );
}

/**
 * The namespace where the param for a request on `o` is looked up ('' for a cluster-scoped
 * param), or undefined when the API server would not look it up (a cluster-scoped request with
 * a namespaced paramKind and no paramRef.namespace: another configuration error, not judged).
 */
function paramNamespaceFor(
  binding: ValidatingAdmissionPolicyBindingObject,
  param: ServedResource,
  o: ObjectMetadata,
): string | undefined {
  if (!param.namespaced) return '';
  return binding.spec?.paramRef?.namespace || o.namespace;
}

/** Whether a param object for the binding exists in `namespace` ('' for cluster-scoped). */
function paramExists(
  params: readonly ObjectMetadata[],
  binding: ValidatingAdmissionPolicyBindingObject,
  namespace: string,
): boolean {
  const ref = binding.spec?.paramRef;
  return params.some(
    (p) =>
      (p.namespace ?? '') === namespace &&
      (ref?.name ? p.name === ref.name : selectorMatches(ref?.selector, p.labels ?? {})),
  );
}

/**
 * Pure: every binding whose missing param denies the finalizer removal of objects held in
 * deletion past the threshold: a paramRef with `parameterNotFoundAction: Deny`, a policy that
 * takes params and does not ignore failures, and objects with a deletionTimestamp and
 * finalizers that the policy's matchConstraints and the binding's matchResources match on
 * UPDATE (selectors evaluated against the snapshot's labels), in a namespace where no param is
 * found. Not judged when the param kind was not listed in full.
 */
export function paramDenials(
  inventory: Inventory,
  context: Pick<RuleContext, 'now' | 'stuckAfterSeconds'>,
): ParamDenial[] {
  const namespaceLabels = new Map(
    fullObjectsOf(inventory, 'namespaces').map((n) => [n.metadata?.name ?? '', n.metadata?.labels ?? {}]),
  );
  const held = inventory.objects.filter(
    (o) => waitsForFinalizers(o) && stuckDeletionAge(o.deletionTimestamp, context) !== undefined,
  );
  const out: ParamDenial[] = [];
  for (const flavour of policyFlavours)
    out.push(...flavourDenials(inventory, flavour, held, namespaceLabels));
  return out;
}

/** The denials of the bindings of one flavour (validating or mutating). */
function flavourDenials(
  inventory: Inventory,
  flavour: PolicyFlavour,
  held: readonly ObjectMetadata[],
  namespaceLabels: ReadonlyMap<string, Readonly<Record<string, string>>>,
): ParamDenial[] {
  const policies = new Map(
    fullObjectsOf(inventory, flavour.policies).map((p) => [p.metadata?.name ?? '', p]),
  );
  const out: ParamDenial[] = [];
  for (const binding of fullObjectsOf(inventory, flavour.bindings)) {
    const policy = policies.get(binding.spec?.policyName ?? '');
    const ref = binding.spec?.paramRef;
    if (!policy || !ref || ref.parameterNotFoundAction !== 'Deny') continue;
    if ((policy.spec?.failurePolicy ?? 'Fail') !== 'Fail') continue;
    const param = paramResource(inventory, policy);
    if (!param || !wasListed(inventory, param.group, param.resource)) continue;
    const params = objectsOf(inventory, param.group, param.resource);
    const missingIn = new Set<string>();
    const denied = held.filter((o) => {
      if (!matchesResources(policy.spec?.matchConstraints, o, namespaceLabels, true)) return false;
      if (!matchesResources(binding.spec?.matchResources, o, namespaceLabels, false)) return false;
      const ns = paramNamespaceFor(binding, param, o);
      if (ns === undefined || paramExists(params, binding, ns)) return false;
      missingIn.add(ns);
      return true;
    });
    if (denied.length)
      out.push({ flavour, binding, policy, param, denied, missingIn: [...missingIn].sort() });
  }
  return out;
}

/** `ConfigMap storage-limits` or `ConfigMap labelled a=b` of a binding's paramRef. */
function paramName(d: ParamDenial): string {
  const ref = d.binding.spec?.paramRef;
  return `${d.param.kind} ${ref?.name ? ref.name : `selected by ${describeSelector(ref?.selector) ?? 'any labels'}`}`;
}

/** Where the param is missing, in words: `in namespace team-a (Terminating)`. */
function whereMissing(d: ParamDenial, terminating: ReadonlySet<string>): string {
  if (!d.param.namespaced) return 'in the cluster';
  const list = d.missingIn.map((ns) => `${ns}${terminating.has(ns) ? ' (Terminating)' : ''}`);
  return `in namespace${list.length === 1 ? '' : 's'} ${list.join(', ')}`;
}

/** Evidence lines: the binding's paramRef, the policy's failure policy and match, the missing param, the held objects. */
function denialEvidence(d: ParamDenial, terminating: ReadonlySet<string>): string[] {
  const ref = d.binding.spec?.paramRef;
  const policyName = d.policy.metadata?.name ?? '';
  const match = d.policy.spec?.matchConstraints;
  const rules = (match?.resourceRules ?? []).map(
    (r) =>
      `policy ${policyName} matches apiGroups [${(r.apiGroups ?? []).join(', ')}] resources ` +
      `[${(r.resources ?? []).join(', ')}] operations [${(r.operations ?? []).join(', ')}]`,
  );
  return [
    `binding ${d.binding.metadata?.name ?? ''}: policyName ${policyName}, paramRef ` +
      `${ref?.name ? `name ${ref.name}` : `selector ${describeSelector(ref?.selector) ?? '{}'}`}, namespace ` +
      `${ref?.namespace ? ref.namespace : "unset (looked up in each request's namespace)"}, parameterNotFoundAction Deny`,
    `policy ${policyName}: paramKind ${d.policy.spec?.paramKind?.apiVersion ?? ''} ${d.param.kind}, failurePolicy ` +
      `${d.policy.spec?.failurePolicy ?? 'Fail (the default)'}`,
    ...rules,
    `no ${paramName(d)} ${whereMissing(d, terminating)}`,
    `so every update the binding matches there is denied, a controller's finalizer removal included, with ` +
      `"${paramNotFoundDenial}"; params are resolved before any matchCondition runs, so the policy cannot exempt deleting objects`,
    ...capLines(
      d.denied.map(
        (o) =>
          `${describeObject(o)} [${(o.finalizers ?? []).join(', ')}] (deletionTimestamp ${o.deletionTimestamp ?? ''})`,
      ),
    ),
  ];
}

/** The remedy: relax the binding while the namespace terminates (or recreate the param), then restore it. */
function denialRemediation(d: ParamDenial, terminating: ReadonlySet<string>) {
  const binding = d.binding.metadata?.name ?? '';
  const ending = d.missingIn.filter((ns) => terminating.has(ns));
  const nsList = d.missingIn.join(', ');
  const bindingType = typeName(d.flavour.bindings, 'admissionregistration.k8s.io');
  const patch = (from: string | undefined, to: string) =>
    command(
      'kubectl',
      'patch',
      bindingType,
      binding,
      '--type',
      'json',
      '-p',
      JSON.stringify([
        ...(from ? [{ op: 'test', path: '/spec/paramRef/parameterNotFoundAction', value: from }] : []),
        { op: 'replace', path: '/spec/paramRef/parameterNotFoundAction', value: to },
      ]),
    );
  const summary = ending.length
    ? `Set spec.paramRef.parameterNotFoundAction to Allow on ${d.flavour.bindingKind} ${binding} until ` +
      `namespace ${ending.join(', ')} is gone, then set it back to Deny: ${paramName(d)} cannot be recreated in a ` +
      'Terminating namespace, and while it is missing every finalizer removal the binding matches there is denied. ' +
      "(Excluding the namespace through the binding's matchResources.namespaceSelector works too.) The finalizers' " +
      'controllers then finish on their own. Do not delete the policy for good and do not force-finalize the ' +
      'namespace. For the next environment: keep params in a namespace that is not torn down with it ' +
      '(paramRef.namespace), or relax the binding before deleting the namespace.'
    : `Recreate ${paramName(d)} in namespace ${nsList} with the data policy ${d.policy.metadata?.name ?? ''} ` +
      `expects (or set spec.paramRef.parameterNotFoundAction to Allow on ${d.flavour.bindingKind} ${binding}): ` +
      'until then every update the binding matches there is denied, finalizer removals included.';
  const commands = [
    command('kubectl', 'get', bindingType, binding, '-o', 'yaml'),
    ...(ending.length
      ? [
          patch('Deny', 'Allow'),
          ...ending.map((ns) =>
            command('kubectl', 'wait', '--for=delete', `namespace/${ns}`, '--timeout=10m'),
          ),
          `# then restore the binding:`,
          patch(undefined, 'Deny'),
          neverFinalizeNamespace,
        ]
      : [`# recreate ${paramName(d)} in namespace ${nsList} as the policy expects it`]),
  ];
  return { summary, commands };
}

function denialFinding(d: ParamDenial, context: RuleContext, terminating: ReadonlySet<string>): Finding {
  const binding = d.binding.metadata?.name ?? '';
  const count = `${d.denied.length} object${d.denied.length === 1 ? '' : 's'}`;
  const gone = d.missingIn.some((ns) => terminating.has(ns));
  return buildFinding(
    rule,
    'AdmissionPolicyParamMissing',
    {
      object: bindingRef(d),
      namespaces: [...new Set(d.denied.map((o) => o.namespace))],
      message:
        `${d.flavour.bindingKind} ${binding} denies the finalizer removal of ${count} held in deletion: ` +
        `its param ${paramName(d)} is missing ${whereMissing(d, terminating)}, and its parameterNotFoundAction ` +
        `is Deny with failurePolicy Fail` +
        (gone ? ', so the namespace cannot finish, and the param cannot be recreated there' : ''),
      evidence: denialEvidence(d, terminating),
      remediation: denialRemediation(d, terminating),
    },
    context,
  );
}

/**
 * admission-policy-param-missing (scenario S26): `AdmissionPolicyParamMissing` (error) on each
 * ValidatingAdmissionPolicyBinding or MutatingAdmissionPolicyBinding whose missing param denies the finalizer removal of objects
 * held in deletion (`paramDenials`). The linker makes it the cause of the namespace, finalizer
 * and claim findings of the objects it denies (the controller acts and is refused). The remedy
 * relaxes the binding (parameterNotFoundAction Allow) until the namespace is gone and restores
 * it; never deletes the policy for good nor force-finalizes (hypershift PR #6616 deletes the
 * binding before its policy on teardown).
 */
export const admissionPolicyParamMissingRule: Rule = {
  name: rule,
  title: 'Admission policy bindings that deny finalizer removals because their param is missing',
  codes: ['AdmissionPolicyParamMissing'],
  check(inventory, context) {
    const terminating = terminatingNamespaces(inventory);
    return paramDenials(inventory, context).map((d) => denialFinding(d, context, terminating));
  },
};
