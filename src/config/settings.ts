import parseDuration from 'parse-duration';
import { z } from 'zod';
import { byFace, InputDefaults, inputRef, Inputs, inputSet, inputWord, type InputName } from './inputs.js';
import { LabelSelectorError, parseLabelSelector } from '../plan/label-selector.js';
import type { ReleaseRef, ScopeSpec } from '../plan/scope.js';
import type { OrderRef, UserOrdering } from '../plan/build-plan.js';
import type { Severity } from '../rules/severity.js';
import type { PublishSettings } from '../report/github/publish.js';
import { findingCodes, type FindingCode } from '../rules/codes.js';
import type { Exclusion } from '../rules/exclusions.js';
import { minimatch } from 'minimatch';
import { parse as parseYaml } from 'yaml';
import type { EtcdAccess } from '../inventory/etcd.js';
import { environmentPattern, type ReapPolicy } from '../plan/environments.js';

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
   * leftovers, wherever their objects are) or `cluster` (everything). Default: environment for
   * teardown and plan, cluster for scan.
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

const kindClusterName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

// A duration is one or more number+unit pairs (90s, 5m, 1h30m, 500ms); a bare number is refused
// (parse-duration would read it as milliseconds, which nobody means for a timeout).
const durationPattern = /^(\d+(\.\d+)?(ms|s|m|h|d))+$/;

/**
 * The longest time budget kube-sweep takes, in ms: 2^31 − 1, the longest delay Node.js's
 * `setTimeout` keeps (a longer one is set to 1 ms with a TimeoutOverflowWarning, and
 * `AbortSignal.timeout` refuses more than 2^32 − 1 with a RangeError). The waits, the helm
 * uninstall processes and every API request run on such timers, so `timeout`, `stage-timeout`,
 * `request-timeout` and `kind-wait` are refused above it.
 */
export const maxDurationMs = 2 ** 31 - 1;

/** `maxDurationMs` in whole seconds, as a duration input is written (24d 20h 31m 23.647s, floored). */
export const maxDurationText = '24d20h31m23s';

/**
 * A duration input in ms (rounded to whole ms, at least 1). With `capped`, longer than
 * `maxDurationMs` is refused; `stuck-after` is an age compared with timestamps, not a timer, so
 * it has no maximum.
 */
function duration(name: InputName, capped = true) {
  return z.string().transform((raw, ctx) => {
    const ms = durationPattern.test(raw.trim()) ? parseDuration(raw.trim()) : undefined;
    if (ms === null || ms === undefined || Number.isNaN(ms) || Math.round(ms) < 1) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}', which is not a positive duration; write it like 90s, 5m or 1h30m`,
      });
      return z.NEVER;
    }
    if (capped && ms > maxDurationMs) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}', longer than the maximum, ${maxDurationText} (2^31-1 ms, the longest timer Node.js can set); write ${maxDurationText} or less, e.g. 24d`,
      });
      return z.NEVER;
    }
    if (!Number.isFinite(ms)) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}', a number too large to read; write it like 90s, 5m or 1h30m`,
      });
      return z.NEVER;
    }
    return Math.round(ms);
  });
}

/** A duration input that may be left empty (undefined then). */
function optionalDuration(name: InputName) {
  return z.string().transform((raw, ctx) => {
    if (raw.trim() === '') return undefined;
    const parsed = duration(name, false).safeParse(raw);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]!.message });
      return z.NEVER;
    }
    return parsed.data;
  });
}

/** `environments`: namespace patterns with one `{id}` each (plan/environments.ts). */
function environmentPatterns() {
  return z.string().transform((raw, ctx) => {
    const out = items(raw);
    for (const p of out) {
      try {
        environmentPattern(p);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord(Inputs.environments)}: ${(error as Error).message}; write namespace patterns with one {id} each, e.g. pr-{id}-* (with ${inputSet(Inputs.prState, 'closed')} the id is the pull request number)`,
        });
        return z.NEVER;
      }
    }
    return out;
  });
}

/** A label key (a qualified name, as the API server validates it), or ''. */
function labelKey(name: InputName) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if (text === '' || (finalizerName.test(text) && text.length <= 316)) return text;
    ctx.addIssue({
      code: 'custom',
      message: `${inputWord(name)} is '${raw}', which is not a label key; write one like preview-id or example.com/preview-id`,
    });
    return z.NEVER;
  });
}

/** `abandoned-label`: `key` or `key=value`. */
function labelRequirement() {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if (text === '') return undefined;
    const [key, value, extra] = text.split('=');
    if (
      extra === undefined &&
      finalizerName.test(key!) &&
      (value === undefined || /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(value))
    )
      return { key: key!, ...(value !== undefined ? { value } : {}) };
    ctx.addIssue({
      code: 'custom',
      message: `${inputWord(Inputs.abandonedLabel)} is '${raw}'; write a label key or key=value, e.g. preview-abandoned=true`,
    });
    return z.NEVER;
  });
}

function integer(name: InputName, min: number, max: number) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}'; it takes a whole number from ${min} to ${max}`,
      });
      return z.NEVER;
    }
    return value;
  });
}

