import type { ObjectRef } from '../inventory/types.js';
import type { FindingCode } from './codes.js';
import { severityRank, type Severity } from './severity.js';

/**
 * `environment`: the finding is about the environment being torn down (its namespaces, or a
 * cluster-scoped object whose backend lives in them); `cluster`: about the rest of the cluster.
 */
export type FindingScope = 'environment' | 'cluster';

/**
 * What to do about a finding. `commands` are shell lines in the order to try them: the safe
 * remedy first (restore the controller or backend, remove a registration whose backend is gone),
 * the risky one last. A line that starts with `# ` is a comment about the line after it; every
 * risky command is preceded by one that starts with `# WARNING:`.
 */
export interface Remediation {
  readonly summary: string;
  readonly commands: readonly string[];
}

/**
 * One problem found in the inventory snapshot. Text from the cluster (names, condition
 * messages) is kept raw here; renderers escape it.
 */
export interface Finding {
  /**
   * Identity of the finding within one report, built by `findingKey`: the code, the subject
   * (an object, or a group such as "finalizer F in namespace N"), stable across runs while the
   * subject exists. `causedBy` refers to findings by this key.
   */
  readonly key: string;
  readonly code: FindingCode;
  /** Name of the rule that produced it (e.g. `namespace-stuck`). */
  readonly rule: string;
  readonly severity: Severity;
  /** The object the finding is about (for a group, the first object of the group in sort order). */
  readonly object: ObjectRef;
  /** One sentence, raw cluster text included. */
  readonly message: string;
  /** Facts read from the snapshot that support the finding, one per line. */
  readonly evidence: readonly string[];
  /**
   * Keys of the findings that cause this one (root causes first), set by the linker
   * (src/rules/link.ts). A list, because one stuck namespace can wait on several causes at
   * once (an unavailable APIService and a finalizer whose controller is gone).
   */
  readonly causedBy?: readonly string[];
  readonly remediation: Remediation;
  readonly scope: FindingScope;
}

const scopeRank: Readonly<Record<FindingScope, number>> = { environment: 0, cluster: 1 };

/** `apiVersion/Kind/namespace/name` (namespace empty for cluster-scoped objects). */
export function objectPath(ref: ObjectRef): string {
  return `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

/**
 * The key of a finding: `<code>:<subject>`. The subject is the object path, or a caller-chosen
 * group name (`detail`) when one finding stands for a group of objects.
 */
export function findingKey(code: FindingCode, subject: ObjectRef | string): string {
  return `${code}:${typeof subject === 'string' ? subject : objectPath(subject)}`;
}

/**
 * Deterministic order: severity, code, scope (environment first), object namespace, kind,
 * name, then key.
 */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    severityRank[a.severity] - severityRank[b.severity] ||
    a.code.localeCompare(b.code) ||
    scopeRank[a.scope] - scopeRank[b.scope] ||
    (a.object.namespace ?? '').localeCompare(b.object.namespace ?? '') ||
    a.object.kind.localeCompare(b.object.kind) ||
    a.object.name.localeCompare(b.object.name) ||
    a.key.localeCompare(b.key)
  );
}

/** Pure: a sorted copy (see `compareFindings`). */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(compareFindings);
}
