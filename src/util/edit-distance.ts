/**
 * Pure: the Levenshtein distance of `a` and `b` (insertions, deletions and substitutions of one
 * UTF-16 code unit each), by the two-row dynamic programme: O(|a|·|b|) time, O(|b|) memory.
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Pure: the candidate `word` was most likely meant to be, or undefined when none is close: the
 * only candidate that starts with `word` (3 characters or more), else the nearest by
 * `editDistance` when that is at most a third of `word`'s length (at least 2), the first such
 * candidate on a tie.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((c) => c.startsWith(word));
  if (word.length >= 3 && prefixed.length === 1) return prefixed[0];
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(word.length / 3)) ? best.candidate : undefined;
}
