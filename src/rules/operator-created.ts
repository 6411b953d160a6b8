/**
 * HelmLeftover subtype `operator-created` (scenario S18): objects an operator made at runtime
 * for a Helm release, which Helm never tracked, so `helm uninstall` leaves them. They carry no
 * Helm annotations, only their operator's labels; the release shows only in their name
 * (`<release>-kubelet`, what prometheus-operator makes for kube-prometheus-stack). Part of the
 * helm-leftover rule.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { describeControllerSearch, findControllers, nameTokens } from './finalizer-controllers.js';
import { isInstalled, releaseHistories, releaseId, releaseNameAnnotation } from './helm-releases.js';
import { deleteObject, getYaml } from './kubectl.js';
import type { RuleContext } from './rule.js';
import { describeObject, refOf } from './snapshot-views.js';

const rule = 'helm-leftover';

/** The label through which an operator says it manages an object (Kubernetes recommended labels). */
export const managedByLabel = 'app.kubernetes.io/managed-by';

/**
 * Releases known to be gone: `context.removedReleases` (uninstalled by this run) and releases
 * whose current revision is `uninstalled` (kept history); minus names that an installed
 * release also has (a name prefix could then be either's).
 */
function removedReleases(inventory: Inventory, context: RuleContext) {
  const histories = releaseHistories(inventory);
  const installedNames = new Set(histories.filter(isInstalled).map((h) => h.name));
  const removed = new Map<string, { namespace: string; name: string; how: string }>();
  for (const h of histories)
    if (h.current.status === 'uninstalled')
      removed.set(releaseId(h.namespace, h.name), {
        namespace: h.namespace,
        name: h.name,
        how: `its current revision ${h.current.revision} is uninstalled (history kept)`,
      });
  for (const r of context.removedReleases ?? [])
    removed.set(releaseId(r.namespace, r.name), { ...r, how: 'uninstalled by this teardown' });
  return [...removed.values()].filter((r) => !installedNames.has(r.name));
}

/**
 * Pure: `operator-created` findings (severity info). An object qualifies when it is outside
 * its release's namespace, has no Helm release annotation, its name starts with
 * `<release>-` of a removed release, and its `app.kubernetes.io/managed-by` label names a
 * controller (not Helm) of which nothing runs: no live Deployment, StatefulSet, DaemonSet or
 * Lease matches the label's words (finalizer-controllers.ts, controller-liveness.ts). Skipped like
 * the other subtypes: deleting objects, objects with ownerReferences, objects in a
 * Terminating namespace, objects created after the snapshot started.
 */
export function operatorCreatedLeftovers(
  inventory: Inventory,
  context: RuleContext,
  skip: (o: ObjectMetadata) => boolean,
): Finding[] {
  const releases = removedReleases(inventory, context);
  if (releases.length === 0) return [];
  const findings: Finding[] = [];
  for (const o of inventory.objects) {
    const managedBy = o.labels?.[managedByLabel];
    if (!managedBy || managedBy.toLowerCase() === 'helm' || o.annotations?.[releaseNameAnnotation]) continue;
    if (skip(o)) continue;
    const release = releases.find((r) => o.name.startsWith(`${r.name}-`) && o.namespace !== r.namespace);
    if (!release) continue;
    const tokens = nameTokens(managedBy);
    if (tokens.length === 0) continue;
    const search = findControllers(inventory, tokens);
    if (search.result !== 'none') continue;
    const labels = Object.entries(o.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .sort();
    findings.push(
      buildFinding(
        rule,
        'HelmLeftover',
        {
          object: refOf(o),
          namespaces: [o.namespace, release.namespace],
          severity: 'info',
          message:
            `Helm leftover (operator-created): ${describeObject(o)} is named after Helm release ` +
            `${release.namespace}/${release.name}, which no longer exists, and was made by ${managedBy}, which ` +
            'no longer runs: nothing will delete it',
          evidence: [
            'subtype: operator-created',
            `name starts with ${release.name}-: release ${release.namespace}/${release.name} ${release.how}`,
            `outside the release namespace ${release.namespace}; no ${releaseNameAnnotation} annotation: not in the release manifest`,
            `labels: ${labels.join(', ')}`,
            describeControllerSearch(search, `${managedByLabel}=${managedBy}`),
            ...(o.creationTimestamp ? [`creationTimestamp: ${o.creationTimestamp}`] : []),
          ],
          remediation: {
            summary:
              'Check that no other release uses it, then delete it. ' +
              `${managedBy} made it at runtime for the removed release, and it may still change behaviour (for ` +
              'example duplicate scrape targets).',
            commands: [getYaml(o), '# not needed any more:', deleteObject(o)],
          },
        },
        context,
      ),
    );
  }
  return findings;
}