function boolean(name: InputName) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
    ctx.addIssue({ code: 'custom', message: `${inputWord(name)} is '${raw}'; it takes true or false` });
    return z.NEVER;
  });
}

function oneOf<const T extends readonly [string, ...string[]]>(name: InputName, values: T) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if ((values as readonly string[]).includes(text)) return text as T[number];
    ctx.addIssue({
      code: 'custom',
      message: `${inputWord(name)} is '${raw}'; it takes one of: ${values.join(', ')}`,
    });
    return z.NEVER;
  });
}

/** Splits a multi-line or comma-separated input into trimmed, non-empty items ('#' starts a comment). */
function items(raw: string): string[] {
  return raw
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Names and globs with *, ? and [a-z] classes. No '!' (minimatch would read it as "every
// namespace but this one") and no braces (the input is also split at commas).
const namespaceGlob = /^[-a-z0-9*?[\]]+$/;
const balancedClasses = (p: string) => /^([^[\]]|\[[^[\]]+\])*$/.test(p);
const releaseName = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** `namespaces` and `protect`: namespace names and globs (minimatch), one per line or comma-separated. */
function namespacePatterns(input: typeof Inputs.namespaces | typeof Inputs.protect) {
  return z.string().transform((raw, ctx) => {
    const out = items(raw);
    const bad = out.find((p) => !namespaceGlob.test(p) || !balancedClasses(p));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(input)} has '${bad}', which is neither a namespace name nor a glob; use names like pr-12 or globs like pr-* (*, ? and [a-z]; no '!' or braces)`,
      });
      return z.NEVER;
    }
    return out;
  });
}

function releaseRefs() {
  return z.string().transform((raw, ctx) => {
    const out: ReleaseRef[] = [];
    for (const item of items(raw)) {
      const [ns, name, extra] = item.split('/');
      if (extra !== undefined || !ns || !name || !dnsLabel.test(ns) || !releaseName.test(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('releases')} has '${item}'; write each release as namespace/name, e.g. pr-12/api`,
        });
        return z.NEVER;
      }
      out.push({ namespace: ns, name });
    }
    return out;
  });
}

function orderRef(text: string): OrderRef | undefined {
  const parts = text.split('/');
  if (parts.length === 1 && releaseName.test(parts[0]!)) return { name: parts[0]! };
  if (parts.length === 2 && dnsLabel.test(parts[0]!) && releaseName.test(parts[1]!))
    return { namespace: parts[0]!, name: parts[1]! };
  return undefined;
}

function orderLines() {
  return z.string().transform((raw, ctx) => {
    const out: UserOrdering[] = [];
    for (const line of raw
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter((l) => l !== '')) {
      const m = /^(\S+)\s*->\s*(\S+)$/.exec(line);
      const before = m ? orderRef(m[1]!) : undefined;
      const after = m ? orderRef(m[2]!) : undefined;
      if (!before || !after) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('order')} has the line '${line}'; write one constraint per line as 'app -> operator' (release names, or namespace/name)`,
        });
        return z.NEVER;
      }
      if (before.name === after.name && before.namespace === after.namespace) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('order')} has the line '${line}', which orders a release before itself (a cycle); name two different releases`,
        });
        return z.NEVER;
      }
      out.push({ before, after, line });
    }
    return out;
  });
}

