import { objectPath, type Finding } from '../rules/findings.js';

/**
 * One entry of "what is wrong": a finding nothing in the run causes, the other root findings
 * about the same object (one object, one entry), and every finding they explain through
 * `causedBy` (src/rules/link.ts), directly or through a finding in between.
 */
export interface RootCause {
  readonly finding: Finding;
  /** Other findings with no cause in the run about the same object, in report order. */
  readonly sameObject: readonly Finding[];
  /** The findings this entry explains, in report order, each once. */
  readonly explains: readonly Finding[];
}

/** The findings a root cause entry and the linked findings split into (see `rootCausesOf`). */
export interface RootCauses {
  /** Entries whose severity is error or warning, or that fail the step: what to act on. */
  readonly causes: readonly RootCause[];
  /** Info entries that do not fail the step: expected notes (hook objects left by Helm, say). */
  readonly notes: readonly RootCause[];
  /** How many findings are explained by an entry (counted once however many entries explain them). */
  readonly linked: number;
}

/**
 * Pure: the findings grouped by root cause, in report order (findings are sorted by severity
 * first, so errors lead). A finding is a root when none of its `causedBy` keys is a finding of
 * the run; a finding that no root reaches (a cycle of links) counts as a root too, so every
 * finding appears exactly once as a root or among the linked ones. `failing`: keys of the
 * findings over the fail-on policy (an info finding that fails the step is a cause, not a note).
 */
export function rootCausesOf(
  findings: readonly Finding[],
  failing: ReadonlySet<string> = new Set(),
): RootCauses {
  const byKey = new Map(findings.map((f) => [f.key, f]));
  const childrenOf = new Map<string, Finding[]>();
  for (const f of findings)
    for (const k of f.causedBy ?? [])
      if (byKey.has(k) && k !== f.key) childrenOf.set(k, [...(childrenOf.get(k) ?? []), f]);
  const reach = (key: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [key];
    while (todo.length) {
      for (const c of childrenOf.get(todo.pop()!) ?? [])
        if (!seen.has(c.key) && c.key !== key) {
          seen.add(c.key);
          todo.push(c.key);
        }
    }
    return seen;
  };
  const explained = new Set<string>();
  const entries: { finding: Finding; sameObject: Finding[]; explains: Set<string> }[] = [];
  const addRoot = (f: Finding) => {
    const same = entries.find((e) => objectPath(e.finding.object) === objectPath(f.object));
    const reached = reach(f.key);
    if (same) {
      same.sameObject.push(f);
      for (const k of reached) same.explains.add(k);
    } else entries.push({ finding: f, sameObject: [], explains: reached });
    for (const k of reached) explained.add(k);
  };
  for (const f of findings) if (!(f.causedBy ?? []).some((k) => byKey.has(k) && k !== f.key)) addRoot(f);
  for (const f of findings) if (!explained.has(f.key) && !entries.some((e) => isIn(e, f))) addRoot(f);
  const done = entries.map((e) => ({
    finding: e.finding,
    sameObject: e.sameObject,
    explains: findings.filter((f) => e.explains.has(f.key) && !isIn(e, f)),
  }));
  const isNote = (e: RootCause) =>
    [e.finding, ...e.sameObject].every((f) => f.severity === 'info' && !failing.has(f.key));
  const roots = new Set(done.flatMap((e) => [e.finding.key, ...e.sameObject.map((f) => f.key)]));
  return {
    causes: done.filter((e) => !isNote(e)),
    notes: done.filter(isNote),
    linked: findings.filter((f) => !roots.has(f.key) && explained.has(f.key)).length,
  };
}

function isIn(e: { finding: Finding; sameObject: readonly Finding[] }, f: Finding): boolean {
  return e.finding.key === f.key || e.sameObject.some((x) => x.key === f.key);
}

/**
 * Pure: the first safe action of a finding: the first sentence of its remedy summary (rules
 * write the safe remedy first, the risky one last; see Remediation).
 */
export function firstAction(f: Finding): string {
  const summary = f.remediation.summary.trim();
  // The first `.`, `;` or `:` that ends a clause outside parentheses.
  let depth = 0;
  for (let i = 0; i < summary.length; i++) {
    const c = summary[i]!;
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && '.;:'.includes(c) && (i + 1 === summary.length || /\s/.test(summary[i + 1]!)))
      return `${summary.slice(0, i)}.`;
  }
  return summary;
}

/** `Kind namespace/name` (namespace omitted for cluster-scoped objects). */
export function objectLabel(o: { kind: string; namespace?: string; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}
