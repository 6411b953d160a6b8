import { minimatch } from 'minimatch';
import { matchesLabels, type LabelRequirement } from './label-selector.js';
import { isProtectedNamespace } from './protected-namespaces.js';

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
}

/** The environment's scope on this cluster. */
export interface ResolvedScope {
  /** Existing namespaces the patterns or the selector match, protected ones excluded; sorted. */
  readonly namespaces: readonly string[];
  /** Protected namespaces (kube-system, …) that a pattern or the selector matched: never deleted. */
  readonly protectedMatched: readonly string[];
  /** Patterns that matched no namespace (worth a warning: a typo scopes nothing). */
  readonly unmatchedPatterns: readonly string[];
}

/**
 * Pure: which existing namespaces the inputs name. A namespace is in scope when a name/glob
 * matches it or, when a selector is given, its labels match the selector.
 */
export function resolveScope(
  spec: ScopeSpec,
  namespaces: readonly { readonly name: string; readonly labels?: Readonly<Record<string, string>> }[],
): ResolvedScope {
  const chosen = new Set<string>();
  const matchedPatterns = new Set<string>();
  for (const ns of namespaces) {
    for (const pattern of spec.namespacePatterns) {
      if (minimatch(ns.name, pattern)) {
        chosen.add(ns.name);
        matchedPatterns.add(pattern);
      }
    }
    if (spec.selector.length > 0 && matchesLabels(spec.selector, ns.labels)) chosen.add(ns.name);
  }
  const all = [...chosen].sort();
  return {
    namespaces: all.filter((n) => !isProtectedNamespace(n)),
    protectedMatched: all.filter((n) => isProtectedNamespace(n)),
    unmatchedPatterns: spec.namespacePatterns.filter((p) => !matchedPatterns.has(p)),
  };
}