// A qualified name as the API server validates finalizers (apimachinery IsQualifiedName):
// optional DNS-subdomain prefix and '/', then a name of [A-Za-z0-9_.-], alphanumeric at both ends.
const finalizerName =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function finalizerNames() {
  return z.string().transform((raw, ctx) => {
    const out = items(raw);
    const bad = out.find((f) => !finalizerName.test(f) || f.length > 316);
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('force-remove-finalizers')} has '${bad}', which is not a finalizer name; list exact names such as example.com/cleanup (no globs)`,
      });
      return z.NEVER;
    }
    return [...new Set(out)];
  });
}

const severities = ['error', 'warning', 'info'] as const;

/** `fail-on`: `never`, a severity (findings at or above it fail), finding codes, or both. */
function failOn() {
  return z.string().transform((raw, ctx) => {
    let severity: Severity | undefined;
    const codes: FindingCode[] = [];
    const all = items(raw);
    if (all.includes('never') && all.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('fail-on')} is '${all.join(', ')}': 'never' means nothing fails the step, so it cannot be combined with a severity or codes; keep one`,
      });
      return z.NEVER;
    }
    for (const item of all) {
      if (item === 'never') continue;
      if ((severities as readonly string[]).includes(item)) {
        severity = item as Severity;
        continue;
      }
      if (!Object.prototype.hasOwnProperty.call(findingCodes, item)) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('fail-on')} has '${item}', which is neither a severity (error, warning, info), 'never', nor a finding code (see docs/finding-codes.md)`,
        });
        return z.NEVER;
      }
      codes.push(item as FindingCode);
    }
    return { ...(severity ? { severity } : {}), codes };
  });
}

const ignoreKeys = ['code', 'kind', 'namespace', 'name', 'selector'];

/** `ignore`: a YAML list of mappings with code, kind, namespace, name (globs) and selector. */
function ignoreEntries() {
  return z.string().transform((raw, ctx) => {
    if (raw.trim() === '') return [] as Exclusion[];
    const fail = (why: string) => {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('ignore')} ${why}; write a YAML list such as '- {code: StuckFinalizer, namespace: "pr-*"}' (keys: ${ignoreKeys.join(', ')})`,
      });
      return z.NEVER;
    };
    let doc: unknown;
    try {
      doc = parseYaml(raw);
    } catch (error) {
      return fail(`is not valid YAML (${(error as Error).message.split('\n')[0]})`);
    }
    if (!Array.isArray(doc)) return fail('is not a YAML list');
    const out: Exclusion[] = [];
    for (const [i, entry] of doc.entries()) {
      if (!entry || typeof entry !== 'object' || Array.isArray(entry))
        return fail(`entry ${i + 1} is not a mapping`);
      const e = entry as Record<string, unknown>;
      const unknown = Object.keys(e).find((k) => !ignoreKeys.includes(k));
      if (unknown) return fail(`entry ${i + 1} has the unknown key '${unknown}'`);
      if (Object.keys(e).length === 0) return fail(`entry ${i + 1} is empty (it would hide every finding)`);
      const bad = Object.entries(e).find(([, v]) => typeof v !== 'string' || v.trim() === '');
      if (bad) return fail(`entry ${i + 1} has '${bad[0]}' that is not a non-empty string`);
      if (
        typeof e.code === 'string' &&
        !Object.keys(findingCodes).some((c) => minimatch(c, String(e.code)))
      ) {
        return fail(
          `entry ${i + 1} has code '${e.code}', which matches no finding code (docs/finding-codes.md lists them)`,
        );
      }
      let selector;
      if (typeof e.selector === 'string') {
        try {
          selector = parseLabelSelector(e.selector);
        } catch (error) {
          return fail(`entry ${i + 1} has selector '${e.selector}': ${(error as Error).message}`);
        }
      }
      out.push({
        ...(e.code ? { code: String(e.code) } : {}),
        ...(e.kind ? { kind: String(e.kind) } : {}),
        ...(e.namespace ? { namespace: String(e.namespace) } : {}),
        ...(e.name ? { name: String(e.name) } : {}),
        ...(selector ? { selector } : {}),
        text: JSON.stringify(e),
      });
    }
    return out;
  });
}

