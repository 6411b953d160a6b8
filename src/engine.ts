import type { OpenCluster } from './cluster/open.js';
import type { Settings } from './config/settings.js';
import { InputDefaults } from './config/inputs.js';
import { inputRef, Inputs, inputSet } from './words/input-words.js';
import { findReleases } from './helm/discover-releases.js';
import { describeWaves } from './plan/gitops-order.js';
import { checkHelm, helmCli } from './helm/helm-cli.js';
import { collectInventory, listedGroupOf } from './inventory/collect.js';
import { configMapRecordNamespaces } from './inventory/helm-records.js';
import type { Inventory } from './inventory/snapshot.js';
import type { ObjectMetadata } from './inventory/types.js';
import { groupOf } from './kube/api-version.js';
import type { LiveObjectLookup } from './plan/release-reach.js';
import type { CrdEvidence, LiveCrd } from './plan/crd-ownership.js';
import { buildPlan, type TeardownPlan } from './plan/build-plan.js';
import { resolveScope, scopeRefusals } from './plan/scope.js';
import { namespaceProtection } from './plan/protected-namespaces.js';
import { blastRadiusOf } from './teardown/blast-radius.js';
import type { BlastRadius, DryRunSummary } from './model/dry-run.js';
import {
  failingFindings,
  inventoryVerdict,
  scanVerdict,
  summarizeInventory,
  summarizePlan,
  teardownIncomplete,
  failsOnNothing,
  type Mode,
  type Report,
} from './report/report.js';
import type { Finding } from './rules/findings.js';
import { applyExclusions } from './rules/exclusions.js';
import { runRules } from './rules/index.js';
import { wasListed } from './rules/snapshot-views.js';
import { fullObjectsOf } from './rules/kubernetes-objects.js';
import type { HookObjectOfRelease, InvalidReleaseRecord } from './rules/rule.js';
import {
  diagnoseLeftovers,
  leftoverStillThere,
  leftoverUnreadable,
  withCauses,
  type Leftover,
  type LeftoverDiagnosis,
} from './rules/leftover-diagnosis.js';
import { dryRunOf } from './teardown/dry-run.js';
import { deletionOutlook } from './rules/deletion-forecast.js';
import {
  knownHangs,
  predictTeardown,
  surprisesOf,
  predictedId,
  type Prediction,
} from './teardown/prediction.js';
import { resourceIndex } from './teardown/resource-index.js';
import { contentCollections } from './teardown/namespace-content.js';
import { runTeardown, TeardownInterruptedError } from './teardown/run-teardown.js';
import { removalWords, type TeardownResult } from './model/teardown-result.js';
import { remediate, remediationError } from './remediate/run-remediation.js';
import type { RemediationReport } from './remediate/actions.js';
import type { CommandRunner } from './util/command.js';
import { compareWithBaseline, type Baseline } from './report/baseline.js';
import type { RefusedRequest } from './kube/refusal.js';
import type { Cancellation } from './util/cancellation.js';
import type { ProgressRecorder } from './report/cancelled.js';

/** What the engine needs besides the open cluster: logs, log groups and a command runner. */
export interface EnginePorts {
  readonly info: (line: string) => void;
  readonly warning: (line: string) => void;
  /** An error annotation (`::error::` in a workflow); findings that fail the step. Default: `warning`. */
  readonly error?: (line: string) => void;
  readonly group: <T>(title: string, fn: () => Promise<T>) => Promise<T>;
  readonly commands: CommandRunner;
  /**
   * The action's SIGINT/SIGTERM state (util/cancellation.ts): once aborted, execute.ts sends no
   * request and starts no command, and a teardown ends after its stage's work in flight.
   */
  readonly cancellation?: Cancellation;
  /** Records what the run did, for the report of a cancelled run (report/cancelled.ts). */
  readonly progress?: ProgressRecorder;
}

type ReportBody = Omit<Report, 'schemaVersion' | 'tool' | 'mode' | 'cluster'>;

