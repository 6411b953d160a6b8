import { groupOf } from '../kube/api-version.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { instancesOf } from './crd-stuck.js';
import { buildFinding } from './finding-builder.js';
import {
  hookAnnotation,
  describeRecord,
  isInstalled,
  noRecordWords,
  releaseHistoriesById,
  releaseId,
  releaseNameAnnotation,
  releaseNamespaceAnnotation,
  releaseSecretPrefix,
  resourcePolicyAnnotation,
  type ReleaseHistory,
} from './helm-releases.js';
import { command, deleteObject, getYaml, objectArgs } from './kubectl.js';
import { operatorCreatedLeftovers } from './operator-created.js';
import { fullObjectsOf, terminatingNamespaces } from './kubernetes-objects.js';
import type { HookObjectOfRelease, Rule, RuleContext } from './rule.js';
import { describeObject, objectIdentity, refOf, wasListed } from './snapshot-views.js';

const rule = 'helm-leftover';

/** What kind of leftover: the subtype named in the message and the evidence (operator-created: operator-created.ts). */
export type HelmLeftoverKind = 'release-gone' | 'hook' | 'kept' | 'crd' | 'operator-created';

const isCrd = (o: ObjectMetadata) =>
  o.resource === 'customresourcedefinitions' && groupOf(o.apiVersion) === 'apiextensions.k8s.io';

function kindOf(o: ObjectMetadata): Exclude<HelmLeftoverKind, 'operator-created'> {
  if (isCrd(o)) return 'crd';
  if (o.annotations?.[hookAnnotation]) return 'hook';
  if (o.annotations?.[resourcePolicyAnnotation] !== undefined) return 'kept';
  return 'release-gone';
}

const deleteCommand = (o: ObjectMetadata) => deleteObject(o);

/**
 * Whether the history is of a release stored outside its namespace (S28) whose namespace no
 * longer exists: its record stays, but no uninstall ran and nothing of it runs.
 */
export function isStranded(inventory: Inventory, history: ReleaseHistory): boolean {
  return (
    isInstalled(history) &&
    history.storageNamespace !== history.namespace &&
    !inventory.namespaceNames.has(history.namespace)
  );
}

/** Why the snapshot says the release is gone (`configMapsListed`: whether configmap-driver records could be seen). */
function goneEvidence(
  history: ReleaseHistory | undefined,
  namespace: string,
  name: string,
  configMapsListed: boolean,
): string {
  if (history && isInstalled(history))
    return (
      `release ${namespace}/${name} is recorded as ${history.current.status} (revision ${history.current.revision}) in ` +
      `${describeRecord(history.current)}, stored outside its namespace, but namespace ` +
      `${namespace} no longer exists: no uninstall ran`
    );
  if (!history)
    return configMapsListed
      ? `${noRecordWords(name, namespace)}: the release does not exist`
      : `no release Secret ${releaseSecretPrefix}${name}.v* (owner=helm) in namespace ${namespace}, and ConfigMaps ` +
          'could not be listed (a record of the configmap driver would not be seen): the release seems not to exist';
  return (
    `the current revision ${history.current.revision} of release ${namespace}/${name} is uninstalled ` +
    `(history kept with --keep-history, ${history.current.storage} ${history.current.record.name}): the release does not exist`
  );
}

/** Instance counts per namespace of a CRD, or undefined when its instances were not listed. */
function crdInstances(
  inventory: Inventory,
  crd: ObjectMetadata,
): { total: number; lines: string[]; namespaces: string[] } | undefined {
  const whole = fullObjectsOf(inventory, 'customresourcedefinitions').find(
    (c) => c.metadata?.name === crd.name,
  );
  const group = whole?.spec?.group ?? '';
  const plural = whole?.spec?.names?.plural ?? '';
  if (!whole || !wasListed(inventory, group, plural)) return undefined;
  const counts = new Map<string, number>();
  for (const o of instancesOf(inventory, whole)) {
    const ns = o.namespace ?? '(cluster-scoped)';
    counts.set(ns, (counts.get(ns) ?? 0) + 1);
  }
  const sorted = [...counts].sort(([a], [b]) => a.localeCompare(b));
  return {
    total: sorted.reduce((sum, [, n]) => sum + n, 0),
    lines: sorted.map(([ns, n]) => `${n} in ${ns}`),
    namespaces: sorted.map(([ns]) => ns),
  };
}

