import type { ObjectRef } from '../inventory/types.js';
import { findingKey, type Finding } from '../rules/findings.js';
import type { Severity } from '../rules/severity.js';

/*
 * Baseline: this run's findings against those of an earlier report (`baseline` input). Pure.
 */

/** Where a finding stands against the baseline: not in it (`new`) or in it too (`still`). */
export type BaselineStatus = 'new' | 'still';

/** A finding of the baseline report, as much of it as the comparison and the summary need. */
export interface BaselineFinding {
  readonly key: string;
  readonly code: string;
  readonly severity: Severity;
  readonly object: ObjectRef;
  readonly message: string;
}

/** The findings of an earlier report, read from `path` (report/read-report.ts). */
export interface Baseline {
  /** The file as the `baseline` input named it. */
  readonly path: string;
  /** When the baseline's run ended (its `generatedAt`), when it says. */
  readonly generatedAt?: string;
  readonly findings: readonly BaselineFinding[];
}

/** The comparison as the report carries it (`baseline` in schema/report.v1.schema.json). */
export interface BaselineSummary {
  readonly path: string;
  readonly generatedAt?: string;
  /** How many of this run's findings are not in the baseline, and how many are in it too. */
  readonly new: number;
  readonly still: number;
  /** Findings of the baseline that this run no longer finds, in the baseline's order. */
  readonly resolved: readonly BaselineFinding[];
}

/**
 * Pure: the identity of a finding across runs. The code and the object's UID; without a UID, the
 * code and the object's kind, namespace and name (not its apiVersion, which an upgrade changes).
 * A finding that stands for a group (its key's subject is not its object) is identified by its
 * key, since its object is only the group's first member.
 */
export function findingIdentity(f: Pick<BaselineFinding, 'key' | 'code' | 'object'>): string {
  const o = f.object;
  if (f.key !== findingKey(f.code as Finding['code'], o)) return `key:${f.key}`;
  if (o.uid) return `${f.code}|uid:${o.uid}`;
  return `${f.code}|${o.kind}/${o.namespace ?? ''}/${o.name}`;
}

/**
 * Pure: each finding marked `new` or `still`, and the baseline's findings that are gone
 * (`resolved`). Findings keep their order; `baseline` is set on each.
 */
export function compareWithBaseline<F extends Finding>(
  findings: readonly F[],
  baseline: Baseline,
): { findings: (F & { baseline: BaselineStatus })[]; summary: BaselineSummary } {
  const before = new Set(baseline.findings.map(findingIdentity));
  const now = new Set(findings.map(findingIdentity));
  const marked = findings.map((f) => ({
    ...f,
    baseline: (before.has(findingIdentity(f)) ? 'still' : 'new') as BaselineStatus,
  }));
  const seen = new Set<string>();
  const resolved = baseline.findings.filter((f) => {
    const id = findingIdentity(f);
    if (now.has(id) || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return {
    findings: marked,
    summary: {
      path: baseline.path,
      ...(baseline.generatedAt ? { generatedAt: baseline.generatedAt } : {}),
      new: marked.filter((f) => f.baseline === 'new').length,
      still: marked.filter((f) => f.baseline === 'still').length,
      resolved,
    },
  };
}