/** What a run brings besides the settings, read by execute.ts before the cluster is opened. */
export interface RunInputs {
  /** The `baseline` input's report, read (report/read-report.ts). */
  readonly baseline?: Baseline;
}

async function readInventory(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts,
): Promise<Inventory> {
  const inventory = await ports.group('Reading the cluster (inventory)', () =>
    collectInventory(cluster.api, {
      pageSize: settings.pageSize,
      concurrency: settings.listConcurrency,
      log: ports.info,
      ...(settings.etcd ? { etcd: settings.etcd, etcdTimeoutMs: settings.requestTimeoutMs } : {}),
    }),
  );
  for (const gap of inventory.coverage)
    ports.warning(`could not read ${gap.resource} (${gap.reason}): ${gap.message}`);
  return inventory;
}

/**
 * The environment a scan judges: the namespaces in scope (`inScope`, existing ones), plus the
 * namespaces that no longer exist but still hold objects (force-finalized, shared/cases S10)
 * and whose name matches a `namespaces` name or glob. A selector cannot match those: their
 * labels are gone with them.
 */
function environmentOf(settings: Settings, inventory: Inventory, inScope: readonly string[]): string[] {
  const gone = [...inventory.byNamespace.keys()]
    .filter((ns) => !inventory.namespaceNames.has(ns))
    .map((name) => ({ name }));
  const matched = resolveScope({ ...settings.scope, selector: [] }, gone).namespaces;
  return [...new Set([...inScope, ...matched])].sort();
}

/** The namespaces of a snapshot with their labels, for scope resolution. */
function namespacesOf(inventory: Inventory) {
  return (
    inventory.full.namespaces as { metadata?: { name?: string; labels?: Record<string, string> } }[]
  ).map((n) => ({
    name: n.metadata?.name ?? '',
    labels: n.metadata?.labels ?? {},
  }));
}

/** The scan's environment in scan mode: the namespaces the inputs select, and gone ones they name. */
function scanEnvironment(settings: Settings, inventory: Inventory): readonly string[] {
  return environmentOf(settings, inventory, resolveScope(settings.scope, namespacesOf(inventory)).namespaces);
}

type ScanResult = ReturnType<typeof scan>;

/**
 * `remediate: safe` (src/remediate): acts on the scan's findings within the scope, then scans a
 * fresh snapshot so that the report says what is left. With `remediate: none` (the default)
 * returns the first scan as it is and sends nothing.
 */
async function remediateThenRescan(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts,
  first: ScanResult & { inventory: Inventory },
  environment: readonly string[],
  clusterWide: boolean,
  scanOptions: ScanOptions = {},
): Promise<ScanResult & { inventory: Inventory; remediation?: RemediationReport; error?: string }> {
  if (settings.remediate !== 'safe') return first;
  const done = await remediate(
    cluster.api,
    first.findings,
    first.inventory,
    {
      forceRemoveFinalizers: settings.forceRemoveFinalizers,
      environmentNamespaces: new Set(environment),
      clusterWide,
      protection: namespaceProtection(settings.scope.protect ?? [], namespacesOf(first.inventory)),
    },
    { info: ports.info, group: ports.group, stageTimeoutMs: settings.stageTimeoutMs },
  );
  const remediation: RemediationReport = { ...done, findingsBefore: first.findings.length };
  const error = remediationError(done);
  if (done.results.length === 0) return { ...first, remediation };
  const inventory = await readInventory(settings, cluster, ports);
  const refusals = done.results.flatMap((r) => (r.refusal ? [r.refusal] : []));
  const again = await ports.group('Scanning again after remediation', async () =>
    scan(settings, inventory, environment, ports, {
      ...scanOptions,
      refusals: [...(scanOptions.refusals ?? []), ...refusals],
    }),
  );
  return { ...again, inventory, remediation, ...(error ? { error } : {}) };
}