const adoptComment =
  '# or, to let another release adopt it: helm install/upgrade <release> ... --take-ownership (Helm 3.17+), ' +
  'or re-annotate it with that release:';
const annotateCommand = (o: ObjectMetadata) =>
  command(
    'kubectl',
    'annotate',
    ...objectArgs(o, '--overwrite'),
    `${releaseNameAnnotation}=<release>`,
    `${releaseNamespaceAnnotation}=<release-namespace>`,
  );

/** What every HelmLeftover finding about an object with release annotations says. */
interface LeftoverFacts {
  readonly o: ObjectMetadata;
  /** The namespaces it concerns: the object's and the release's. */
  readonly namespaces: readonly (string | undefined)[];
  /** Evidence lines: the release annotations, and the hook and resource-policy ones when set. */
  readonly annotations: readonly string[];
  /** "<object> carries the annotations of Helm release <ns>/<name>, which no longer exists". */
  readonly what: string;
  /** Why the snapshot says the release is gone (goneEvidence). */
  readonly gone: string;
}

/**
 * The HelmLeftover finding for `o`, annotated with `release`, which no longer exists
 * (`history` is its uninstalled history, if kept): a CRD's finding counts its instances.
 */
function leftoverFinding(
  inventory: Inventory,
  o: ObjectMetadata,
  release: { namespace: string; name: string },
  history: ReleaseHistory | undefined,
  context: RuleContext,
): Finding {
  const kind = kindOf(o);
  const { namespace: relNs, name: relName } = release;
  const facts: LeftoverFacts = {
    o,
    namespaces: [o.namespace, relNs],
    annotations: [
      `${releaseNameAnnotation}: ${relName}`,
      `${releaseNamespaceAnnotation}: ${relNs}`,
      ...[hookAnnotation, 'helm.sh/hook-delete-policy', resourcePolicyAnnotation].flatMap((a) =>
        o.annotations?.[a] ? [`${a}: ${o.annotations[a]}`] : [],
      ),
    ],
    what:
      history && isInstalled(history)
        ? `${describeObject(o)} carries the annotations of Helm release ${relNs}/${relName}, whose namespace no ` +
          `longer exists (its record stays in namespace ${history.storageNamespace})`
        : `${describeObject(o)} carries the annotations of Helm release ${relNs}/${relName}, which no longer exists`,
    gone: goneEvidence(history, relNs, relName, wasListed(inventory, '', 'configmaps')),
  };
  return kind === 'crd'
    ? crdLeftoverFinding(facts, crdInstances(inventory, o), context)
    : objectLeftoverFinding(facts, kind, context);
}

/** Pure: how many instances a leftover CRD has, per namespace, or that they could not be listed. */
function instanceCountLine(instances: ReturnType<typeof crdInstances>): string {
  if (!instances) return 'its instances could not be listed: how many exist is unknown';
  if (!instances.total) return '0 instances';
  return `${instances.total} instance${instances.total === 1 ? '' : 's'}: ${instances.lines.join(', ')}`;
}

/**
 * Pure: the finding for a leftover CRD with its instances (undefined: not listed). Its delete
 * command carries a warning unless no instance remains, since the deletion cascades to every one.
 */
