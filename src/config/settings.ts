/**
 * The settings of a run, and their one reader: `parseSettings` reads every input, validates it
 * through the schema (input-schema.ts, the inputs by group in *-inputs.ts) and converts the
 * result into `Settings`.
 */
import { InputDefaults } from './inputs.js';
import { inputRef, Inputs, inputWord, type InputName } from '../words/input-words.js';
import type { ScopeSpec } from '../plan/scope.js';
import type { UserOrdering } from '../plan/build-plan.js';
import type { Severity } from '../rules/severity.js';
import type { PublishSettings } from '../report/github/publish.js';
import type { FindingCode } from '../rules/codes.js';
import type { Exclusion } from '../rules/exclusions.js';
import type { EtcdAccess } from '../inventory/etcd.js';
import type { ReapPolicy } from '../plan/environments.js';
import { inputSchema, type ParsedInputs } from './input-schema.js';

/**
 * Read-only, validated settings. The only place that knows input names and defaults; every
 * other module takes a `Settings`. Durations are stored in milliseconds (`...Ms`).
 */
export interface Settings {
  /**
   * `teardown`: uninstall the releases in scope stage by stage, wait until their objects are
   * gone, delete the scoped namespaces. `plan`: print that plan and make no mutating request.
   * `inventory`: read the whole cluster and report what was read and what could not be.
   */
  readonly mode: 'teardown' | 'plan' | 'scan' | 'inventory' | 'merge' | 'reap';
  /** `mode: merge`: globs of the report files to merge (`reports`). */
  readonly reports: readonly string[];
  /** `mode: reap`: how environments are found, what abandons one, what keeps one, how many at once. */
  readonly reap: ReapSettings;
  /**
   * Which findings the scan reports: `environment` (about the scoped namespaces and what backs
   * them, plus the findings those are caused by and, after a teardown, those that explain its
   * leftovers, wherever their objects are) or `cluster` (everything). Default (`scanScopeOf`):
   * cluster for a scan that names no scope, environment otherwise.
   */
  readonly scanScope: 'environment' | 'cluster';
  /** Findings that fail the step: at or above `severity`, or with one of `codes`. */
  readonly failOn: { readonly severity?: Severity; readonly codes: readonly FindingCode[] };
  /**
   * Only findings that are new against the baseline (report/baseline.ts) fail the step; with no
   * `baseline` every finding is new.
   */
  readonly failOnNew: boolean;
  /** The `baseline` input: path of an earlier run's JSON report; '' for none. */
  readonly baseline: string;
  /** Age of a deletion (deletionTimestamp) from which the scan calls it stuck, in ms. */
  readonly stuckAfterMs: number;
  /** `ignore` entries: findings they match are suppressed (and counted). */
  readonly ignore: readonly Exclusion[];
  /**
   * `none`: report only. `safe`: after the scan, delete APIServices and webhook configurations
   * whose backend is gone, re-create missing namespaces that still store objects and delete them
   * properly, remove the finalizers named in `forceRemoveFinalizers`; then scan again
   * (src/remediate/plan-remediation.ts has the scope rule).
   */
  readonly remediate: 'none' | 'safe';
  /** Finalizer names `remediate: safe` may remove from objects a finalizer finding reports. */
  readonly forceRemoveFinalizers: readonly string[];
  /**
   * The optional read-only etcd read (src/inventory/etcd.ts): endpoint URL and, for https,
   * client TLS files. Absent: etcd is not read.
   */
  readonly etcd?: EtcdAccess;
  /** The environment: namespace names/globs, namespace label selector, releases, `protect` globs. */
  readonly scope: ScopeSpec;
  /**
   * `max-namespaces`: a teardown (and a plan) of more namespaces than this is refused before any
   * change (plan/scope.ts `scopeRefusals`). Scan never asks.
   */
  readonly maxNamespaces: number;
  /** Delete each scoped namespace as soon as the last stage touching it is done (untouched ones after the last stage). */
  readonly deleteNamespaces: boolean;
  /**
   * With `mode: teardown`: inventory, plan and every pre-delete check, then report what would be
   * deleted and send no create, update, patch or delete request. No effect in other modes.
   */
  readonly dryRun: boolean;
  /** `order` lines, `a -> b`: release a is torn down before release b. */
  readonly order: readonly UserOrdering[];
  /** Overall teardown budget in ms. */
  readonly timeoutMs: number;
  /**
   * Budget of each stage (and of the namespace wait) in ms, from its start: `stage-timeout`,
   * capped at `timeout` when the user left `stage-timeout` unset and set a shorter `timeout`.
   */
  readonly stageTimeoutMs: number;
  /** True when the default `stage-timeout` was longer than `timeout` and was capped to it. */
  readonly stageTimeoutCapped: boolean;
  /** Helm executable (a name on PATH or a path). */
  readonly helm: string;
  /** How many `helm uninstall` run at once within a stage. */
  readonly uninstallConcurrency: number;
  /**
   * `auto`: a release with no delete hooks whose record and namespaced objects are in
   * namespaces the teardown deletes is removed with them (teardown/remove-with-namespace.ts);
   * `helm`: every release by `helm uninstall`.
   */
  readonly uninstallMode: 'auto' | 'helm';
  /**
   * `await-predicted-hangs`: true waits for objects the prediction says hang like any other,
   * in each stage and in the namespace wait (the old patience); false (default) looks at each
   * once and does not wait while nothing about it changed (teardown/known-blockers.ts).
   */
  readonly awaitPredictedHangs: boolean;
  /** `existing`: use `kubeconfig`/`context`; `kind`: create (or reuse) a kind cluster. */
  readonly cluster: 'existing' | 'kind';
  /** Raw `kubeconfig` input: a path, inline YAML, base64 of either, or '' for the default chain. */
  readonly kubeconfig: string;
  /** Context to use; '' means the kubeconfig's current-context. */
  readonly context: string;
  /** The cluster's name in the report and the fleet summary (`cluster-name`); '' means the context's. */
  readonly clusterName: string;
  readonly kind: {
    readonly clusterName: string;
    readonly configPath: string;
    readonly nodeImage: string;
    readonly waitMs: number;
    readonly keep: boolean;
  };
  /** Timeout of one API request, in ms. */
  readonly requestTimeoutMs: number;
  /** How many list requests run at once. */
  readonly listConcurrency: number;
  /** `limit` of one list page. */
  readonly pageSize: number;
  /**
   * Where the JSON report is written; '' means `$RUNNER_TEMP/kube-sweep-report-<step>.json`, one
   * file per step (main.ts `defaultReportName`; the CLI writes no file then).
   */
  readonly reportPath: string;
  /**
   * pr-comment, check-run and github-token: what to publish to GitHub, and the token for it;
   * request-timeout bounds each GitHub request too.
   */
  readonly github: PublishSettings;
}