/** What a scan may be told beyond the settings. */
interface ScanOptions {
  /** Releases this run uninstalled (their operators' leftovers, S18). */
  readonly removedReleases?: readonly { namespace: string; name: string }[];
  /** The stuck threshold in ms; default the `stuck-after` input. */
  readonly stuckAfterMs?: number;
  /** Annotate the findings that cross `fail-on` (default true; false for a plan, which never fails on them). */
  readonly annotateFailing?: boolean;
  /** What the teardown left behind: each gets a diagnosis, and the findings that explain it are kept. */
  readonly leftovers?: readonly Leftover[];
  /** An earlier report's findings: each finding is marked new or still (`fail-on-new` reads it). */
  readonly baseline?: Baseline;
  /** Release records (Secrets and ConfigMaps) in scope whose record was refused (HelmReleaseRecordInvalid). */
  readonly invalidReleaseRecords?: readonly InvalidReleaseRecord[];
  /** Requests of the run's own that the API server refused (each becomes a DeletionRefused finding). */
  readonly refusals?: readonly RefusedRequest[];
  /** Objects the teardown found left by Helm hooks, with their releases (HelmLeftover names them). */
  readonly hookLeftovers?: readonly HookObjectOfRelease[];
}

/** Pure: an object's reference (apiVersion, kind, namespace, name) without the rest of what a teardown says of it. */
const ref = (b: { apiVersion: string; kind: string; namespace?: string; name: string }) => ({
  apiVersion: b.apiVersion,
  kind: b.kind,
  ...(b.namespace !== undefined ? { namespace: b.namespace } : {}),
  name: b.name,
});

/**
 * Pure: what a teardown left behind, as it saw it: objects of the stages still there when
 * their wait ended (custom resources deleted first, then the manifests' objects), objects of
 * Helm hooks, and namespaces still Terminating, not waited for, whose deletion was refused, or
 * that were found protected just before their DELETE.
 */
export function leftoversOf(teardown: TeardownResult): Leftover[] {
  return [
    ...teardown.stages.flatMap((s) => {
      const notUninstalled = s.releases.filter((r) => r.status !== 'uninstalled');
      const note = notUninstalled.length
        ? `release${notUninstalled.length === 1 ? '' : 's'} of its stage not uninstalled: ${notUninstalled.map((r) => `${r.release} (${r.status})`).join(', ')}`
        : undefined;
      return [
        ...s.crdInstances.flatMap((c) =>
          c.remaining.map((b): Leftover => ({ object: ref(b), source: 'crd-instances' })),
        ),
        ...s.remaining.map((b): Leftover => ({ object: ref(b), source: 'stage', ...(note ? { note } : {}) })),
      ];
    }),
    ...teardown.hookLeftovers.map((b): Leftover => ({ object: ref(b), source: 'hook' })),
    ...teardown.namespaces
      .filter(
        (n) =>
          n.status === 'stuck' ||
          n.status === 'not-waited' ||
          n.status === 'refused' ||
          n.status === 'protected',
      )
      .map((n): Leftover => ({
        object: { apiVersion: 'v1', kind: 'Namespace', name: n.name },
        source: 'namespace',
      })),
  ];
}

/**
 * Runs the rules over a snapshot and keeps what `scan-scope` asks for. `environment` are the
 * namespaces of the environment (they may be gone already: their orphans still count). With
 * `scan-scope: environment` the environment's findings come with the findings they are caused
 * by, and with `options.leftovers` (after a teardown) with those that explain each leftover
 * (rules/leftover-diagnosis.ts), wherever their objects are; `leftovers` then holds the diagnoses.
 */