function crdLeftoverFinding(
  facts: LeftoverFacts,
  instances: ReturnType<typeof crdInstances>,
  context: RuleContext,
): Finding {
  const { o } = facts;
  const countLine = instanceCountLine(instances);
  const safeToDelete = instances?.total === 0;
  return buildFinding(
    rule,
    'HelmLeftover',
    {
      object: refOf(o),
      namespaces: [...facts.namespaces, ...(instances?.namespaces ?? [])],
      message: `Helm leftover (crd): ${facts.what}; ${countLine}`,
      evidence: [
        'subtype: crd',
        ...facts.annotations,
        facts.gone,
        `instances: ${countLine}`,
        'installing the chart under another release name or namespace fails on ownership until it is adopted',
      ],
      remediation: {
        summary:
          'Delete the CRD only if it has zero instances and no installed release needs it; if a new release ' +
          'should adopt it, re-annotate it (or install with --take-ownership). Never delete a CRD that still ' +
          'has instances without confirmation: the deletion cascades to every instance.',
        commands: [
          getYaml(o),
          ...(instances ? [command('kubectl', 'get', o.name, '-A')] : []),
          adoptComment,
          annotateCommand(o),
          ...(safeToDelete
            ? ['# no instance remains: if no installed release needs it:', deleteCommand(o)]
            : [
                '# WARNING: deleting the CRD deletes every instance of it in every namespace; only after ' +
                  'confirming none of them is needed:',
                deleteCommand(o),
              ]),
        ],
      },
    },
    context,
  );
}

/**
 * Pure: the finding for a leftover that is not a CRD (`hook`, `kept` or `release-gone`); the
 * delete command of a `kept` object carries a warning, since it was kept for its data. A `kept`
 * object is `info` (Helm kept it because the chart asked it to); one that is being deleted is
 * not judged here (stuck-finalizer and the namespace rules are).
 */
function objectLeftoverFinding(
  facts: LeftoverFacts,
  kind: Exclude<HelmLeftoverKind, 'crd' | 'operator-created'>,
  context: RuleContext,
): Finding {
  const { o } = facts;
  const kept = kind === 'kept';
  return buildFinding(
    rule,
    'HelmLeftover',
    {
      object: refOf(o),
      namespaces: facts.namespaces,
      // The user asked Helm to keep it: information. (A kept object that is being deleted is not a
      // leftover of this rule: the finalizer and namespace rules judge it.)
      ...(kept ? { severity: 'info' as const } : {}),
      message:
        `Helm leftover (${kind}): ${facts.what}` +
        (kept
          ? ': Helm kept it on uninstall on purpose (helm.sh/resource-policy: keep)'
          : kind === 'hook'
            ? ': hook objects are not deleted with the release unless their hook-delete-policy says so'
            : ''),
      evidence: [
        `subtype: ${kind}`,
        ...facts.annotations,
        facts.gone,
        ...(o.creationTimestamp ? [`creationTimestamp: ${o.creationTimestamp}`] : []),
      ],
      remediation: {
        summary: kept
          ? 'Decide whether the data of this object, which Helm kept on purpose, is still needed; delete it when ' +
            'it is not, or let the next release adopt it (--take-ownership or re-annotate) to reuse it.'
          : 'Delete it, or let a new release adopt it (--take-ownership or re-annotate): nothing manages it any more.',
        commands: [
          getYaml(o),
          adoptComment,
          annotateCommand(o),
          ...(kept
            ? [
                '# WARNING: it was kept on purpose (helm.sh/resource-policy: keep) and its data goes with it; ' +
                  'only after confirming it is not needed:',
                deleteCommand(o),
              ]
            : ['# not needed any more:', deleteCommand(o)]),
        ],
      },
    },
    context,
  );
}

