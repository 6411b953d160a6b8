/**
 * Helm release records stored outside their release's namespace, for a namespace that no longer
 * exists (S28, fluxcd/helm-controller#185). A GitOps Helm controller stores the records of a
 * HelmRelease with a targetNamespace in its storage namespace (helm-controller:
 * `spec.storageNamespace`, defaulting to the HelmRelease's namespace; fluxcd/helm-controller PR
 * #96), and `helm list -A` prints the namespace recorded inside the release. Deleting the target
 * namespace removes the release's namespaced objects but runs no uninstall: the record stays
 * `deployed`, and the release's cluster-scoped objects stay with it (fluxcd/flux2#4793).
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { isStranded } from './helm-leftover.js';
import {
  helmDriverPrefix,
  helmReleaseOf,
  recordResource,
  releaseHistories,
  releaseId,
  releaseSecretPrefix,
  type ReleaseHistory,
} from './helm-releases.js';
import { command, deleteObject, getYaml } from './kubectl.js';
import type { Rule, RuleContext } from './rule.js';
import { capLines, describeObject, objectsOf, refOf, wasListed } from './snapshot-views.js';

const rule = 'helm-release-namespace-gone';

/** Flux helm-controller's HelmRelease (helm.toolkit.fluxcd.io), whose storage namespace this is. */
const fluxHelmReleases = { group: 'helm.toolkit.fluxcd.io', resource: 'helmreleases' };

/** Pure: the histories of releases stored outside their namespace whose namespace is gone (`isStranded`). */
export function strandedReleases(inventory: Inventory): ReleaseHistory[] {
  if (!wasListed(inventory, '', 'namespaces')) return [];
  return releaseHistories(inventory).filter((h) => isStranded(inventory, h));
}

/** Pure: the listed objects that carry the release annotations of `history` (not its records). */
export function objectsOfRelease(inventory: Inventory, history: ReleaseHistory): ObjectMetadata[] {
  const id = releaseId(history.namespace, history.name);
  return inventory.objects.filter((o) => {
    const release = helmReleaseOf(o.annotations);
    return release !== undefined && releaseId(release.namespace, release.name) === id;
  });
}

function strandedFinding(inventory: Inventory, h: ReleaseHistory, context: RuleContext): Finding {
  const record = h.current.record;
  const left = objectsOfRelease(inventory, h);
  const helmReleases = wasListed(inventory, fluxHelmReleases.group, fluxHelmReleases.resource)
    ? objectsOf(inventory, fluxHelmReleases.group, fluxHelmReleases.resource).filter(
        (o) => o.namespace === h.storageNamespace,
      )
    : [];
  // A configmap-driver release is seen by helm only with HELM_DRIVER=configmap.
  const helm = `${helmDriverPrefix(h)}helm `;
  const labels = Object.entries(record.labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return buildFinding(
    rule,
    'HelmReleaseNamespaceGone',
    {
      object: refOf(record),
      namespaces: [h.storageNamespace, h.namespace],
      message:
        `Helm release ${h.namespace}/${h.name} is recorded as ${h.current.status} in namespace ${h.storageNamespace}, ` +
        `but its namespace ${h.namespace} no longer exists: no uninstall ran, so ` +
        (left.length
          ? `${left.length} object${left.length === 1 ? ' of it stays' : 's of it stay'}`
          : 'whatever it created outside that namespace stays') +
        `, and \`${helm}list -A\` still lists it while \`${helm}status -n ${h.namespace}\` finds nothing`,
      evidence: [
        `${h.storage} ${h.storageNamespace}/${record.name}: labels ${labels}`,
        `the decoded release's namespace ${h.namespace} differs from the ${h.storage}'s namespace ${h.storageNamespace} ` +
          '(a GitOps Helm controller keeps records in its storage namespace, e.g. Flux helm-controller spec.storageNamespace)',
        `namespace ${h.namespace} does not exist`,
        `revisions stored: ${h.revisions.map((r) => `${r.revision} (${r.status})`).join(', ')}`,
        ...capLines(
          left.map((o) => `left by the release (its meta.helm.sh annotations): ${describeObject(o)}`),
        ),
        ...helmReleases.map(
          (o) =>
            `${describeObject(o)} in the storage namespace may manage it (check spec.releaseName, targetNamespace, storageNamespace)`,
        ),
      ],
      remediation: {
        summary:
          `Delete the HelmRelease that manages release ${h.name} if one exists and its controller runs: it uninstalls ` +
          `with the right storage split and removes what the release created. Otherwise delete the objects the ` +
          `release left (listed), then every revision of its record (${h.storage}s labelled owner=helm,name=${h.name} in ` +
          `namespace ${h.storageNamespace}). Do not run \`${helm}uninstall -n ${h.storageNamespace}\`: Helm takes -n as ` +
          `the namespace of manifest objects that name none, and could delete same-named objects in ` +
          `${h.storageNamespace}. A live HelmRelease with install.createNamespace would recreate namespace ` +
          `${h.namespace}, and the environment would come back.`,
        commands: [
          getYaml(record),
          ...(helmReleases.length
            ? [
                command(
                  'kubectl',
                  'get',
                  `${fluxHelmReleases.resource}.${fluxHelmReleases.group}`,
                  '-n',
                  h.storageNamespace,
                ),
              ]
            : []),
          '# if no controller will uninstall it: delete what the release left, then its record',
          ...left.map((o) => deleteObject(o)),
          command(
            'kubectl',
            'delete',
            recordResource(h.storage),
            '-n',
            h.storageNamespace,
            '-l',
            `owner=helm,name=${h.name}`,
          ),
        ],
      },
    },
    context,
  );
}

/**
 * helm-release-namespace-gone (scenario S28): `HelmReleaseNamespaceGone` (warning) on the current
 * record Secret of each release stored outside its namespace (the record's body read by the
 * inventory, helm-records.ts) whose namespace no longer exists (`strandedReleases`). Evidence: the
 * record's labels, both namespaces, the revisions, the objects that still carry the release's
 * annotations, and the Flux HelmReleases of the storage namespace. helm-leftover reports those
 * objects as leftovers of a release whose namespace is gone (never "does not exist"), and the
 * linker makes this finding their cause. Not judged when namespaces were not listed.
 */
export const helmReleaseNamespaceGoneRule: Rule = {
  name: rule,
  title: `Helm release records (${releaseSecretPrefix}*) stored elsewhere for a namespace that no longer exists`,
  codes: ['HelmReleaseNamespaceGone'],
  check(inventory, context) {
    return strandedReleases(inventory).map((h) => strandedFinding(inventory, h, context));
  },
};
