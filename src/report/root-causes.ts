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
  /**
   * Other root findings folded into this entry because one remedy covers them all: the
   * `OrphanInMissingNamespace` findings of the other objects stored in the same missing
   * namespace (recreate it and delete it properly), in report order. Empty otherwise.
   */
  readonly group: readonly Finding[];
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
 * finding appears exactly once as a root or among the linked ones. Roots about objects stored in
 * the same missing namespace (`OrphanInMissingNamespace`) make one entry (see `group`).
 * `failing`: keys of the
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
  const entries: Entry[] = [];
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
  const grouped = groupByMissingNamespace(entries);
  const done = grouped.map((e) => ({
    finding: e.finding,
    sameObject: e.sameObject,
    group: e.group,
    explains: findings.filter((f) => e.explains.has(f.key) && !isIn(e, f)),
  }));
  const isNote = (e: RootCause) =>
    [e.finding, ...e.sameObject, ...e.group].every((f) => f.severity === 'info' && !failing.has(f.key));
  const roots = new Set(done.flatMap((e) => [e.finding, ...e.sameObject, ...e.group].map((f) => f.key)));
  return {
    causes: done.filter((e) => !isNote(e)),
    notes: done.filter(isNote),
    linked: findings.filter((f) => !roots.has(f.key) && explained.has(f.key)).length,
  };
}

type Entry = { finding: Finding; sameObject: Finding[]; explains: Set<string>; group?: readonly Finding[] };

function isIn(e: Entry, f: Finding): boolean {
  return (
    e.finding.key === f.key ||
    e.sameObject.some((x) => x.key === f.key) ||
    (e.group ?? []).some((x) => x.key === f.key)
  );
}

/**
 * Pure: the entries with those rooted in an `OrphanInMissingNamespace` finding folded into one
 * per missing namespace (the first in report order leads; the others go to its `group` with
 * their findings about the same object, and what they explain joins its `explains`): one
 * namespace, one remedy (recreate it and delete it properly), however many objects it strands.
 */
function groupByMissingNamespace(entries: readonly Entry[]): (Entry & { group: readonly Finding[] })[] {
  const out: (Entry & { group: Finding[] })[] = [];
  const lead = new Map<string, Entry & { group: Finding[] }>();
  for (const e of entries) {
    const ns = e.finding.code === 'OrphanInMissingNamespace' ? e.finding.object.namespace : undefined;
    const first = ns !== undefined ? lead.get(ns) : undefined;
    if (first) {
      first.group.push(e.finding, ...e.sameObject);
      for (const k of e.explains) first.explains.add(k);
      continue;
    }
    const entry = { ...e, group: [] as Finding[] };
    if (ns !== undefined) lead.set(ns, entry);
    out.push(entry);
  }
  return out;
}

/**
 * Pure: what an entry is about, for one line: `Kind namespace/name`, or for a group of objects
 * stranded in a missing namespace `<n> objects in missing namespace <ns> (Kind ns/a, Kind ns/b,
 * Kind ns/c and <n-3> more)`.
 */
export function rootCauseLabel(r: RootCause, shown = 3): string {
  if (r.group.length === 0) return objectLabel(r.finding.object);
  const objects = [r.finding, ...r.group.filter((f) => f.code === r.finding.code)].map((f) => f.object);
  const names = objects.slice(0, shown).map(objectLabel).join(', ');
  const more = objects.length > shown ? ` and ${objects.length - shown} more` : '';
  return `${objects.length} objects in missing namespace ${r.finding.object.namespace ?? ''} (${names}${more})`;
}

/**
 * Pure: the first safe action of a finding: the first sentence of its remedy summary, whole.
 * Rules write the safe remedy first and make that first sentence a self-contained instruction
 * (an imperative that names what to act on; see Remediation), so the sentence is cut only at
 * its end: a `.` followed by white space (or the end) outside parentheses and backquotes, never
 * at a `:` or `;` inside it, which would drop the action that follows.
 */
export function firstAction(f: Finding): string {
  const summary = f.remediation.summary.trim();
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < summary.length; i++) {
    const c = summary[i]!;
    if (c === '`') quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === '.' && (i + 1 === summary.length || /\s/.test(summary[i + 1]!)))
      return summary.slice(0, i + 1);
  }
  return summary;
}

/** `Kind namespace/name` (namespace omitted for cluster-scoped objects). */
export function objectLabel(o: { kind: string; namespace?: string; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
}
