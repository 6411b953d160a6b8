/**
 * `mode: plan` and the part of `mode: teardown` before anything is deleted: the plan, the blast
 * radius, the dry run and the prediction, a refused plan, and the checks before a teardown.
 */
import type { OpenCluster } from '../cluster/open.js';
import type { Settings } from '../config/settings.js';
import { findReleases } from '../helm/discover-releases.js';
import { describeWaves } from '../plan/gitops-order.js';
import { checkHelm } from '../helm/helm-cli.js';
import { listedGroupOf } from '../inventory/collect.js';
import { configMapRecordNamespaces } from '../inventory/helm-records.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { groupOf } from '../kube/api-version.js';
import { unlistedKinds, type LiveObjectLookup } from '../plan/release-reach.js';
import type { CrdEvidence, LiveCrd } from '../plan/crd-ownership.js';
import { buildPlan, type TeardownPlan } from '../plan/build-plan.js';
import { resolveScope, scopeRefusals } from '../plan/scope.js';
import { blastRadiusOf } from '../teardown/blast-radius.js';
import type { BlastRadius, DryRunSummary } from '../model/dry-run.js';
import { summarizeInventory, summarizePlan } from '../report/report.js';
import { wasListed } from '../rules/snapshot-views.js';
import { fullObjectsOf } from '../rules/kubernetes-objects.js';
import { dryRunOf } from '../teardown/dry-run.js';
import { deletionOutlook } from '../rules/deletion-forecast.js';
import { predictTeardown, type Prediction } from '../teardown/prediction.js';
import { resourceIndex } from '../teardown/resource-index.js';
import { removalWords } from '../model/teardown-result.js';
import type { EnginePorts, ReportBody, RunInputs } from './ports.js';
import { environmentOf, namespacesOf, scan } from './scan.js';

/** The teardown plan over the snapshot: releases found, scope resolved, stages ordered, blast radius, prediction, warnings and refusals. */
export async function plan(
  settings: Settings,
  cluster: OpenCluster,
  inventory: Inventory,
  ports: EnginePorts,
) {
  return ports.group('Planning the teardown', async () => {
    const namespaces = namespacesOf(inventory);
    const scope = resolveScope(settings.scope, namespaces);
    const { releases, problems, refused, conflicts, refusedReleases, earlierRevisions } = await findReleases(
      cluster.api,
      {
        namespaces: [...scope.namespaces, ...settings.scope.releases.map((r) => r.namespace)],
        configMapNamespaces: releaseConfigMapNamespaces(inventory),
        concurrency: settings.listConcurrency,
      },
    );
    const resources = resourceIndex(inventory.resources);
    const teardownPlan: TeardownPlan = buildPlan({
      scope,
      releaseRefs: settings.scope.releases,
      foundReleases: releases,
      userOrder: settings.order,
      deleteNamespaces: settings.deleteNamespaces,
      resourceOf: (group, kind) => resources(group, kind)?.resource,
      namespacedOf: (group, kind) => resources(group, kind)?.namespaced,
      instancesOf: (group, kind) =>
        inventory.objects.filter((o) => o.kind === kind && o.apiVersion.startsWith(`${group}/`)),
      liveObject: liveObjectIndex(inventory),
      unlistedKind: unlistedKinds(inventory.coverage, (group, kind) => resources(group, kind)),
      scopeRefusals: scopeRefusals(settings.scope, scope, namespaces, settings.maxNamespaces),
      storageConflicts: conflicts,
      refusedReleases,
      earlierRevisions,
      crdEvidence: crdEvidenceOf(inventory, (group, kind) => resources(group, kind) !== undefined),
    });
    const blastRadius = blastRadiusOf(teardownPlan, resources, settings.uninstallMode);
    logBlastRadius(blastRadius, ports.info);
    const warnings = [
      ...problems,
      ...refused.map((r) => `${r.reason}; it is not used (finding HelmReleaseRecordInvalid)`),
      ...teardownPlan.refusals,
      ...teardownPlan.warnings,
    ];
    for (const w of warnings) ports.warning(w);
    for (const s of teardownPlan.stages) {
      const crds = s.crdInstancesFirst.map((c) => c.name);
      ports.info(
        `stage ${s.index + 1}: ${s.releases.join(', ')}${crds.length ? ` (first: instances of ${crds.join(', ')})` : ''}`,
      );
      for (const line of describeWaves(s.gitopsWaves)) ports.info(`  ${line}`);
    }
    for (const e of teardownPlan.edges) ports.info(`  ${e.before} before ${e.after}: ${e.reason}`);
    const { dryRun, prediction } = predictionOf(settings, inventory, teardownPlan, resources);
    logPrediction(prediction, ports.info);
    return { plan: teardownPlan, blastRadius, warnings, problems, refused, resources, dryRun, prediction };
  });
}

