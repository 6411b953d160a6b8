import { inputRef, Inputs } from '../words/input-words.js';
import { nameProtectionOnly, protectionReason, type NamespaceProtection } from './protected-namespaces.js';
import { hasNoLiteral } from './scope.js';
import { dns1123LabelFormat } from '../kube/object-names.js';

/*
 * `mode: reap`: which namespaces form which environment, and which environments are abandoned.
 * Pure: the cluster's namespaces, the pull requests' states and the clock come in as data.
 */

/** How environments are found: `environments` patterns (`pr-{id}-*`) and/or `environment-label`. */
export interface EnvironmentSpec {
  /** Namespace patterns with one `{id}` each; `*` and `?` as in globs. */
  readonly patterns: readonly string[];
  /** A namespace label key whose value is the environment's id; '' for none. */
  readonly label: string;
}

/** What reap reads of a namespace. */
export interface NamespaceFacts {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** RFC 3339. */
  readonly creationTimestamp: string;
}

/** A group of namespaces sharing an id. */
export interface Environment {
  readonly id: string;
  /** Sorted. */
  readonly namespaces: readonly NamespaceFacts[];
}

/** The `{id}` of a pattern: a DNS-1123 label, captured shortest first (a lazy `*`). */
const idPart = `(${dns1123LabelFormat.replace(']*[', ']*?[')})`;

/**
 * Pure: the regular expression of an `environments` pattern: `{id}` captures the id (lowercase
 * letters, digits and inner dashes, shortest first), `*` any run of name characters, `?` one.
 * @throws Error when the pattern has not exactly one `{id}`, other characters than a
 *   namespace name's, `*`, `?` and `{id}`, or no literal character outside `{id}` (scope.ts
 *   `hasNoLiteral`: `{id}`, `*{id}`).
 */
export function environmentPattern(pattern: string): RegExp {
  const parts = pattern.split('{id}');
  if (parts.length !== 2)
    throw new Error(`'${pattern}' has ${parts.length - 1} {id}; write exactly one, e.g. pr-{id}-*`);
  const bad = parts.find((p) => !/^[-a-z0-9*?]*$/.test(p));
  if (bad !== undefined)
    throw new Error(`'${pattern}' has characters other than a-z, 0-9, '-', '*', '?' and {id}`);
  // `{id}`, `*{id}`, `?{id}` (`${{ vars.PREFIX }}{id}` with an empty variable) make every
  // namespace of the cluster an environment, as a `namespaces` pattern of `*` would (scope.ts).
  if (hasNoLiteral(parts.join('')))
    throw new Error(
      `'${pattern}' has no literal character besides {id} (only *, ?) and so makes any namespace an environment`,
    );
  const glob = (p: string) => p.replace(/\*/g, '[-a-z0-9]*').replace(/\?/g, '[-a-z0-9]');
  return new RegExp(`^${glob(parts[0]!)}${idPart}${glob(parts[1]!)}$`);
}

/**
 * Pure: the environments among `namespaces`: by the first pattern that matches a namespace's
 * name, else by its `spec.label` value. Sorted by id (numbers in numeric order).
 */
export function groupEnvironments(
  spec: EnvironmentSpec,
  namespaces: readonly NamespaceFacts[],
): Environment[] {
  const regexps = spec.patterns.map(environmentPattern);
  const groups = new Map<string, NamespaceFacts[]>();
  for (const ns of namespaces) {
    const id =
      regexps.map((r) => r.exec(ns.name)?.[1]).find((x) => x !== undefined) ??
      (spec.label ? ns.labels[spec.label] : undefined);
    if (id === undefined || id === '') continue;
    groups.set(id, [...(groups.get(id) ?? []), ns]);
  }
  return [...groups]
    .map(([id, list]) => ({ id, namespaces: [...list].sort((a, b) => a.name.localeCompare(b.name)) }))
    .sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
}

/** What makes an environment abandoned, and what keeps one. */
export interface ReapPolicy {
  /** `older-than` in ms: its namespaces were all created longer ago (or expired by annotation). */
  readonly olderThanMs?: number;
  /** `pr-state: closed`: its pull request (the id) is closed or merged. */
  readonly prClosed: boolean;
  /** `abandoned-label`: a namespace carries this label (`key` or `key=value`). */
  readonly abandonedLabel?: { readonly key: string; readonly value?: string };
  /** `keep-label`: a label on its pull request that keeps it. */
  readonly keepLabel?: string;
}

