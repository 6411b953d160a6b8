import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata, ObjectRef } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding, type FindingParts } from './finding-builder.js';
import { command, getYaml, neverFinalizeNamespace, stripFinalizers } from './kubectl.js';
import { conditionOf, fullObjectsOf, refOfWhole, type NamespaceObject } from './kubernetes-objects.js';
import {
  describeCondition,
  namespaceConditionTypes as types,
  readNamespaceDeletionState,
  type NamespaceDeletionState,
} from './namespace-conditions.js';
import type { Rule, RuleContext } from './rule.js';
import {
  capLines,
  describeObject,
  formatDuration,
  stuckDeletionAge,
  typeName,
  typeNameOf,
  waitsForFinalizers,
  wasListed,
} from './snapshot-views.js';
import { webhookConfigurationsNamed } from './admission-webhooks.js';

const rule = 'namespace-stuck';

/** A Terminating namespace past the threshold, with what its conditions and the snapshot say. */
interface StuckNamespace {
  readonly ref: ObjectRef;
  readonly name: string;
  readonly age: number;
  readonly state: NamespaceDeletionState;
  /** Objects of the snapshot in the namespace, the Namespace itself excluded. */
  readonly objects: readonly ObjectMetadata[];
  /** The Namespace's own metadata (for its metadata.finalizers). */
  readonly self: ObjectMetadata | undefined;
}

function describeWithFinalizers(o: ObjectMetadata): string {
  const finalizers = o.finalizers?.length ? ` [${o.finalizers.join(', ')}]` : '';
  const deleting = o.deletionTimestamp ? ` (deletionTimestamp ${o.deletionTimestamp})` : '';
  return `${describeObject(o)}${finalizers}${deleting}`;
}

/**
 * Evidence shared by the findings of one namespace: what remains per the namespace controller's
 * messages, what remains per the snapshot, and where the two disagree.
 */
function remainingEvidence(ns: StuckNamespace, inventory: Inventory): string[] {
  const lines: string[] = [];
  for (const r of ns.state.remainingResources)
    lines.push(`remaining per the namespace controller: ${typeName(r.resource, r.group)} × ${r.count}`);
  for (const f of ns.state.remainingFinalizers)
    lines.push(`finalizer per the namespace controller: ${f.finalizer} in ${f.count} objects`);
  lines.push(...capLines(ns.objects.map((o) => `in the snapshot: ${describeWithFinalizers(o)}`)));
  for (const r of ns.state.remainingResources) {
    const seen = ns.objects.filter((o) => typeNameOf(o) === typeName(r.resource, r.group)).length;
    if (seen === r.count) continue;
    const why = wasListed(inventory, r.group, r.resource)
      ? ''
      : ' (this resource was not listed: see coverage)';
    lines.push(
      `${typeName(r.resource, r.group)}: ${r.count} per the namespace controller, ${seen} in the snapshot${why}`,
    );
  }
  return lines;
}

function header(ns: StuckNamespace): string {
  return `Namespace ${ns.name} has been Terminating for ${formatDuration(ns.age)}`;
}

function discoveryFinding(ns: StuckNamespace, inventory: Inventory): FindingParts {
  const gvs = ns.state.failingGroupVersions.map((g) => g.groupVersion);
  const apiServiceNames = gvs.map((gv) => {
    const [group, version] = gv.split('/');
    return `${version}.${group}`;
  });
  const known = new Map(inventory.failedGroupVersions.map((f) => [f.groupVersion, f.message]));
  return {
    object: ns.ref,
    message:
      `${header(ns)}: the namespace controller cannot discover ${gvs.length ? gvs.join(', ') : 'some API groups'}, ` +
      'and it does not finish a namespace until discovery is complete',
    evidence: [
      describeCondition(conditionOf(ns.state.failing, types.discoveryFailure)!),
      ...ns.state.failingGroupVersions.map((g) => `${g.groupVersion}: ${g.error}`),
      ...gvs.filter((gv) => known.has(gv)).map((gv) => `in the snapshot: ${known.get(gv)}`),
      ...remainingEvidence(ns, inventory),
    ],
    remediation: {
      summary:
        'Make the failing API group discoverable again: restore the backend of its APIService, or delete the ' +
        'APIService when that API is no longer wanted. The namespace controller then finishes on its own.',
      commands: [
        ...apiServiceNames.map((name) => command('kubectl', 'get', 'apiservice', name, '-o', 'yaml')),
        ...apiServiceNames.flatMap((name) => [
          `# if the API is no longer wanted (its objects live in the extension server, not in this cluster's etcd):`,
          command('kubectl', 'delete', 'apiservice', name),
        ]),
        neverFinalizeNamespace,
      ],
    },
  };
}

