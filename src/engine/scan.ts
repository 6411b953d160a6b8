/**
 * The scan, shared by `mode: scan`, the plan and the proof after a teardown: which namespaces it
 * judges, the rules over a snapshot, how the teardown's leftovers weigh on the verdict, and
 * `remediate: safe` with the rescan after it.
 */
import type { OpenCluster } from '../cluster/open.js';
import type { Settings } from '../config/settings.js';
import { inputRef, Inputs, inputSet } from '../words/input-words.js';
import type { Inventory } from '../inventory/snapshot.js';
import { resolveScope } from '../plan/scope.js';
import { namespaceProtection } from '../plan/protected-namespaces.js';
import { failingFindings, failsOnNothing } from '../report/report.js';
import type { Finding } from '../rules/findings.js';
import { applyExclusions } from '../rules/exclusions.js';
import { runRules } from '../rules/index.js';
import type { HookObjectOfRelease, InvalidReleaseRecord } from '../rules/rule.js';
import {
  diagnoseLeftovers,
  leftoverStillThere,
  leftoverUnreadable,
  withCauses,
  type Leftover,
  type LeftoverDiagnosis,
} from '../rules/leftover-diagnosis.js';
import type { TeardownResult } from '../model/teardown-result.js';
import { remediate, remediationError } from '../remediate/run-remediation.js';
import type { RemediationReport } from '../remediate/actions.js';
import { compareWithBaseline, type Baseline } from '../report/baseline.js';
import type { RefusedRequest } from '../kube/refusal.js';
import { type EnginePorts, readInventory } from './ports.js';

/**
 * The environment a scan judges: the namespaces in scope (`inScope`, existing ones), plus the
 * namespaces that no longer exist but still hold objects (force-finalized, shared/cases S10)
 * and whose name matches a `namespaces` name or glob. A selector cannot match those: their
 * labels are gone with them.
 */
export function environmentOf(
  settings: Settings,
  inventory: Inventory,
  inScope: readonly string[],
): string[] {
  const gone = [...inventory.byNamespace.keys()]
    .filter((ns) => !inventory.namespaceNames.has(ns))
    .map((name) => ({ name }));
  const matched = resolveScope({ ...settings.scope, selector: [] }, gone).namespaces;
  return [...new Set([...inScope, ...matched])].sort();
}

/** The namespaces of a snapshot with their labels, for scope resolution. */
export function namespacesOf(inventory: Inventory) {
  return (
    inventory.full.namespaces as { metadata?: { name?: string; labels?: Record<string, string> } }[]
  ).map((n) => ({
    name: n.metadata?.name ?? '',
    labels: n.metadata?.labels ?? {},
  }));
}

/** The scan's environment in scan mode: the namespaces the inputs select, and gone ones they name. */
export function scanEnvironment(settings: Settings, inventory: Inventory): readonly string[] {
  return environmentOf(settings, inventory, resolveScope(settings.scope, namespacesOf(inventory)).namespaces);
}

type ScanResult = ReturnType<typeof scan>;

/**
 * `remediate: safe` (src/remediate): acts on the scan's findings within the scope, then scans a
 * fresh snapshot so that the report says what is left. With `remediate: none` (the default)
 * returns the first scan as it is and sends nothing.
 */
export async function remediateThenRescan(
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
export interface ScanOptions {
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
export const ref = (b: { apiVersion: string; kind: string; namespace?: string; name: string }) => ({
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
export function scan(
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