function scan(
  settings: Settings,
  inventory: Inventory,
  environment: readonly string[],
  ports: EnginePorts,
  options: ScanOptions = {},
) {
  const all = runRules(inventory, {
    now: Date.now(),
    stuckAfterSeconds: (options.stuckAfterMs ?? settings.stuckAfterMs) / 1000,
    environmentNamespaces: new Set(environment),
    removedReleases: options.removedReleases ?? [],
    invalidReleaseRecords: options.invalidReleaseRecords ?? [],
    refusals: options.refusals ?? [],
    hookLeftovers: options.hookLeftovers ?? [],
  });
  const diagnosed = options.leftovers ? diagnoseLeftovers(options.leftovers, all, inventory) : undefined;
  // The environment's findings, plus what causes them and what explains its leftovers, wherever
  // that is (a CRD, an APIService, a webhook, a cluster-scoped object): reported in full.
  const inScope: Finding[] =
    settings.scanScope === 'cluster'
      ? all
      : withCauses(all, [
          ...all.filter((f) => f.scope === 'environment').map((f) => f.key),
          ...(diagnosed ?? []).flatMap((d) => d.findings),
        ]);
  const { kept, suppressed } = applyExclusions(inScope, settings.ignore, inventory);
  const keptKeys = new Set(kept.map((f) => f.key));
  // A finding suppressed by `ignore` is not linked to.
  const leftovers: LeftoverDiagnosis[] | undefined = diagnosed?.map((d) => ({
    ...d,
    findings: d.findings.filter((k) => keptKeys.has(k)),
    rootCauses: d.rootCauses.filter((k) => keptKeys.has(k)),
  }));
  for (const x of suppressed) ports.info(`ignore ${x.entry}: ${x.count} finding(s) suppressed`);
  const compared = options.baseline ? compareWithBaseline(kept, options.baseline) : undefined;
  const findings = compared?.findings ?? kept;
  if (compared)
    ports.info(
      `against the baseline ${compared.summary.path}: ${compared.summary.new} new, ${compared.summary.still} still there, ${compared.summary.resolved.length} resolved`,
    );
  // fail-on-new: only new findings fail (with no baseline, every finding is new).
  const overPolicy = failingFindings(findings, settings.failOn).filter(
    (f) => !settings.failOnNew || (f as { baseline?: string }).baseline !== 'still',
  );
  const judged = judgeLeftovers(settings, inventory, diagnosed ?? [], keptKeys);
  const failing = findings.filter((f) => overPolicy.includes(f) || judged.failingKeys.has(f.key));
  ports.info(
    `scan (${settings.scanScope}): ${findings.length} findings, ${failing.length} over ${inputRef(Inputs.failOn)}` +
      (all.length > inScope.length
        ? `; ${all.length - inScope.length} more outside the environment (${inputSet(Inputs.scanScope, 'cluster')} shows them)`
        : ''),
  );
  if (options.annotateFailing !== false)
    for (const f of failing)
      (f.severity === 'error' ? (ports.error ?? ports.warning) : ports.warning)(`${f.code}: ${f.message}`);
  return {
    findings,
    failing,
    unexplainedLeftovers: judged.unexplained,
    suppressed,
    ...(leftovers ? { leftovers } : {}),
    ...(compared ? { baseline: compared.summary } : {}),
  };
}

/**
 * Pure: how the objects a teardown left behind (`diagnosed`, before `ignore`) weigh on the
 * verdict. An object still in the snapshot fails the run whatever its findings' severity (it is
 * the teardown's own leftover), unless `fail-on` is `never` or `ignore` suppressed every finding
 * that explains it (`keptKeys` are the findings `ignore` kept). So does one missing from the
 * snapshot because its kind could not be read (`leftoverUnreadable`): it is not proven gone. `failingKeys`: the kept findings
 * that explain a failing leftover (they join `failing`, so the summary shows them as root causes
 * to act on); `unexplained`: failing leftovers no finding explains.
 */
function judgeLeftovers(
  settings: Settings,
  inventory: Inventory,
  diagnosed: readonly LeftoverDiagnosis[],
  keptKeys: ReadonlySet<string>,
): { failingKeys: Set<string>; unexplained: number } {
  const failingKeys = new Set<string>();
  let unexplained = 0;
  if (failsOnNothing(settings.failOn)) return { failingKeys, unexplained };
  for (const d of diagnosed) {
    if (!leftoverStillThere(inventory, d.object)) {
      // Not in the snapshot because its kind could not be read: not proven gone.
      if (leftoverUnreadable(inventory, d.object)) unexplained += 1;
      continue;
    }
    if (d.findings.length === 0) unexplained += 1;
    for (const k of d.findings) if (keptKeys.has(k)) failingKeys.add(k);
  }
  return { failingKeys, unexplained };
}

