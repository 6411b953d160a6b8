import { minimatch } from 'minimatch';
import { inputRef, Inputs, inputWord } from '../words/input-words.js';
import { matchesLabels, type LabelRequirement } from './label-selector.js';
import { isProtected, namespaceProtection, type NamespaceProtection } from './protected-namespaces.js';

/** A release named by the `releases` input: `namespace/name`. */
export interface ReleaseRef {
  readonly namespace: string;
  readonly name: string;
}

export const releaseKey = (r: ReleaseRef): string => `${r.namespace}/${r.name}`;

/** What the inputs put in scope, before looking at the cluster. */
export interface ScopeSpec {
  /** Names or globs (minimatch) from the `namespaces` input. */
  readonly namespacePatterns: readonly string[];
  /** The parsed `selector` input (namespace labels); empty means no selector was given. */
  readonly selector: readonly LabelRequirement[];
  readonly selectorText: string;
  /** The `releases` input; empty means every release in the scoped namespaces. */
  readonly releases: readonly ReleaseRef[];
  /** Globs (minimatch) of the `protect` input: namespaces never touched, on top of the built-in ones. */
  readonly protect?: readonly string[];
  /**
   * The `require-match` input: every `namespaces` pattern must match a namespace and the
   * selector must select one (`scopeMatchRefusals`), else the run stops before any change.
   */
  readonly requireMatch?: boolean;
}

/** A namespace as scope resolution sees it: its name and labels. */
export interface NamespaceLabels {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** The environment's scope on this cluster. */
export interface ResolvedScope {
  /** Existing namespaces the patterns and the selector select, protected ones excluded; sorted. */
  readonly namespaces: readonly string[];
  /** Protected namespaces (kube-system, kube-*, …) that the inputs selected: never deleted. */
  readonly protectedMatched: readonly string[];
  /** Patterns that matched no namespace (worth a warning: a typo scopes nothing). */
  readonly unmatchedPatterns: readonly string[];
  /**
   * What protects namespaces on this cluster (protected-namespaces.ts): every later step checks
   * it. Absent in scopes built by hand (tests): protection by name only.
   */
  readonly protection?: NamespaceProtection;
}

/**
 * Pure: which existing namespaces the inputs name. With `namespaces` patterns only, a namespace
 * whose name a pattern matches; with a `selector` only, one whose labels match it; with both, a
 * namespace must match a pattern AND the selector (the selector narrows). Protected namespaces
 * (`isProtected`: control plane, kube-*, the `protect` input, the kube-sweep.io/protected=true
 * label) are set apart, never in `namespaces`.
 */
export function resolveScope(spec: ScopeSpec, namespaces: readonly NamespaceLabels[]): ResolvedScope {
  const chosen: string[] = [];
  const matchedPatterns = new Set<string>();
  const hasPatterns = spec.namespacePatterns.length > 0;
  const hasSelector = spec.selector.length > 0;
  for (const ns of namespaces) {
    const matching = spec.namespacePatterns.filter((p) => minimatch(ns.name, p));
    matching.forEach((p) => matchedPatterns.add(p));
    const byName = !hasPatterns || matching.length > 0;
    const byLabels = !hasSelector || matchesLabels(spec.selector, ns.labels);
    if ((hasPatterns || hasSelector) && byName && byLabels) chosen.push(ns.name);
  }
  const all = [...new Set(chosen)].sort();
  const protection = namespaceProtection(spec.protect ?? [], namespaces);
  return {
    namespaces: all.filter((n) => !isProtected(n, protection)),
    protectedMatched: all.filter((n) => isProtected(n, protection)),
    unmatchedPatterns: spec.namespacePatterns.filter((p) => !matchedPatterns.has(p)),
    protection,
  };
}

/**
 * Pure: whether a `namespaces` pattern has no literal character (`*`, `?*`, `[a-z]*`, `**`):
 * it then matches any namespace name, which is never what a teardown means (an unset variable
 * in `pr-${PREFIX}*`-style patterns is the usual way to get one).
 */
export function hasNoLiteral(pattern: string): boolean {
  return pattern.replace(/\[[^\]]*\]/g, '').replace(/[*?]/g, '') === '';
}

/** Pure: whether every requirement of a selector is negative (`!key`, `key!=value`, `key notin (…)`). */
export function onlyNegative(selector: readonly LabelRequirement[]): boolean {
  return selector.length > 0 && selector.every((r) => r.op === 'not-exists' || r.op === 'not-in');
}

/**
 * Pure: whether some positive requirement of `selector` (`key`, `key=value`, `key in (…)`) sets
 * namespaces apart, i.e. does not match every namespace of `allNamespaces` on its own. A selector
 * whose positive requirements are all vacuous (`kubernetes.io/metadata.name`, which the API server
 * sets on every namespace) chooses by its negative ones only: `kubernetes.io/metadata.name,!legacy`
 * is `!legacy`.
 */