function labelSelector() {
  return z.string().transform((raw, ctx) => {
    try {
      return { text: raw.trim(), requirements: parseLabelSelector(raw) };
    } catch (error) {
      if (!(error instanceof LabelSelectorError)) throw error;
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('selector')} is '${raw}': ${error.message}; write a label selector like env=pr-12,team in (a,b)`,
      });
      return z.NEVER;
    }
  });
}

const schema = z
  .object({
    [Inputs.mode]: oneOf(Inputs.mode, ['teardown', 'plan', 'scan', 'inventory', 'merge', 'reap']),
    [Inputs.reports]: z.string().transform((raw) => items(raw)),
    [Inputs.environments]: environmentPatterns(),
    [Inputs.environmentLabel]: labelKey(Inputs.environmentLabel),
    [Inputs.olderThan]: optionalDuration(Inputs.olderThan),
    [Inputs.prState]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (text === '' || text === 'closed') return text === 'closed';
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(Inputs.prState)} is '${raw}'; it takes closed (or nothing)`,
      });
      return z.NEVER;
    }),
    [Inputs.abandonedLabel]: labelRequirement(),
    [Inputs.keepLabel]: z.string().transform((s) => s.trim()),
    [Inputs.maxEnvironments]: integer(Inputs.maxEnvironments, 1, 1000),
    [Inputs.reapConcurrency]: integer(Inputs.reapConcurrency, 1, 32),
    [Inputs.scanScope]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (text === '' || text === 'environment' || text === 'cluster') return text;
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('scan-scope')} is '${raw}'; it takes environment or cluster`,
      });
      return z.NEVER;
    }),
    [Inputs.failOn]: failOn(),
    [Inputs.failOnNew]: boolean(Inputs.failOnNew),
    [Inputs.baseline]: z.string().transform((s) => s.trim()),
    [Inputs.stuckAfter]: duration(Inputs.stuckAfter, false),
    [Inputs.ignore]: ignoreEntries(),
    [Inputs.remediate]: oneOf(Inputs.remediate, ['none', 'safe']),
    [Inputs.etcdEndpoint]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (text === '') return '';
      if (!/^https?:\/\/[^/\s]+\/?$/.test(text)) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('etcd-endpoint')} is '${raw}'; write one etcd client URL such as http://127.0.0.1:2379 or https://10.0.0.5:2379`,
        });
        return z.NEVER;
      }
      return text;
    }),
    [Inputs.etcdTls]: z.string().transform((raw, ctx) => {
      const parts = items(raw);
      if (parts.length === 0) return undefined;
      if (parts.length !== 3) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('etcd-tls')} is '${raw}'; give three PEM file paths: CA, client certificate, client key (comma-separated)`,
        });
        return z.NEVER;
      }
      return { ca: parts[0]!, cert: parts[1]!, key: parts[2]! };
    }),
    [Inputs.forceRemoveFinalizers]: finalizerNames(),
    [Inputs.namespaces]: namespacePatterns(Inputs.namespaces),
    [Inputs.protect]: namespacePatterns(Inputs.protect),
    [Inputs.maxNamespaces]: integer(Inputs.maxNamespaces, 1, 100000),
    [Inputs.selector]: labelSelector(),
    [Inputs.releases]: releaseRefs(),
    [Inputs.deleteNamespaces]: boolean(Inputs.deleteNamespaces),
    [Inputs.dryRun]: boolean(Inputs.dryRun),
    [Inputs.order]: orderLines(),
    [Inputs.timeout]: duration(Inputs.timeout),
    [Inputs.stageTimeout]: duration(Inputs.stageTimeout),
    [Inputs.helm]: z.string().transform((s) => s.trim()),
    [Inputs.uninstallConcurrency]: integer(Inputs.uninstallConcurrency, 1, 32),
    [Inputs.uninstallMode]: oneOf(Inputs.uninstallMode, ['auto', 'helm']),
    [Inputs.cluster]: oneOf(Inputs.cluster, ['existing', 'kind']),
    [Inputs.kubeconfig]: z.string(),
    [Inputs.context]: z.string().transform((s) => s.trim()),
    [Inputs.clusterName]: z.string().transform((s) => s.trim()),
    [Inputs.kindClusterName]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (!kindClusterName.test(text) || text.length > 50) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('kind-cluster-name')} is '${raw}'; use lower-case letters, digits and '-' (at most 50)`,
        });
        return z.NEVER;
      }
      return text;
    }),
    [Inputs.kindConfig]: z.string().transform((s) => s.trim()),
    [Inputs.kindNodeImage]: z.string().transform((s) => s.trim()),
    [Inputs.kindWait]: duration(Inputs.kindWait),
    [Inputs.kindKeep]: boolean(Inputs.kindKeep),
    [Inputs.requestTimeout]: duration(Inputs.requestTimeout),
    [Inputs.listConcurrency]: integer(Inputs.listConcurrency, 1, 64),
    [Inputs.pageSize]: integer(Inputs.pageSize, 1, 10000),
    [Inputs.reportPath]: z.string().transform((s) => s.trim()),
    [Inputs.prComment]: boolean(Inputs.prComment),
    [Inputs.checkRun]: boolean(Inputs.checkRun),
    [Inputs.publishServer]: boolean(Inputs.publishServer),
    [Inputs.githubToken]: z.string().transform((s) => s.trim()),
  })
  .superRefine((v, ctx) => {
    // An empty github-token with pr-comment/check-run is not refused here: publishing is a side
    // channel (report/github/publish.ts warns and records it), and the sweep runs.
    if (v['etcd-tls'] && !v['etcd-endpoint'].startsWith('https://')) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.etcdTls],
        message: `${inputWord(Inputs.etcdTls)} needs an https ${inputRef(Inputs.etcdEndpoint)}; set ${inputRef(Inputs.etcdEndpoint)} to https://... or drop ${inputRef(Inputs.etcdTls)}`,
      });
    }
    if (v['force-remove-finalizers'].length > 0 && v.remediate !== 'safe') {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.forceRemoveFinalizers],
        message: `${inputWord(Inputs.forceRemoveFinalizers)} only acts with ${inputSet(Inputs.remediate, 'safe')}; set ${inputSet(Inputs.remediate, 'safe')} or drop ${inputRef(Inputs.forceRemoveFinalizers)}`,
      });
    }
    if (v.mode === 'merge' && v.reports.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.reports],
        message: "mode 'merge' needs 'reports': globs of the report files to merge, e.g. reports/**/*.json",
      });
    }
    if (v.mode === 'reap') reapIssues(v, ctx);
    if (
      v.mode !== 'inventory' &&
      v.mode !== 'merge' &&
      v.mode !== 'reap' &&
      !(v.mode === 'scan' && v['scan-scope'] !== 'environment') &&
      v.namespaces.length === 0 &&
      v.selector.requirements.length === 0 &&
      v.releases.length === 0
    ) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.namespaces],
        message: `${byFace(`mode '${v.mode}'`, `kube-sweep ${v.mode}`)} needs a scope and none was given: set ${inputRef(Inputs.namespaces)} (names or globs), ${inputRef(Inputs.selector)} (a namespace label selector) or ${inputRef(Inputs.releases)} (namespace/name lines)`,
      });
    }
    if (v.cluster === 'kind' && v.kubeconfig.trim() !== '') {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.kubeconfig],
        message: `${byFace('inputs ', '')}${inputSet(Inputs.cluster, 'kind')} and ${inputRef(Inputs.kubeconfig)} exclude each other: kind writes its own kubeconfig; drop one`,
      });
    }
    if (v.cluster !== 'kind' && (v['kind-config'] || v['kind-node-image'])) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.kindConfig],
        message: `${byFace('inputs ', '')}${inputRef(Inputs.kindConfig)} and ${inputRef(Inputs.kindNodeImage)} only apply with ${inputSet(Inputs.cluster, 'kind')}`,
      });
    }
  });