/**
 * Pure: the dry run of a plan and its prediction (teardown/prediction.ts), computed once from the
 * snapshot taken before any change: `mode: plan`, a dry run and the teardown read the same one.
 * A deletion held longer than a stage waits is foreseen to hang (the real run's wait would find
 * it stuck), so the forecast's threshold is the shorter of `stuck-after` and `stage-timeout`.
 */
function predictionOf(
  settings: Settings,
  inventory: Inventory,
  teardownPlan: TeardownPlan,
  resources: ReturnType<typeof resourceIndex>,
): { dryRun: DryRunSummary; prediction: Prediction } {
  const failedGroupVersions = new Set(inventory.failedGroupVersions.map((f) => f.groupVersion));
  const outlook = deletionOutlook(inventory, {
    now: Date.now(),
    stuckAfterSeconds: Math.min(settings.stuckAfterMs, settings.stageTimeoutMs) / 1000,
  });
  const dryRun = dryRunOf(teardownPlan, resources, {
    failedGroupVersions,
    instancesOf: (group, kind) =>
      inventory.objects.filter((o) => o.kind === kind && o.apiVersion.startsWith(`${group}/`)),
    uninstallMode: settings.uninstallMode,
    outlivesDeletion: (o) => {
      const x = outlook(o);
      return x?.outcome === 'hangs' ? x.why : undefined;
    },
  });
  const live = liveObjectIndex(inventory);
  const prediction = predictTeardown(teardownPlan, resources, {
    dryRun,
    failedGroupVersions,
    liveObject: (group, kind, namespace, name) =>
      live(group, kind, namespace, name) as ObjectMetadata | undefined,
    outlook,
  });
  return { dryRun, prediction };
}

/**
 * Logs the prediction, what will hang and what will stay first, each with its remedy (to apply
 * before the teardown), then the counts and the namespaces and releases that are kept.
 */