export function narrowsPositively(
  selector: readonly LabelRequirement[],
  allNamespaces: readonly NamespaceLabels[],
): boolean {
  return selector
    .filter((r) => r.op === 'exists' || r.op === 'in')
    .some((r) => allNamespaces.some((n) => !matchesLabels([r], n.labels)));
}

/** How many names a refusal lists before `…`. */
const namesShown = 10;

/**
 * Pure: why a teardown of this scope must not run at all, so that a scope cannot surprise
 * (issue 21): a `namespaces` pattern with no literal character; a `selector` alone (no
 * patterns) that is only negative, that matches every namespace of the cluster
 * (`kubernetes.io/metadata.name`, which the API server sets on every namespace), or whose
 * positive requirements each match every namespace (`narrowsPositively`); more than
 * `maxNamespaces` namespaces in scope (the count, the input to raise and the first names).
 * `allNamespaces`: every namespace of the cluster, protected ones included. Empty: no refusal.
 * `mode: plan` reports the same refusals (the teardown would refuse); `mode: scan` never asks.
 */
export function scopeRefusals(
  spec: ScopeSpec,
  scope: ResolvedScope,
  allNamespaces: readonly NamespaceLabels[],
  maxNamespaces: number,
): string[] {
  const out = spec.namespacePatterns
    .filter(hasNoLiteral)
    .map(
      (p) =>
        `${inputWord(Inputs.namespaces)} has '${p}', which has no literal character (only *, ? and [...]) and so can match any namespace; ` +
        "name the environment's namespaces (pr-12, pr-12-*). An empty variable in a pattern gives this too",
    );
  if (spec.namespacePatterns.length === 0 && spec.selector.length > 0) {
    const matched = allNamespaces.filter((n) => matchesLabels(spec.selector, n.labels));
    if (onlyNegative(spec.selector))
      out.push(
        `${inputWord(Inputs.selector)} is '${spec.selectorText}', which is only negative (!key, key!=value, notin) and so selects ` +
          `every namespace without those labels; give ${inputRef(Inputs.namespaces)} patterns too (the selector then narrows them) or a positive selector (env=pr-12)`,
      );
    else if (allNamespaces.length > 0 && matched.length === allNamespaces.length)
      out.push(
        `${inputWord(Inputs.selector)} is '${spec.selectorText}', which matches every namespace of the cluster (${allNamespaces.length}); ` +
          `give ${inputRef(Inputs.namespaces)} patterns too (the selector then narrows them) or a selector that names the environment (env=pr-12)`,
      );
    else if (allNamespaces.length > 0 && !narrowsPositively(spec.selector, allNamespaces))
      out.push(
        `${inputWord(Inputs.selector)} is '${spec.selectorText}': each of its positive requirements matches every namespace of the cluster ` +
          `(${allNamespaces.length}), so only its negative ones choose, which selects every namespace without those labels; ` +
          `give ${inputRef(Inputs.namespaces)} patterns too (the selector then narrows them) or a selector that names the environment (env=pr-12)`,
      );
  }
  out.push(...scopeMatchRefusals(spec, scope));
  if (scope.namespaces.length > maxNamespaces) {
    const first = scope.namespaces.slice(0, namesShown).join(', ');
    out.push(
      `the scope has ${scope.namespaces.length} namespaces, more than ${inputWord(Inputs.maxNamespaces)} allows (${maxNamespaces}): ` +
        `${first}${scope.namespaces.length > namesShown ? ', …' : ''}; narrow ${inputRef(Inputs.namespaces)} or ${inputRef(Inputs.selector)}, or raise ${inputRef(Inputs.maxNamespaces)} if all of them are meant`,
    );
  }
  return out;
}

/**
 * Pure: with `require-match` (`spec.requireMatch`), why the scope fails to match: each
 * `namespaces` pattern that matched no namespace, and a `selector` (with or without patterns)
 * under which nothing is in scope. Protected namespaces count as matched (they are refused on
 * their own). Empty without `require-match`, or when everything matched. Without it a scope
 * that matches nothing is a warning and a headline (`scopeMatchedNothing`), not a failure.
 */
export function scopeMatchRefusals(spec: ScopeSpec, scope: ResolvedScope): string[] {
  if (!spec.requireMatch) return [];
  const why = `${inputRef(Inputs.requireMatch)} is set`;
  const fix = `check the names (kubectl get namespaces), or drop ${inputRef(Inputs.requireMatch)} if an environment that is already gone may pass`;
  const out = scope.unmatchedPatterns.map(
    (p) => `${inputWord(Inputs.namespaces)} has '${p}', which matched no namespace, and ${why}; ${fix}`,
  );
  const nothing = scope.namespaces.length === 0 && scope.protectedMatched.length === 0;
  if (nothing && spec.selector.length > 0 && out.length === 0)
    out.push(
      `${inputWord(Inputs.selector)} is '${spec.selectorText}', which${spec.namespacePatterns.length ? ` with ${inputRef(Inputs.namespaces)}` : ''} matched no namespace, and ${why}; ${fix}`,
    );
  return out;
}