/** The finalizers the namespace's content carries: the condition's and the snapshot's, sorted. */
function contentFinalizersOf(ns: StuckNamespace, content: readonly ObjectMetadata[]): string[] {
  return [
    ...new Set([
      ...ns.state.remainingFinalizers.map((f) => f.finalizer),
      ...content.flatMap((o) => o.finalizers!),
    ]),
  ].sort();
}

/**
 * The message of a namespace held by finalizers: its own `metadata.finalizers` (set by some
 * controller on the Namespace object; the namespace controller removes only `spec.finalizers`)
 * said as such, and the finalizers its content still carries.
 */
function finalizerMessage(ns: StuckNamespace, own: readonly string[], content: readonly ObjectMetadata[]) {
  const finalizers = contentFinalizersOf(ns, content);
  const parts = [
    ...(own.length
      ? [
          `it is held by its own metadata.finalizers ${own.join(', ')}, which only the controller that set ` +
            'them removes (the namespace controller removes only spec.finalizers)',
        ]
      : []),
    ...(content.length || finalizers.length || !own.length
      ? [
          `${content.length || 'some'} object${content.length === 1 ? '' : 's'} still carry ` +
            `finalizer${finalizers.length === 1 ? '' : 's'} ${finalizers.join(', ')} that no controller has removed`,
        ]
      : []),
  ];
  return `${header(ns)}: ${parts.join('; and ')}`;
}

/**
 * The first safe action of a namespace held by finalizers, one sentence that names them: restore
 * the controllers of the finalizers its content carries, and the controller that set the
 * Namespace's own metadata.finalizers (the namespace controller never removes those).
 */
function finalizerAction(ns: StuckNamespace, own: readonly string[], content: readonly ObjectMetadata[]) {
  const contentFinalizers = contentFinalizersOf(ns, content);
  const list = (names: readonly string[]) => `finalizer${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
  const parts = [
    ...(contentFinalizers.length
      ? [`the controller of ${list(contentFinalizers)} on the objects in namespace ${ns.name}`]
      : []),
    ...(own.length ? [`the controller that set ${list(own)} on Namespace ${ns.name} itself`] : []),
  ];
  return (
    `Restore ${parts.length ? parts.join(', and ') : `the controllers of the finalizers in namespace ${ns.name}`} ` +
    '(reinstall or scale up the operator that owns each) and let it remove them after its cleanup' +
    (own.length ? '; the namespace controller never removes metadata.finalizers.' : '.')
  );
}

function finalizerFinding(ns: StuckNamespace, inventory: Inventory): FindingParts {
  const content = ns.objects.filter(waitsForFinalizers);
  const own = ns.self && waitsForFinalizers(ns.self) ? ns.self.finalizers! : [];
  const holders = [...content, ...(own.length ? [ns.self!] : [])];
  const conditions = ns.state.failing.filter(
    (c) => c.type === types.contentRemaining || c.type === types.finalizersRemaining,
  );
  return {
    object: ns.ref,
    message: finalizerMessage(ns, own, content),
    evidence: [
      ...(own.length ? [`the Namespace's own metadata.finalizers: ${own.join(', ')}`] : []),
      ...conditions.map(describeCondition),
      ...remainingEvidence(ns, inventory),
    ],
    remediation: {
      summary: `${finalizerAction(ns, own, content)} Only if a controller is gone for good, remove its finalizers from exactly these objects.`,
      commands: [...holders.map(getYaml), neverFinalizeNamespace, ...stripFinalizers(holders)],
    },
  };
}

