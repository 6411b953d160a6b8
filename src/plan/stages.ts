import { inputRef, Inputs } from '../words/input-words.js';
/** An ordering constraint: `before` is torn down before `after`, for `reason`. */
export interface OrderingEdge {
  readonly before: string;
  readonly after: string;
  readonly reason: string;
}

/** Thrown when the ordering constraints form a cycle; `cycle` lists it, first node repeated last. */
export class OrderingCycleError extends Error {
  constructor(readonly cycle: readonly string[]) {
    super(
      `the teardown order has a cycle: ${cycle.join(' -> ')}; remove one of these constraints (from ${inputRef(Inputs.order)} or the releases' dependencies)`,
    );
    this.name = 'OrderingCycleError';
  }
}

/**
 * Pure: the stages of a teardown, the levels of the "before" graph: a node's stage is one
 * more than the latest stage of anything that must go before it, so every stage holds nodes
 * that can go in parallel. Nodes and stages are sorted for a deterministic plan.
 * @throws OrderingCycleError naming one cycle
 */
export function stagesOf(nodes: readonly string[], edges: readonly OrderingEdge[]): string[][] {
  const predecessors = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const e of edges) {
    if (!predecessors.has(e.before) || !predecessors.has(e.after)) continue;
    predecessors.get(e.after)!.push(e.before);
  }
  const level = new Map<string, number>();
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): number => {
    if (state.get(node) === 'done') return level.get(node)!;
    if (state.get(node) === 'visiting') {
      const start = path.indexOf(node);
      throw new OrderingCycleError([...path.slice(start), node].reverse()); // path runs after -> before
    }
    state.set(node, 'visiting');
    path.push(node);
    let l = 0;
    for (const p of [...predecessors.get(node)!].sort()) l = Math.max(l, visit(p) + 1);
    path.pop();
    state.set(node, 'done');
    level.set(node, l);
    return l;
  };
  for (const n of [...nodes].sort()) visit(n);
  const stages: string[][] = [];
  for (const [node, l] of level) (stages[l] ??= []).push(node);
  return stages.map((s) => s.sort());
}