/** The inputs of `mode: reap` (plan/environments.ts judges with them). */
export interface ReapSettings extends ReapPolicy {
  /** `environments`: namespace patterns with one `{id}`. */
  readonly patterns: readonly string[];
  /** `environment-label`: a namespace label whose value is the id; '' for none. */
  readonly label: string;
  /** `max-environments`: more abandoned environments than this and nothing is reaped. */
  readonly maxEnvironments: number;
  /** `reap-concurrency`: environments torn down at once. */
  readonly concurrency: number;
}

/** Thrown for input that cannot be used. `message` names the input, quotes the value and says the fix. */
export class InputError extends Error {
  constructor(
    readonly input: InputName,
    message: string,
  ) {
    super(message);
    this.name = 'InputError';
  }
}

/** Reads one raw input; '' when unset (the shape of core.getInput). */
export type InputReader = (name: InputName) => string;

/** The reap settings from the parsed inputs. */
function reapSettingsOf(v: ParsedInputs): ReapSettings {
  return Object.freeze({
    patterns: v.environments,
    label: v['environment-label'],
    ...(v['older-than'] !== undefined ? { olderThanMs: v['older-than'] } : {}),
    prClosed: v['pr-state'],
    ...(v['abandoned-label'] ? { abandonedLabel: v['abandoned-label'] } : {}),
    ...(v['keep-label'] ? { keepLabel: v['keep-label'] } : {}),
    maxEnvironments: v['max-environments'],
    concurrency: v['reap-concurrency'],
  });
}