function logPrediction(p: Prediction, info: (line: string) => void): void {
  const where = (o: { kind: string; namespace?: string; name: string }) =>
    `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  for (const o of p.objects.filter((x) => x.expected === 'hangs' || x.expected === 'stays')) {
    info(`prediction: will ${o.expected === 'hangs' ? 'hang' : 'stay'}: ${where(o.object)}: ${o.evidence}`);
    if (o.remedy) info(`  remedy: ${o.remedy}`);
  }
  for (const n of p.namespaces.filter((x) => x.expected !== 'goes'))
    info(`prediction: namespace ${n.name} will ${n.expected === 'hangs' ? 'hang' : 'stay'}: ${n.evidence}`);
  for (const r of p.releases.filter((x) => x.expected === 'stays'))
    info(`prediction: release ${r.release} will stay: ${r.evidence}`);
  const c = p.counts;
  info(
    `prediction: ${c.hangs} object(s) will hang, ${c.stays} will stay, ${c.waits} will wait on a running controller, ${c.goes} will go`,
  );
  info(
    `namespaces to delete: ${
      p.namespaces
        .filter((n) => n.expected !== 'stays')
        .map((n) => n.name)
        .join(', ') || '(none)'
    }` +
      (p.namespaces.some((n) => n.expected === 'stays')
        ? `; kept: ${p.namespaces
            .filter((n) => n.expected === 'stays')
            .map((n) => n.name)
            .join(', ')}`
        : ''),
  );
}

/**
 * Pure: where the plan lists release ConfigMaps (the configmap driver): the namespaces in which
 * the snapshot holds one, or every namespace when the snapshot could not list ConfigMaps in full
 * (a record it did not see must not make a release invisible).
 */
function releaseConfigMapNamespaces(inventory: Inventory): ReadonlySet<string> | 'all' {
  return wasListed(inventory, '', 'configmaps')
    ? new Set(configMapRecordNamespaces(inventory.objects))
    : 'all';
}

/**
 * The snapshot's objects by API group, kind, namespace and name (built once, on the first
 * lookup), for the plan's ownership check of objects outside the scope (plan/release-reach.ts).
 */
export function liveObjectIndex(inventory: Inventory): LiveObjectLookup {
  let index: Map<string, ObjectMetadata> | undefined;
  const key = (group: string, kind: string, namespace: string | undefined, name: string) =>
    JSON.stringify([group, kind, namespace ?? '', name]);
  return (group, kind, namespace, name) => {
    index ??= new Map(
      inventory.objects.map((o) => [key(groupOf(o.apiVersion), o.kind, o.namespace, o.name), o]),
    );
    // An events.k8s.io Event is listed as a core Event (collect.ts `listedGroupOf`).
    return index.get(key(listedGroupOf(group, kind), kind, namespace, name));
  };
}

/**
 * Pure: what the snapshot says about the CRDs releases ship (plan/crd-ownership.ts): the
 * CustomResourceDefinitions by name (metadata and declared names), the groups the API server
 * serves itself (APIServices labelled `kube-aggregator.kubernetes.io/automanaged: onstart`) and
 * those an aggregated API serves (an APIService with a service).
 */
function crdEvidenceOf(inventory: Inventory, served: CrdEvidence['served']): CrdEvidence {
  const crds = new Map(
    fullObjectsOf(inventory, 'customresourcedefinitions').map((c) => [c.metadata?.name ?? '', c]),
  );
  const apiServices = fullObjectsOf(inventory, 'apiservices');
  const groupsOf = (keep: (a: (typeof apiServices)[number]) => boolean) =>
    new Set(apiServices.filter(keep).map((a) => a.spec?.group ?? ''));
  return {
    liveCrd: (name) => {
      const c = crds.get(name);
      if (!c) return undefined;
      const owners = (c.metadata as { ownerReferences?: LiveCrd['ownerReferences'] } | undefined)
        ?.ownerReferences;
      return {
        ...(c.metadata?.labels ? { labels: c.metadata.labels } : {}),
        ...(c.metadata?.annotations ? { annotations: c.metadata.annotations } : {}),
        ...(owners ? { ownerReferences: owners } : {}),
        ...(c.spec?.group !== undefined ? { group: c.spec.group } : {}),
        ...(c.spec?.names?.plural !== undefined ? { plural: c.spec.names.plural } : {}),
        ...(c.spec?.names?.kind !== undefined ? { kind: c.spec.names.kind } : {}),
        ...(c.spec?.scope !== undefined ? { scope: c.spec.scope } : {}),
      };
    },
    served,
    builtInGroups: groupsOf(
      (a) => a.metadata?.labels?.['kube-aggregator.kubernetes.io/automanaged'] === 'onstart',
    ),
    aggregatedGroups: groupsOf((a) => a.spec?.service != null),
    crdsUnlisted: !wasListed(inventory, 'apiextensions.k8s.io', 'customresourcedefinitions'),
  };
}

/** Logs the blast radius first (before the stages, and before a refusal): what a teardown of the plan would delete, named. */
function logBlastRadius(b: BlastRadius, info: (line: string) => void): void {
  info(`blast radius: namespaces a teardown would delete: ${b.namespaces.join(', ') || '(none)'}`);
  info(
    `blast radius: releases it would remove: ${b.releases.map((r) => `${r.release} (${removalWords(r)})`).join(', ') || '(none)'}`,
  );
  for (const o of b.clusterScoped)
    info(`blast radius: cluster-scoped ${o.kind} ${o.name} (release ${o.release}), to be deleted by ${o.by}`);
  for (const o of b.otherNamespaces)
    info(
      `blast radius: ${o.kind} ${o.namespace}/${o.name} outside the scope (release ${o.release}), to be deleted by ${o.by}`,
    );
}

/**
 * `dry-run: true`: everything a teardown does before its first delete has run (inventory,
 * plan, refusals, `helm version` checked); report what the teardown would delete and what already blocks
 * the environment. Sends no mutating request. The verdict is `planned`: nothing was deleted,
 * so nothing is claimed clean.
 */
export async function dryRunBody(
  settings: Settings,
  inventory: Inventory,
  planned: Awaited<ReturnType<typeof plan>>,
  ports: EnginePorts,
  run: RunInputs,
): Promise<ReportBody> {
  const dryRun = await ports.group('Dry run: what the teardown would delete', async () => {
    // The plan's dry run (`predictionOf`), the one its prediction reads.
    const summary = planned.dryRun;
    for (const s of summary.stages)
      for (const k of s.skipped) ports.info(`stage ${s.index + 1}: would skip ${k.release}: ${k.reason}`);
    for (const s of summary.stages)
      ports.info(
        `stage ${s.index + 1}: would delete ${s.crdInstances.length} CRD instance(s), uninstall ${s.releases.join(', ')} (${s.objects.length} object(s))`,
      );
    ports.info(`would delete namespaces: ${summary.namespaces.join(', ') || '(none)'}`);
    ports.info(`dry run: nothing was deleted (${summary.objectCount} object(s) would be)`);
    return summary;
  });
  return plannedBody(settings, inventory, planned, ports, run, dryRun);
}

/**
 * The report body of a run that changed nothing (`mode: plan`, or a dry run): the plan, and a
 * scan of what already blocks the environment (a preview; it never fails the run).
 */
export async function plannedBody(
  settings: Settings,
  inventory: Inventory,
  planned: Awaited<ReturnType<typeof plan>>,
  ports: EnginePorts,
  run: RunInputs,
  dryRun?: DryRunSummary,
): Promise<ReportBody> {
  const { findings, failing, baseline } = await ports.group(
    'Scanning the environment before teardown',
    async () =>
      scan(settings, inventory, environmentOf(settings, inventory, planned.plan.scope.namespaces), ports, {
        annotateFailing: false,
        invalidReleaseRecords: planned.refused,
        ...(run.baseline ? { baseline: run.baseline } : {}),
      }),
  );
  // A plan a teardown would refuse is not a plan: say so, as the teardown would (nothing is deleted).
  const refused = planned.plan.refusals.length > 0;
  return {
    verdict: refused ? 'error' : 'planned',
    ...(refused
      ? {
          error: `a teardown of this scope would refuse (nothing was deleted): ${planned.plan.refusals.join('; ')}`,
        }
      : {}),
    inventory: summarizeInventory(inventory),
    plan: summarizePlan(planned.plan, planned.blastRadius),
    ...(dryRun ? { dryRun } : {}),
    prediction: planned.prediction,
    findings,
    failing: failing.map((f) => f.key),
    ...(baseline ? { baseline } : {}),
    warnings: planned.warnings,
  };
}

/**
 * The report body of a teardown the plan refuses (scope.ts `scopeRefusals`, protected objects,
 * CRD cascades, …): verdict `error`, the refusals as the error, and the plan with its blast
 * radius, so the reader sees what the scope would have reached. No request that changes the
 * cluster was sent.
 */
export function refusedBody(inventory: Inventory, planned: Awaited<ReturnType<typeof plan>>): ReportBody {
  return {
    verdict: 'error',
    error: `refusing to tear down (nothing was deleted): ${planned.plan.refusals.join('; ')}`,
    inventory: summarizeInventory(inventory),
    plan: summarizePlan(planned.plan, planned.blastRadius),
    warnings: planned.warnings,
  };
}

/**
 * Checks that would make the teardown half-blind, and `helm version` when the plan uninstalls
 * releases: they stop the run before anything is deleted (the plan's refusals stop it
 * earlier: `refusedBody`).
 * @throws Error naming the Helm releases that could not be read; what `checkHelm` throws for a
 *   broken or wrong helm.
 */
export async function checkBeforeTeardown(
  settings: Settings,
  planned: Awaited<ReturnType<typeof plan>>,
  ports: EnginePorts,
): Promise<void> {
  if (planned.problems.length > 0) {
    throw new Error(
      `could not read the Helm releases in scope, so the order is unknown; nothing was deleted: ${planned.problems.join('; ')}`,
    );
  }
  if (planned.plan.releases.length > 0) {
    // `helm version`, not only a PATH look-up: a broken or wrong helm stops here, before any change.
    const helmVersion = await checkHelm(settings.helm, ports.commands);
    ports.info(`helm: ${settings.helm} is Helm ${helmVersion}`);
  }
}