/** A hook object with no release marker in a namespace that holds no release at all. */
function unattributedHookFinding(o: ObjectMetadata, context: RuleContext): Finding {
  return buildFinding(
    rule,
    'HelmLeftover',
    {
      object: refOf(o),
      severity: 'info',
      message:
        `Helm leftover (hook): ${describeObject(o)} is a Helm hook (helm.sh/hook: ${o.annotations?.[hookAnnotation] ?? ''}) ` +
        `and no release exists in namespace ${o.namespace ?? ''}; Helm records no release on hook objects, so ` +
        'which release left it cannot be told',
      evidence: [
        'subtype: hook',
        ...[hookAnnotation, 'helm.sh/hook-delete-policy'].flatMap((a) =>
          o.annotations?.[a] ? [`${a}: ${o.annotations[a]}`] : [],
        ),
        `no release Secret or ConfigMap (${releaseSecretPrefix}*, owner=helm) of an installed release in namespace ${o.namespace ?? ''}`,
        'no meta.helm.sh/release-name annotation: Helm sets none on hook objects (verified with Helm 4.3.1 and 3.22.0)',
        ...(o.creationTimestamp ? [`creationTimestamp: ${o.creationTimestamp}`] : []),
      ],
      remediation: {
        summary:
          'Check that no release installed elsewhere created this hook object, then delete it. An uninstall left ' +
          'it behind (with --no-hooks, or a hook-delete-policy that did not apply).',
        commands: [getYaml(o), '# not needed any more:', deleteCommand(o)],
      },
    },
    context,
  );
}

/** Why the snapshot says the hook's release is gone, or that its uninstall did not finish. */
function hookReleaseEvidence(
  history: ReleaseHistory | undefined,
  inventory: Inventory,
  relNs: string,
  relName: string,
) {
  if (history && isInstalled(history) && !isStranded(inventory, history))
    return {
      gone: false,
      line:
        `release ${relNs}/${relName} is still recorded as ${history.current.status} (revision ` +
        `${history.current.revision}) in ${describeRecord(history.current)}: its uninstall did not finish`,
    };
  return {
    gone: true,
    line: goneEvidence(history, relNs, relName, wasListed(inventory, '', 'configmaps')),
  };
}

/**
 * Pure: the finding for a hook object that this run's teardown found left by a hook of
 * `release` (`RuleContext.hookLeftovers`), `info` like every hook object: Helm deletes a hook
 * object only as its hook-delete-policy says, and the chart asked for none that applied.
 */
function releaseHookFinding(
  inventory: Inventory,
  o: ObjectMetadata,
  release: HookObjectOfRelease['release'],
  history: ReleaseHistory | undefined,
  context: RuleContext,
): Finding {
  const { namespace: relNs, name: relName } = release;
  const hook = o.annotations?.[hookAnnotation] ?? '';
  const state = hookReleaseEvidence(history, inventory, relNs, relName);
  return buildFinding(
    rule,
    'HelmLeftover',
    {
      object: refOf(o),
      namespaces: [o.namespace, relNs],
      severity: 'info',
      message:
        `Helm leftover (hook): ${describeObject(o)} was made by a ${hook} hook of Helm release ${relNs}/${relName}, ` +
        (state.gone ? 'which no longer exists' : 'whose uninstall did not finish') +
        ': hook objects are not deleted with the release unless their hook-delete-policy says so',
      evidence: [
        'subtype: hook',
        `release: ${relNs}/${relName} (the teardown found this object in the release's stored hook manifests; ` +
          'Helm sets no release annotation on hook objects)',
        ...[hookAnnotation, 'helm.sh/hook-delete-policy'].flatMap((a) =>
          o.annotations?.[a] ? [`${a}: ${o.annotations[a]}`] : [],
        ),
        state.line,
        ...(o.creationTimestamp ? [`creationTimestamp: ${o.creationTimestamp}`] : []),
      ],
      remediation: {
        summary:
          `Delete it once nothing of release ${relNs}/${relName} needs it: Helm never deletes a hook object ` +
          'whose hook-delete-policy did not apply, and nothing else manages it.',
        commands: [getYaml(o), '# not needed any more:', deleteCommand(o)],
      },
    },
    context,
  );
}

