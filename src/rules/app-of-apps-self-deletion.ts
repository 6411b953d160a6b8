/**
 * An app of apps that deleted the namespace its GitOps controller runs in (S24,
 * argoproj/argo-cd#14505, argoproj-labs/argocd-autopilot#99). An Argo CD Application that manages
 * the namespace it lives in (the namespace carries Argo CD's tracking id naming it) deletes that
 * namespace when it is deleted with its resources finalizer: the namespace controller then deletes
 * the Argo CD controller before it has finalized the Applications, which stay held by
 * `resources-finalizer.argocd.argoproj.io` in a namespace where nothing can be created any more.
 * The stuck finalizers are reported by stuck-finalizer (OperatorGoneFinalizer, with what each
 * Application guards); this names the cause, on the Application that manages its own namespace.
 */
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { selfManagedNamespaces, type SelfManagedNamespace } from './catalogued-finalizer.js';
import { finalizerCatalogue, type FinalizerFamily } from './finalizer-catalogue.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command, getYaml } from './kubectl.js';
import type { Rule, RuleContext } from './rule.js';
import { capLines, describeObject, refOf, typeNameOf, wasListed } from './snapshot-views.js';

const rule = 'app-of-apps-self-deletion';

/** The objects held (deletionTimestamp set) by one of the family's finalizers. */
function heldBy(inventory: Inventory, family: FinalizerFamily): ObjectMetadata[] {
  return inventory.objects.filter(
    (o) =>
      o.deletionTimestamp !== undefined && (o.finalizers ?? []).some((f) => family.finalizers.includes(f)),
  );
}

/** Pure: every namespace deleted by its own GitOps app, with the family and the objects it holds there. */
export function selfDeletedNamespaces(
  inventory: Inventory,
): { family: FinalizerFamily; match: SelfManagedNamespace; held: ObjectMetadata[] }[] {
  if (!wasListed(inventory, '', 'namespaces')) return [];
  return finalizerCatalogue
    .filter((family) => (family.managedByMarkers ?? []).length > 0)
    .flatMap((family) => {
      const held = heldBy(inventory, family);
      return selfManagedNamespaces(inventory, family, held).map((match) => ({
        family,
        match,
        held: held.filter((o) => o.namespace === match.namespace),
      }));
    });
}

function selfDeletionFinding(
  family: FinalizerFamily,
  m: SelfManagedNamespace,
  held: readonly ObjectMetadata[],
  context: RuleContext,
): Finding {
  const ns = m.namespace;
  const count = `${held.length} object${held.length === 1 ? '' : 's'}`;
  return buildFinding(
    rule,
    'AppOfAppsSelfDeletion',
    {
      object: refOf(m.app),
      namespaces: [ns],
      message:
        `${describeObject(m.app)} manages namespace ${ns}, which it lives in: deleting it with its resources ` +
        `finalizer made ${family.project}'s own cascade delete the namespace ${family.project} runs in, and with it ` +
        `the controller that had to finalize ${count} there, which now wait on ${family.project}'s finalizers`,
      evidence: [
        `namespace ${ns} carries ${m.key}=${m.value}: it names ${describeObject(m.app)}, which lives in it`,
        `namespace ${ns} is Terminating: nothing can be created in it (403), so ${family.project} cannot come back in place`,
        ...capLines(
          held.map(
            (o) =>
              `${describeObject(o)} is held by ${(o.finalizers ?? []).filter((f) => family.finalizers.includes(f)).join(', ')}`,
          ),
        ),
      ],
      remediation: {
        summary:
          `Delete what each held object guards, then remove its finalizer, as their OperatorGoneFinalizer finding ` +
          `lists: ${family.project} cannot come back in place. Next time: ` +
          `${family.teardownOrder ?? 'tear the applications down before their controller'}.`,
        commands: [
          getYaml(m.app),
          command('kubectl', 'get', typeNameOf(m.app), '-n', ns),
          `# next time, before the teardown, keep ${family.project}'s own namespace out of its apps' cascade:`,
          command('kubectl', 'annotate', 'namespace', ns, 'argocd.argoproj.io/sync-options=Delete=false'),
        ],
      },
    },
    context,
  );
}

/**
 * app-of-apps-self-deletion (scenario S24): `AppOfAppsSelfDeletion` (error) on each object of a
 * catalogued GitOps family (Argo CD: an Application) that a Terminating namespace's marker
 * (`argocd.argoproj.io/tracking-id`, `app.kubernetes.io/instance`) names and that lives in it,
 * while that family's finalizers hold objects there (`selfDeletedNamespaces`). Evidence: the
 * marker, that the namespace is Terminating, each held object and its finalizer. The remedy
 * follows the stuck finalizers' own findings, then the teardown order for next time and the
 * `Delete=false` sync option on the controller's namespace. Not judged when namespaces were not listed.
 */
export const appOfAppsSelfDeletionRule: Rule = {
  name: rule,
  title: "GitOps app of apps that deleted its own controller's namespace",
  codes: ['AppOfAppsSelfDeletion'],
  check(inventory, context) {
    return selfDeletedNamespaces(inventory).map(({ family, match, held }) =>
      selfDeletionFinding(family, match, held, context),
    );
  },
};
