import { minimatch } from 'minimatch';
import { Inputs, inputWord } from '../words/input-words.js';

/**
 * Namespaces kube-sweep never deletes, whatever the inputs say: the ones the control plane
 * creates and depends on (kube-system, kube-public, kube-node-lease, default).
 */
export const protectedNamespaces: ReadonlySet<string> = new Set([
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'default',
]);

/** The label that protects a namespace (value `true`): `kube-sweep.io/protected=true`. */
export const protectedLabel = 'kube-sweep.io/protected';

/**
 * Pure: whether a namespace is protected by its name alone, on every cluster: one of
 * `protectedNamespaces`, or any `kube-*` (kube-flannel, kube-prometheus, …: infrastructure by
 * convention). The `protect` input and the label add more (`protectionReason`).
 */
export function isProtectedNamespace(name: string): boolean {
  return protectedNamespaces.has(name) || name.startsWith('kube-');
}

/** What protects namespaces on one cluster beyond their names: the `protect` input and the label. */
export interface NamespaceProtection {
  /** Globs of the `protect` input (minimatch, as the `namespaces` input matches). */
  readonly patterns: readonly string[];
  /** Existing namespaces labelled `kube-sweep.io/protected=true`, sorted. */
  readonly labelled: readonly string[];
}

/** Protection by name only (no `protect` input, no labelled namespace known). */
export const nameProtectionOnly: NamespaceProtection = { patterns: [], labelled: [] };

/**
 * Pure: the protection on a cluster from the `protect` globs and the namespaces' labels
 * (`kube-sweep.io/protected=true`, exactly `true`).
 */
export function namespaceProtection(
  patterns: readonly string[],
  namespaces: readonly { readonly name: string; readonly labels?: Readonly<Record<string, string>> }[],
): NamespaceProtection {
  return {
    patterns,
    labelled: namespaces
      .filter((n) => n.labels?.[protectedLabel] === 'true')
      .map((n) => n.name)
      .sort(),
  };
}

/**
 * Pure: why `name` is protected (for messages), or undefined when it is not: a control-plane
 * namespace, a `kube-*` one, one the `protect` input matches, or one labelled
 * `kube-sweep.io/protected=true`.
 */
export function protectionReason(name: string, protection: NamespaceProtection): string | undefined {
  if (protectedNamespaces.has(name)) return 'a control-plane namespace';
  if (name.startsWith('kube-')) return 'every kube-* namespace is protected';
  const pattern = protection.patterns.find((p) => minimatch(name, p));
  if (pattern !== undefined) return `${inputWord(Inputs.protect)} matches it ('${pattern}')`;
  if (protection.labelled.includes(name)) return `labelled ${protectedLabel}=true`;
  return undefined;
}

/**
 * Pure: `protection` with one namespace as just read from the cluster (its labels now): a
 * namespace labelled `kube-sweep.io/protected=true` since the plan was made is protected from
 * then on, and one labelled when the plan was made stays protected (the label is never taken
 * back during a run). teardown/scope-guard.ts asks this before each DELETE.
 */
export function protectionNow(
  protection: NamespaceProtection,
  current: { readonly name: string; readonly labels?: Readonly<Record<string, string>> },
): NamespaceProtection {
  if (current.labels?.[protectedLabel] !== 'true' || protection.labelled.includes(current.name))
    return protection;
  return { ...protection, labelled: [...protection.labelled, current.name].sort() };
}

/** Pure: whether kube-sweep must leave `name` and everything in it alone (`protectionReason`). */
export function isProtected(name: string, protection: NamespaceProtection): boolean {
  return protectionReason(name, protection) !== undefined;
}