/**
 * helm-leftover: objects (namespaced and cluster-scoped) that carry the
 * `meta.helm.sh/release-name` and `meta.helm.sh/release-namespace` annotations of a release
 * that no longer exists: no release record (a Secret, or a ConfigMap of the configmap driver)
 * with that name in that namespace, or its current
 * revision is `uninstalled`, or its record is stored in another namespace and the release's own
 * namespace is gone (`isStranded`, S28: said as such, never "does not exist"). Subtypes: `crd` (a CustomResourceDefinition, with its instance
 * count per namespace), `hook` (`helm.sh/hook` annotation), `kept`
 * (`helm.sh/resource-policy: keep`, S17), `release-gone` otherwise. Hook objects carry no
 * release marker (Helm 4.3.1 and 3.22.0 set only the hook annotations): one that this run's
 * teardown found left by a hook of a release it handled (`context.hookLeftovers`) is reported,
 * as `info`, naming that release, wherever it is (cluster-scoped too); any other hook object
 * without a marker is reported, as `info`, only when its namespace holds no installed release
 * at all, and then which release left it cannot be told.
 * `operator-created` (S18, operator-created.ts, `info`): objects outside the release namespace
 * named `<release>-...` after a removed release and labelled managed-by a controller that no
 * longer runs. CRDs
 * from a chart's `crds/` folder carry no marker either and are not detectable (S08).
 *
 * Not judged at all when Secrets could not be listed in full (when ConfigMaps could not, the
 * evidence says a configmap-driver record would not be seen). Skipped: objects being deleted,
 * objects in a Terminating namespace, objects with ownerReferences (they go with their owner;
 * owner-reference reports orphans), and objects created after the snapshot started.
 */
export const helmLeftoverRule: Rule = {
  name: rule,
  title: 'Objects of Helm releases that no longer exist',
  codes: ['HelmLeftover'],
  check(inventory, context) {
    if (!wasListed(inventory, '', 'secrets')) return [];
    const histories = releaseHistoriesById(inventory);
    const installed = [...histories.values()].filter((h) => isInstalled(h) && !isStranded(inventory, h));
    const installedIds = new Set(installed.map((h) => releaseId(h.namespace, h.name)));
    const namespacesWithReleases = new Set(installed.map((h) => h.namespace));
    const terminating = terminatingNamespaces(inventory);
    const started = Date.parse(inventory.takenAt);
    const hookReleases = new Map(
      (context.hookLeftovers ?? []).map((h) => [objectIdentity(h.object), h.release]),
    );
    const findings: Finding[] = [];
    const skip = (o: ObjectMetadata) =>
      o.deletionTimestamp !== undefined ||
      (o.ownerReferences?.length ?? 0) > 0 ||
      (o.namespace !== undefined && terminating.has(o.namespace)) ||
      (o.creationTimestamp !== undefined && Date.parse(o.creationTimestamp) > started);
    for (const o of inventory.objects) {
      if (skip(o)) continue;
      const name = o.annotations?.[releaseNameAnnotation];
      const namespace = o.annotations?.[releaseNamespaceAnnotation];
      if (name && namespace) {
        const id = releaseId(namespace, name);
        if (installedIds.has(id)) continue;
        findings.push(leftoverFinding(inventory, o, { namespace, name }, histories.get(id), context));
      } else if (o.annotations?.[hookAnnotation]) {
        const release = hookReleases.get(objectIdentity(o));
        if (release) {
          const history = histories.get(releaseId(release.namespace, release.name));
          findings.push(releaseHookFinding(inventory, o, release, history, context));
        } else if (o.namespace !== undefined && !namespacesWithReleases.has(o.namespace))
          findings.push(unattributedHookFinding(o, context));
      }
    }
    findings.push(...operatorCreatedLeftovers(inventory, context, skip));
    return findings;
  },
};