function contentFailureFinding(ns: StuckNamespace, inventory: Inventory): FindingParts {
  const configurations = webhookConfigurationsNamed(inventory, ns.state.failingWebhooks);
  return {
    object: ns.ref,
    message:
      `${header(ns)}: the namespace controller fails to delete some of its content` +
      (ns.state.failingWebhooks.length
        ? `; admission webhook ${ns.state.failingWebhooks.join(', ')} rejects the deletes`
        : ''),
    evidence: [
      describeCondition(conditionOf(ns.state.failing, types.contentFailure)!),
      ...configurations.map((c) => `admission webhook ${c.webhook} belongs to ${c.kind} ${c.configuration}`),
      ...remainingEvidence(ns, inventory),
    ],
    remediation: {
      summary: configurations.length
        ? 'Delete the webhook configuration whose backend is gone (or set its failurePolicy to Ignore); the ' +
          'namespace controller retries on its own.'
        : 'Fix what the condition message names (for pods that never finish terminating: their node); the ' +
          'namespace controller retries on its own.',
      commands: [
        command('kubectl', 'get', 'namespace', ns.name, '-o', 'yaml'),
        ...configurations.map((c) => command('kubectl', 'delete', c.kind.toLowerCase(), c.configuration)),
        neverFinalizeNamespace,
      ],
    },
  };
}

function unexplainedFinding(ns: StuckNamespace, inventory: Inventory): FindingParts {
  return {
    object: ns.ref,
    message: `${header(ns)}${ns.state.failing.length ? '' : ' and none of its deletion conditions names a reason'}`,
    evidence: [...ns.state.failing.map(describeCondition), ...remainingEvidence(ns, inventory)],
    remediation: {
      summary:
        'Read the namespace conditions and the objects still in it; the namespace controller finishes once they ' +
        'are gone.',
      commands: [command('kubectl', 'get', 'namespace', ns.name, '-o', 'yaml'), neverFinalizeNamespace],
    },
  };
}

function stuckNamespaces(inventory: Inventory, context: RuleContext): StuckNamespace[] {
  const out: StuckNamespace[] = [];
  for (const ns of fullObjectsOf(inventory, 'namespaces') as readonly NamespaceObject[]) {
    const name = ns.metadata?.name ?? '';
    const age = stuckDeletionAge(ns.metadata?.deletionTimestamp, context);
    if (age === undefined) continue;
    const inNamespace = inventory.byNamespace.get(name) ?? [];
    out.push({
      ref: refOfWhole('v1', 'Namespace', ns.metadata),
      name,
      age,
      state: readNamespaceDeletionState(ns.status?.conditions),
      objects: inNamespace,
      self: ns.metadata?.uid ? inventory.byUid.get(ns.metadata.uid) : undefined,
    });
  }
  return out;
}

/**
 * namespace-stuck: every namespace whose deletionTimestamp is at least `stuckAfterSeconds`
 * old. Each `True` deletion condition gives its own finding, so that each can be linked to
 * its own root cause:
 * - NamespaceDeletionDiscoveryFailure → `NamespaceBlockedByDiscovery` (failing group-versions);
 * - NamespaceFinalizersRemaining, or objects with finalizers in the snapshot →
 *   `NamespaceBlockedByFinalizer` (every object with its finalizers);
 * - NamespaceDeletionContentFailure → `NamespaceContentDeletionFailed` (admission webhooks named);
 * - none of these → `NamespaceStuckTerminating`.
 * Every finding lists what remains, from the controller's messages and from the snapshot.
 */
export const namespaceStuckRule: Rule = {
  name: rule,
  title: 'Namespaces Terminating past the threshold',
  codes: [
    'NamespaceBlockedByDiscovery',
    'NamespaceBlockedByFinalizer',
    'NamespaceContentDeletionFailed',
    'NamespaceStuckTerminating',
  ],
  check(inventory, context) {
    const findings: Finding[] = [];
    for (const ns of stuckNamespaces(inventory, context)) {
      const failing = new Set(ns.state.failing.map((c) => c.type));
      const hasFinalizers =
        failing.has(types.finalizersRemaining) ||
        ns.objects.some(waitsForFinalizers) ||
        (ns.self !== undefined && waitsForFinalizers(ns.self));
      const before = findings.length;
      if (failing.has(types.discoveryFailure))
        findings.push(
          buildFinding(rule, 'NamespaceBlockedByDiscovery', discoveryFinding(ns, inventory), context),
        );
      if (hasFinalizers)
        findings.push(
          buildFinding(rule, 'NamespaceBlockedByFinalizer', finalizerFinding(ns, inventory), context),
        );
      if (failing.has(types.contentFailure))
        findings.push(
          buildFinding(rule, 'NamespaceContentDeletionFailed', contentFailureFinding(ns, inventory), context),
        );
      if (findings.length === before)
        findings.push(
          buildFinding(rule, 'NamespaceStuckTerminating', unexplainedFinding(ns, inventory), context),
        );
    }
    return findings;
  },
};