/** A pull request as reap sees it; `unknown` when it could not be read (never reaped on that). */
export interface PullRequestFacts {
  readonly state: 'open' | 'closed' | 'unknown';
  readonly merged?: boolean;
  readonly labels: readonly string[];
  /** Why the state is unknown. */
  readonly problem?: string;
}

/** The judgement on one environment: abandoned (with every reason) or kept (with why). */
export interface Judgement {
  readonly abandoned: boolean;
  readonly reasons: readonly string[];
}

/** The label that keeps an environment, whatever else holds. */
export const keepLabel = 'kube-sweep.io/keep';
/** kube-sweep's own expiry annotation (RFC 3339). */
export const expiresAtAnnotation = 'kube-sweep.io/expires-at';

const ttlUnits: Record<string, number> = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };

/**
 * Pure: when a namespace expires by annotation, in ms since the epoch; `Infinity` for kube-janitor's
 * `forever`; undefined without an expiry annotation; `{ problem }` for one that cannot be read.
 * kube-janitor's `janitor/ttl` (`<n>[smhdw]`, from creation) and `janitor/expires` (UTC
 * `YYYY-MM-DD`, `…THH`, `…THH:MM` or `…THH:MM:SSZ`), and `kube-sweep.io/expires-at` (RFC 3339).
 * With several, the earliest.
 */
export function annotatedExpiry(ns: NamespaceFacts): number | undefined | { problem: string } {
  const found: number[] = [];
  const ttl = ns.annotations['janitor/ttl'];
  if (ttl !== undefined) {
    const m = /^(\d+)([smhdw])$/.exec(ttl.trim());
    if (ttl.trim() === 'forever' || ttl.trim() === 'unlimited') found.push(Infinity);
    else if (!m) return { problem: `janitor/ttl '${ttl}' is not a TTL like 24h or 7d` };
    else found.push(Date.parse(ns.creationTimestamp) + Number(m[1]) * ttlUnits[m[2]!]!);
  }
  for (const key of ['janitor/expires', expiresAtAnnotation]) {
    const raw = ns.annotations[key];
    if (raw === undefined) continue;
    const when = key === 'janitor/expires' ? janitorTime(raw.trim()) : rfc3339Time(raw.trim());
    if (Number.isNaN(when)) return { problem: `${key} '${raw}' is not a time kube-sweep reads` };
    found.push(when);
  }
  return found.length ? Math.min(...found) : undefined;
}

/** kube-janitor's `janitor/expires` forms (UTC), in ms; NaN for anything else. */
function janitorTime(text: string): number {
  const forms: [RegExp, string][] = [
    [/^\d{4}-\d\d-\d\d$/, 'T00:00:00Z'],
    [/^\d{4}-\d\d-\d\dT\d\d$/, ':00:00Z'],
    [/^\d{4}-\d\d-\d\dT\d\d:\d\d$/, ':00Z'],
    [/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, ''],
  ];
  const form = forms.find(([r]) => r.test(text));
  return form ? Date.parse(text + form[1]) : NaN;
}

/** An RFC 3339 time with a zone, in ms; NaN for anything else. */
function rfc3339Time(text: string): number {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text) ? Date.parse(text) : NaN;
}

/** Pure: `1d 3h`-style age (`2h 5m`, `12m`, `40s` under a minute). */
export function ageText(ms: number): string {
  const h = Math.floor(ms / 3600e3);
  if (h >= 24) return `${Math.floor(h / 24)}d ${h % 24}h`;
  if (h >= 1) return `${h}h ${Math.floor((ms % 3600e3) / 60e3)}m`;
  return ms >= 60e3 ? `${Math.floor(ms / 60e3)}m` : `${Math.max(0, Math.floor(ms / 1000))}s`;
}

/**
 * Pure: whether every namespace is past its deadline: its expiry annotation (`annotatedExpiry`),
 * else its creation + `older-than`. Without `older-than` the annotations decide alone, as
 * kube-janitor's do: an environment expires when every namespace carries one that is past, and a
 * namespace without one has no deadline. An annotation that cannot be read keeps the environment.
 */
