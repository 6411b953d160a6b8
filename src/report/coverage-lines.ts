/**
 * The log lines of a snapshot's coverage gaps. A resource the identity may not list (403) is
 * one of many when the identity is bound to a narrower role (a view-only identity is refused
 * dozens): those become one line that counts them, names a few, and says which role file of
 * rbac/ grants what the mode needs. Other gaps (5xx, a failed discovery, a cut at the
 * deadline) are one line each, with the server's words.
 */
import type { CoverageGap } from '../inventory/types.js';

/** How many forbidden resources the line names before it counts the rest. */
const namedForbidden = 5;

/**
 * Pure: the role file of rbac/ that grants what `mode` reads and does: the teardown's (which
 * includes the scan's reads) for modes that change the cluster, else the read-only scan role.
 */
export function roleFileOf(mode: string): string {
  return mode === 'teardown' || mode === 'reap'
    ? 'rbac/kube-sweep-teardown.yaml'
    : 'rbac/kube-sweep-scan.yaml';
}

/**
 * Pure: the warning lines for `coverage` in `mode`: one line for every forbidden gap together
 * (the count, the first `namedForbidden` resources, the role file to bind; the report lists
 * each gap with the RBAC rule that grants it), then one line per other gap. Values come from the
 * cluster: the caller's log port escapes them.
 */
export function coverageWarnings(coverage: readonly CoverageGap[], mode: string): string[] {
  const forbidden = coverage.filter((g) => g.reason === 'forbidden');
  const others = coverage.filter((g) => g.reason !== 'forbidden');
  const lines: string[] = [];
  if (forbidden.length > 0) {
    const named = forbidden.slice(0, namedForbidden).map((g) => g.resource);
    const more = forbidden.length - named.length;
    lines.push(
      `could not read ${forbidden.length} resource${forbidden.length === 1 ? '' : 's'} (403 forbidden): ` +
        `${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}. Findings may be missing: bind this identity to ` +
        `the ClusterRole in ${roleFileOf(mode)} (kubectl apply -f ${roleFileOf(mode)}, then a ClusterRoleBinding; ` +
        `README "Permissions"); the report lists each gap with the rule that grants it`,
    );
  }
  for (const gap of others) lines.push(`could not read ${gap.resource} (${gap.reason}): ${gap.message}`);
  return lines;
}