/**
 * Pure: the `scan-scope` a run uses. Set: that. Empty: `cluster` for a scan that names no
 * scope (no `namespaces`, `selector` or `releases`), else `environment`: as `kubectl -n`, a scan of
 * some namespaces reports those namespaces, what backs them and what blocks them wherever it
 * is (a CRD of their instances, a webhook or APIService whose backend Service is there), and
 * nothing else of the cluster.
 */
function scanScopeOf(v: ParsedInputs): Settings['scanScope'] {
  const given = v[Inputs.scanScope];
  if (given) return given as Settings['scanScope'];
  const named = v.namespaces.length > 0 || v.selector.requirements.length > 0 || v.releases.length > 0;
  return v.mode === 'scan' && !named ? 'cluster' : 'environment';
}

/**
 * Parses and validates every input into `Settings`. An unset input takes its default from
 * `InputDefaults`.
 * @throws InputError for the first bad input, naming it, quoting the value and giving the fix.
 */
export function parseSettings(read: InputReader): Settings {
  const raw: Record<string, string> = {};
  for (const name of Object.values(Inputs)) {
    const value = read(name);
    raw[name] = value === '' ? InputDefaults[name] : value;
  }
  const parsed = inputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const input = (issue.path[0] as InputName | undefined) ?? Inputs.mode;
    throw new InputError(input, issue.message);
  }
  const v = parsed.data;
  // Only a stage-timeout the user set is refused for being longer than the timeout; the
  // default one is capped, so that `timeout: 3m` alone holds.
  if (read(Inputs.stageTimeout) !== '' && v['stage-timeout'] > v.timeout) {
    throw new InputError(
      Inputs.stageTimeout,
      `${inputWord('stage-timeout')} (${v['stage-timeout'] / 1000}s) is longer than ${inputRef(Inputs.timeout)} (${v.timeout / 1000}s); make it shorter or raise ${inputRef(Inputs.timeout)}`,
    );
  }
  return Object.freeze({
    mode: v.mode,
    reports: v.reports,
    reap: reapSettingsOf(v),
    scanScope: scanScopeOf(v),
    failOn: Object.freeze(v['fail-on']),
    failOnNew: v['fail-on-new'],
    baseline: v.baseline,
    stuckAfterMs: v['stuck-after'],
    ignore: v.ignore,
    remediate: v.remediate,
    forceRemoveFinalizers: v['force-remove-finalizers'],
    ...(v['etcd-endpoint']
      ? { etcd: { endpoint: v['etcd-endpoint'], ...(v['etcd-tls'] ? { tls: v['etcd-tls'] } : {}) } }
      : {}),
    scope: Object.freeze({
      namespacePatterns: v.namespaces,
      selector: v.selector.requirements,
      selectorText: v.selector.text,
      releases: v.releases,
      protect: v.protect,
      requireMatch: v['require-match'],
    }),
    maxNamespaces: v['max-namespaces'],
    deleteNamespaces: v['delete-namespaces'],
    dryRun: v['dry-run'],
    order: v.order,
    timeoutMs: v.timeout,
    stageTimeoutMs: Math.min(v['stage-timeout'], v.timeout),
    stageTimeoutCapped: v['stage-timeout'] > v.timeout,
    helm: v.helm || 'helm',
    uninstallConcurrency: v['uninstall-concurrency'],
    uninstallMode: v['uninstall-mode'],
    awaitPredictedHangs: v['await-predicted-hangs'],
    cluster: v.cluster,
    kubeconfig: v.kubeconfig,
    context: v.context,
    clusterName: v['cluster-name'],
    kind: Object.freeze({
      clusterName: v['kind-cluster-name'],
      configPath: v['kind-config'],
      nodeImage: v['kind-node-image'],
      waitMs: v['kind-wait'],
      keep: v['kind-keep'],
    }),
    requestTimeoutMs: v['request-timeout'],
    listConcurrency: v['list-concurrency'],
    pageSize: v['page-size'],
    reportPath: v['report-path'],
    github: Object.freeze({
      prComment: v['pr-comment'],
      checkRun: v['check-run'],
      token: v['github-token'],
      publishServer: v['publish-server'],
      requestTimeoutMs: v['request-timeout'],
    }),
  });
}