async function plan(settings: Settings, cluster: OpenCluster, inventory: Inventory, ports: EnginePorts) {
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
function liveObjectIndex(inventory: Inventory): LiveObjectLookup {
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
async function dryRunBody(
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
async function plannedBody(
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
function refusedBody(inventory: Inventory, planned: Awaited<ReturnType<typeof plan>>): ReportBody {
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
async function checkBeforeTeardown(
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

/**
 * Pure: a function telling whether a snapshot holds an object (by API group, kind, namespace
 * and name; a Namespace by its name); always undefined when the snapshot has coverage gaps (a
 * list that failed may hold it: nothing is concluded).
 */
function presenceIn(
  inventory: Inventory,
): (o: { apiVersion: string; kind: string; namespace?: string; name: string }) => boolean | undefined {
  if (inventory.coverage.length > 0) return () => undefined;
  const ids = new Set(inventory.objects.map(predictedId));
  const namespaces = new Set(namespacesOf(inventory).map((n) => n.name));
  return (o) =>
    o.kind === 'Namespace' && groupOf(o.apiVersion) === '' ? namespaces.has(o.name) : ids.has(predictedId(o));
}

/** Pure: the releases a teardown uninstalled, as namespace and name (their operators' leftovers: S18). */
function uninstalledReleasesOf(teardown: TeardownResult): { namespace: string; name: string }[] {
  // Releases are "<namespace>/<name>".
  return teardown.stages
    .flatMap((s) => s.releases)
    .filter((r) => r.status === 'uninstalled')
    .map((r) => ({ namespace: r.release.split('/')[0]!, name: r.release.split('/')[1]! }));
}

/** Pure: the objects a teardown found left by Helm hooks, with their releases (`<namespace>/<name>`). */
function hookObjectsOfReleases(teardown: TeardownResult): HookObjectOfRelease[] {
  return teardown.hookLeftovers.map((b) => {
    const [namespace = '', name = ''] = b.release.split('/');
    return { object: ref(b), release: { namespace, name } };
  });
}

/**
 * Pure: a teardown's verdict from the scan afterwards. Clean only when the scan read everything:
 * a resource it could not list (a 503 while etcd stalled, a 403) may hold what the environment left.
 */
function teardownRunVerdict(
  teardown: TeardownResult,
  scanned: {
    error?: string;
    failing: readonly Finding[];
    unexplainedLeftovers: number;
    inventory: Inventory;
  },
): Report['verdict'] {
  if (scanned.error) return 'error';
  if (teardownIncomplete(teardown) || scanned.failing.length > 0 || scanned.unexplainedLeftovers > 0)
    return 'leftovers';
  return scanned.inventory.coverage.length > 0 ? 'partial' : 'clean';
}

/**
 * Proves a teardown: a fresh snapshot after it, scanned (and remediated, when asked) for what
 * the environment left, and the report body with the verdict.
 * @throws what reading the inventory throws.
 */
async function provenTeardownBody(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts,
  planned: Awaited<ReturnType<typeof plan>>,
  teardown: TeardownResult,
  run: RunInputs,
): Promise<ReportBody> {
  const after = await readInventory(settings, cluster, ports);
  // A deletion the teardown waited a whole stage for is stuck by then, however young; so is one
  // it did not wait for because the prediction said it hangs and it had not changed since
  // (known-blockers.ts): the scan then judges every deletion it finds, at any age.
  const skippedWaits =
    teardown.stages.some((s) => (s.waitsSkipped ?? []).length > 0) ||
    teardown.namespaces.some((n) => n.waitSkipped !== undefined);
  const scanOptions: ScanOptions = {
    removedReleases: uninstalledReleasesOf(teardown),
    stuckAfterMs: skippedWaits ? 0 : Math.min(settings.stuckAfterMs, settings.stageTimeoutMs),
    leftovers: leftoversOf(teardown),
    ...(run.baseline ? { baseline: run.baseline } : {}),
    invalidReleaseRecords: planned.refused,
    refusals: teardown.refusals ?? [],
    hookLeftovers: hookObjectsOfReleases(teardown),
  };
  const environment = environmentOf(settings, after, planned.plan.scope.namespaces);
  const first = await ports.group('Scanning for leftovers', async () =>
    scan(settings, after, environment, ports, scanOptions),
  );
  const rescanned = await remediateThenRescan(
    settings,
    cluster,
    ports,
    { ...first, inventory: after },
    environment,
    false,
    scanOptions,
  );
  const { findings, failing, suppressed, remediation, error, leftovers, baseline } = rescanned;
  return {
    verdict: teardownRunVerdict(teardown, rescanned),
    ...(error ? { error } : {}),
    ...(remediation ? { remediation } : {}),
    inventory: summarizeInventory(rescanned.inventory),
    plan: summarizePlan(planned.plan, planned.blastRadius),
    teardown,
    prediction: planned.prediction,
    surprises: surprisesOf(planned.prediction, scanOptions.leftovers ?? [], presenceIn(rescanned.inventory)),
    ...(leftovers && leftovers.length > 0 ? { leftovers } : {}),
    findings,
    failing: failing.map((f) => f.key),
    ...(baseline ? { baseline } : {}),
    suppressed,
    warnings: planned.warnings,
  };
}

/**
 * Pure: what a teardown did, in words: `3 release(s) removed; deletion of 2 namespace(s)
 * accepted (pr-1 deleted, pr-2 not confirmed)`, or `nothing deleted`.
 */
export function teardownDoneWords(teardown: TeardownResult): string {
  const removed = teardown.stages.flatMap((s) => s.releases).filter((r) => r.status === 'uninstalled');
  const asked = teardown.namespaces.filter(
    (n) => n.status !== 'absent' && n.status !== 'refused' && n.status !== 'protected',
  );
  const done = [
    removed.length
      ? `${removed.length} release(s) removed (${removed.map((r) => r.release).join(', ')})`
      : '',
    asked.length
      ? `deletion of ${asked.length} namespace(s) accepted (${asked
          .map((n) => `${n.name} ${n.status === 'deleted' ? 'deleted' : 'not confirmed'}`)
          .join(', ')})`
      : '',
  ].filter(Boolean);
  return done.length ? done.join('; ') : 'nothing deleted';
}

/**
 * The report body of a teardown that something stopped after it began (the cluster stopped
 * answering, the scan afterwards failed): verdict `error`, and still the plan and every step
 * already taken (`teardown`), so the report and the outputs count what was done; the error says
 * it in words, and that nothing was looked at again.
 */
function stoppedBody(
  planned: Awaited<ReturnType<typeof plan>>,
  teardown: TeardownResult,
  error: unknown,
): ReportBody {
  const why = (error as Error)?.message?.trim() || `unexpected error: ${String(error)}`;
  return {
    verdict: 'error',
    error: `the teardown stopped: ${why}${/[.?!]$/.test(why) ? '' : '.'} Done before that: ${teardownDoneWords(teardown)}; the cluster was not looked at again (run kube-sweep again to finish and check).`,
    plan: summarizePlan(planned.plan, planned.blastRadius),
    teardown,
    prediction: planned.prediction,
    warnings: planned.warnings,
  };
}

/**
 * One strategy per mode: each reads what it needs from the cluster and returns the report
 * body (verdict included). They throw on errors that stop the run; main.ts turns those into
 * an `error` report.
 */
export const modes: Record<
  Exclude<Mode, 'merge' | 'reap'>,
  (settings: Settings, cluster: OpenCluster, ports: EnginePorts, run: RunInputs) => Promise<ReportBody>
> = {
  async inventory(settings, cluster, ports) {
    const inventory = summarizeInventory(await readInventory(settings, cluster, ports));
    return { verdict: inventoryVerdict(inventory), inventory, warnings: [] };
  },
  async scan(settings, cluster, ports, run) {
    const before = await readInventory(settings, cluster, ports);
    const environment = scanEnvironment(settings, before);
    const scanOptions: ScanOptions = run.baseline ? { baseline: run.baseline } : {};
    const first = await ports.group('Scanning for leftovers', async () =>
      scan(settings, before, environment, ports, scanOptions),
    );
    const { findings, failing, suppressed, inventory, remediation, error, baseline } =
      await remediateThenRescan(
        settings,
        cluster,
        ports,
        { ...first, inventory: before },
        environment,
        // The whole cluster is the scope only when scan-scope is cluster and no input narrows it.
        settings.scanScope === 'cluster' &&
          settings.scope.namespacePatterns.length === 0 &&
          settings.scope.selector.length === 0 &&
          settings.scope.releases.length === 0,
        scanOptions,
      );
    return {
      verdict: error ? 'error' : scanVerdict(failing, inventory.coverage.length),
      ...(error ? { error } : {}),
      inventory: summarizeInventory(inventory),
      findings,
      failing: failing.map((f) => f.key),
      ...(baseline ? { baseline } : {}),
      suppressed,
      ...(remediation ? { remediation } : {}),
      warnings: [],
    };
  },
  async plan(settings, cluster, ports, run) {
    const inventory = await readInventory(settings, cluster, ports);
    return plannedBody(settings, inventory, await plan(settings, cluster, inventory, ports), ports, run);
  },
  async teardown(settings, cluster, ports, run) {
    if (settings.stageTimeoutCapped) {
      ports.info(
        `${inputRef(Inputs.stageTimeout)} is capped at ${inputRef(Inputs.timeout)} (${settings.timeoutMs / 1000}s): the default ${InputDefaults['stage-timeout']} is longer, and ${inputRef(Inputs.stageTimeout)} was not set`,
      );
    }
    const inventory = await readInventory(settings, cluster, ports);
    const planned = await plan(settings, cluster, inventory, ports);
    if (planned.plan.refusals.length > 0) return refusedBody(inventory, planned);
    await checkBeforeTeardown(settings, planned, ports);
    const failedGroupVersions = new Set(inventory.failedGroupVersions.map((f) => f.groupVersion));
    if (settings.dryRun) return dryRunBody(settings, inventory, planned, ports, run);
    let teardown: TeardownResult;
    try {
      teardown = await runTeardown(
        planned.plan,
        {
          failedGroupVersions,
          timeoutMs: settings.timeoutMs,
          stageTimeoutMs: settings.stageTimeoutMs,
          uninstallConcurrency: settings.uninstallConcurrency,
          uninstallMode: settings.uninstallMode,
          knownHangs: knownHangs(planned.prediction),
          awaitKnownHangs: settings.awaitPredictedHangs,
        },
        {
          api: cluster.api,
          helm: helmCli(settings.helm, cluster.kubeconfigPath, ports.commands),
          resources: planned.resources,
          namespaceContent: (namespace) => contentCollections(inventory, namespace),
          log: ports.info,
          group: ports.group,
          ...(ports.progress ? { onReleaseDone: ports.progress.releaseDone } : {}),
        },
      );
    } catch (error) {
      if (!(error instanceof TeardownInterruptedError)) throw error;
      return stoppedBody(planned, error.partial, error.cause);
    }
    // Cancelled: what the teardown did, and no scan (main.ts writes the verdict and the message).
    if (ports.cancellation?.signal.aborted)
      return { verdict: 'error', plan: summarizePlan(planned.plan), teardown, warnings: planned.warnings };
    try {
      return await provenTeardownBody(settings, cluster, ports, planned, teardown, run);
    } catch (error) {
      // The scan afterwards failed: what the teardown did still goes into the report.
      return stoppedBody(planned, teardown, error);
    }
  },
};
