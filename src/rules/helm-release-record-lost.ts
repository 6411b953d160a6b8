import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { findingKey, type Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import {
  isInstalled,
  noRecordWords,
  releaseHistoriesById,
  releaseId,
  releaseNameAnnotation,
  releaseNamespaceAnnotation,
  type ReleaseHistory,
} from './helm-releases.js';
import { deleteObject, getYaml, stripFinalizers } from './kubectl.js';
import type { Rule, RuleContext } from './rule.js';
import {
  capLines,
  describeObject,
  formatDuration,
  refOf,
  stuckDeletionAge,
  wasListed,
} from './snapshot-views.js';
import { finalizerGroupSubject } from './stuck-finalizer.js';

const rule = 'helm-release-record-lost';

/** The key subject of the finding about a release whose record is lost. */
export function recordLostSubject(namespace: string, name: string): string {
  return `helm release ${namespace}/${name} record lost`;
}

/** The release an object's Helm annotations name, if both are set. */
function releaseOf(o: ObjectMetadata): { namespace: string; name: string } | undefined {
  const name = o.annotations?.[releaseNameAnnotation];
  const namespace = o.annotations?.[releaseNamespaceAnnotation];
  return name && namespace ? { namespace, name } : undefined;
}

/** The namespace-stuck codes, whose findings about a held Namespace explain why it stays. */
const namespaceCodes = [
  'NamespaceBlockedByDiscovery',
  'NamespaceBlockedByFinalizer',
  'NamespaceContentDeletionFailed',
  'NamespaceStuckTerminating',
] as const;

/**
 * Pure, for the linker: the keys of the findings that hold the objects of a
 * `HelmReleaseRecordLost` finding: the finalizer findings (stuck-finalizer) of each finalizer
 * on them, and the namespace-stuck findings of the Namespaces among them.
 */
export function recordLostCauses(finding: Finding, inventory: Inventory): string[] {
  return recordLostHeld(finding, inventory).flatMap((o) => [
    ...(o.finalizers ?? []).flatMap((f) => {
      const subject = finalizerGroupSubject(o.namespace, f);
      return [findingKey('OperatorGoneFinalizer', subject), findingKey('StuckFinalizer', subject)];
    }),
    ...(o.kind === 'Namespace' && o.apiVersion === 'v1'
      ? namespaceCodes.map((c) => findingKey(c, refOf(o)))
      : []),
  ]);
}

/**
 * Pure: the objects of a `HelmReleaseRecordLost` finding's release that are held in deletion
 * (deletionTimestamp set), found by the release annotations of the finding's object.
 */
export function recordLostHeld(finding: Finding, inventory: Inventory): ObjectMetadata[] {
  const first = finding.object.uid ? inventory.byUid.get(finding.object.uid) : undefined;
  const release = first && releaseOf(first);
  if (!release) return [];
  return inventory.objects.filter(
    (o) => o.deletionTimestamp && releaseId(release.namespace, release.name) === idOf(o),
  );
}

function idOf(o: ObjectMetadata): string | undefined {
  const release = releaseOf(o);
  return release && releaseId(release.namespace, release.name);
}

function recordEvidence(history: ReleaseHistory | undefined, namespace: string, name: string): string {
  return history
    ? `the current revision ${history.current.revision} of release ${namespace}/${name} is uninstalled ` +
        `(${history.current.storage} ${history.current.record.name}): Helm considers it gone`
    : `${noRecordWords(name, namespace)}: Helm purged the ` +
        'record although the deletion did not finish (an uninstall --wait that ends in "uninstallation completed ' +
        'with 1 error(s): ... context deadline exceeded" still purges it, helm/helm#12000), ' +
        'so helm status and helm uninstall answer "release: not found"';
}

function lostFinding(
  release: { namespace: string; name: string },
  held: readonly ObjectMetadata[],
  remaining: readonly ObjectMetadata[],
  history: ReleaseHistory | undefined,
  context: RuleContext,
): Finding {
  const oldest = Math.max(...held.map((o) => stuckDeletionAge(o.deletionTimestamp, context) ?? 0));
  const id = releaseId(release.namespace, release.name);
  const finalizers = [...new Set(held.flatMap((o) => o.finalizers ?? []))].sort();
  const count = (n: number) => `${n} object${n === 1 ? '' : 's'}`;
  return buildFinding(
    rule,
    'HelmReleaseRecordLost',
    {
      object: refOf(held[0]!),
      subject: recordLostSubject(release.namespace, release.name),
      namespaces: [release.namespace, ...held.map((o) => (o.kind === 'Namespace' ? o.name : o.namespace))],
      message:
        `Helm release ${id} ${history ? 'is uninstalled' : 'has no record any more'}, but ${count(held.length)} of ` +
        `it ${held.length === 1 ? 'has' : 'have'} been held in deletion for up to ${formatDuration(oldest)}` +
        (finalizers.length ? ` (finalizers ${finalizers.join(', ')})` : '') +
        (remaining.length ? ` and ${count(remaining.length)} more remain` : '') +
        ': Helm no longer tracks them, so no helm command can finish the job',
      evidence: [
        recordEvidence(history, release.namespace, release.name),
        ...capLines(
          held.map(
            (o) =>
              `held: ${describeObject(o)} (deletionTimestamp ${o.deletionTimestamp ?? ''}` +
              `${o.finalizers?.length ? `, finalizers ${o.finalizers.join(', ')}` : ''})`,
          ),
        ),
        ...capLines(
          remaining.map((o) => `remains, not being deleted: ${describeObject(o)}`),
          10,
        ),
        `${releaseNameAnnotation}: ${release.name}, ${releaseNamespaceAnnotation}: ${release.namespace} on each`,
      ],
      remediation: {
        summary:
          'Resolve what holds the objects (see the findings this one is caused by: restore the controller of each ' +
          'finalizer), and they finish deleting on their own; then delete what remains. Do not reinstall the ' +
          'release under this name before they are gone: its creates fail on objects being deleted. For the next ' +
          'teardown, read the release manifest before uninstalling and treat a failed wait as not done.',
        commands: [
          ...held.map(getYaml),
          ...remaining.map((o) => deleteObject(o)),
          ...finalizers.flatMap((f) =>
            stripFinalizers(
              held.filter((o) => o.finalizers?.includes(f)),
              f,
            ),
          ),
        ],
      },
    },
    context,
  );
}

/**
 * helm-release-record-lost (scenario S21): objects carrying `meta.helm.sh/release-name` /
 * `release-namespace` of a release that no longer exists (no release Secret, or its current
 * revision is `uninstalled`), at least one of which has been held in deletion for
 * `stuckAfterSeconds`: the uninstall deleted them, their finalizers (or the namespace
 * controller) hold them, and Helm purged the record anyway. One finding per release, about its
 * first held object; `causedBy` (link.ts) names the findings that hold them. Objects of such a
 * release that are not being deleted are listed here too and reported one by one as
 * `HelmLeftover`. Not judged when Secrets could not be listed in full. Releases this run's
 * teardown uninstalled (`context.removedReleases`) are skipped: Helm dropped their record
 * because the uninstall succeeded, the teardown read their manifest before and waited for
 * their objects itself, so its leftovers diagnosis and the rules that explain what holds
 * them (a finalizer whose operator is gone, a stuck namespace) report them.
 */
export const helmReleaseRecordLostRule: Rule = {
  name: rule,
  title: 'Helm releases whose record is gone while their objects are held in deletion',
  codes: ['HelmReleaseRecordLost'],
  check(inventory, context) {
    if (!wasListed(inventory, '', 'secrets')) return [];
    const histories = releaseHistoriesById(inventory);
    // A release this run uninstalled lost its record because the uninstall succeeded: the
    // teardown read its manifest first and waits for its objects itself.
    const removedByRun = new Set((context.removedReleases ?? []).map((r) => releaseId(r.namespace, r.name)));
    const objectsByRelease = new Map<
      string,
      { release: { namespace: string; name: string }; objects: ObjectMetadata[] }
    >();
    for (const o of inventory.objects) {
      const release = releaseOf(o);
      if (!release) continue;
      const id = releaseId(release.namespace, release.name);
      const history = histories.get(id);
      if ((history && isInstalled(history)) || removedByRun.has(id)) continue;
      const entry = objectsByRelease.get(id) ?? { release, objects: [] };
      entry.objects.push(o);
      objectsByRelease.set(id, entry);
    }
    const findings: Finding[] = [];
    for (const [id, { release, objects }] of [...objectsByRelease].sort(([a], [b]) => a.localeCompare(b))) {
      const held = objects.filter((o) => stuckDeletionAge(o.deletionTimestamp, context) !== undefined);
      if (held.length === 0) continue;
      const remaining = objects.filter((o) => !o.deletionTimestamp);
      findings.push(lostFinding(release, held, remaining, histories.get(id), context));
    }
    return findings;
  },
};