function expiryReason(
  env: Environment,
  policy: ReapPolicy,
  now: number,
): string | { kept: string } | undefined {
  const deadlines: number[] = [];
  let unbounded = false;
  for (const ns of env.namespaces) {
    const annotated = annotatedExpiry(ns);
    if (typeof annotated === 'object')
      return { kept: `${ns.name}: ${annotated.problem} (never reaped on an unreadable expiry)` };
    if (annotated === undefined && policy.olderThanMs === undefined) unbounded = true;
    else deadlines.push(annotated ?? Date.parse(ns.creationTimestamp) + (policy.olderThanMs ?? 0));
  }
  if (unbounded || deadlines.length === 0) return undefined;
  const last = Math.max(...deadlines);
  if (!(last <= now)) return undefined;
  const annotatedAny = env.namespaces.some((ns) => annotatedExpiry(ns) !== undefined);
  const newest = Math.max(...env.namespaces.map((ns) => Date.parse(ns.creationTimestamp)));
  if (policy.olderThanMs === undefined) return `expired (${new Date(last).toISOString()}, by annotation)`;
  return annotatedAny
    ? `expired (${new Date(last).toISOString()}, by annotation or ${inputRef(Inputs.olderThan)})`
    : `older than ${ageText(policy.olderThanMs)} (newest namespace created ${ageText(now - newest)} ago)`;
}

/**
 * Pure: whether an environment is abandoned, and why, or why it is kept. Kept first, whatever
 * else holds: a protected namespace (protected-namespaces.ts: by name, by the `protect` input's
 * globs or by the label kube-sweep.io/protected=true, as `protection` says), a namespace labelled
 * `kube-sweep.io/keep=true`, a pull request carrying `keep-label`, an expiry annotation that
 * cannot be read. Then abandoned when any condition the policy names holds: expired by age or
 * annotation, its pull request closed (`pr` unknown never counts), or a namespace carrying
 * `abandoned-label`.
 */
export function judgeEnvironment(
  env: Environment,
  policy: ReapPolicy,
  now: number,
  pr?: PullRequestFacts,
  protection: NamespaceProtection = nameProtectionOnly,
): Judgement {
  const kept = (reason: string): Judgement => ({ abandoned: false, reasons: [reason] });
  for (const ns of env.namespaces) {
    const why = protectionReason(ns.name, protection);
    if (why) return kept(`protected: namespace ${ns.name} is never deleted (${why})`);
  }
  const labelled = env.namespaces.find((ns) => ns.labels[keepLabel] === 'true');
  if (labelled) return kept(`${labelled.name} is labelled ${keepLabel}=true`);
  if (policy.keepLabel && pr?.labels.includes(policy.keepLabel))
    return kept(`pull request #${env.id} carries the label '${policy.keepLabel}'`);
  const reasons: string[] = [];
  const expiry = expiryReason(env, policy, now);
  if (typeof expiry === 'object') return kept(expiry.kept);
  if (expiry) reasons.push(expiry);
  if (policy.prClosed && pr?.state === 'closed')
    reasons.push(`pull request #${env.id} is ${pr.merged ? 'merged' : 'closed'}`);
  const l = policy.abandonedLabel;
  const marked =
    l &&
    env.namespaces.find(
      (ns) => ns.labels[l.key] !== undefined && (l.value === undefined || ns.labels[l.key] === l.value),
    );
  if (marked && l)
    reasons.push(`${marked.name} is labelled ${l.key}${l.value === undefined ? '' : `=${l.value}`}`);
  if (reasons.length) return { abandoned: true, reasons };
  const annotated = env.namespaces.some((ns) => annotatedExpiry(ns) !== undefined);
  const why = [
    ...(policy.olderThanMs !== undefined
      ? [`not older than ${ageText(policy.olderThanMs)}`]
      : annotated
        ? ['no expiry annotation past on every namespace']
        : []),
    ...(policy.prClosed
      ? [
          pr?.state === 'unknown'
            ? `pull request #${env.id} unknown (${pr.problem ?? 'not read'})`
            : `pull request #${env.id} open`,
        ]
      : []),
    ...(l ? [`no namespace labelled ${l.key}${l.value === undefined ? '' : `=${l.value}`}`] : []),
  ];
  return kept(`not abandoned: ${why.length ? why.join(', ') : 'no expiry annotation on its namespaces'}`);
}