/** The cross-field rules of `mode: reap`: how environments are found, and what abandons one. */
function reapIssues(
  v: {
    readonly [Inputs.environments]: string[];
    readonly [Inputs.environmentLabel]: string;
    readonly [Inputs.olderThan]?: number;
    readonly [Inputs.prState]: boolean;
    readonly [Inputs.abandonedLabel]?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  if (v.environments.length === 0 && v['environment-label'] === '')
    ctx.addIssue({
      code: 'custom',
      path: [Inputs.environments],
      message: `${inputSet(Inputs.mode, 'reap')} needs ${inputRef(Inputs.environments)} (namespace patterns with one {id}, e.g. pr-{id}-*) or ${inputRef(Inputs.environmentLabel)} (a namespace label whose value is the id)`,
    });
  if (v['older-than'] === undefined && !v['pr-state'] && v['abandoned-label'] === undefined)
    ctx.addIssue({
      code: 'custom',
      path: [Inputs.olderThan],
      message: `${inputSet(Inputs.mode, 'reap')} needs a condition that makes an environment abandoned: ${inputRef(Inputs.olderThan)} (a duration), ${inputSet(Inputs.prState, 'closed')} or ${inputRef(Inputs.abandonedLabel)}`,
    });
}

/** The reap settings from the parsed inputs. */
function reapSettingsOf(v: z.infer<typeof schema>): ReapSettings {
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
  const parsed = schema.safeParse(raw);
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
    scanScope: (v['scan-scope'] || (v.mode === 'scan' ? 'cluster' : 'environment')) as Settings['scanScope'],
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
