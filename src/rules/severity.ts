/**
 * How much a finding matters: `error` blocks teardown or breaks the cluster, `warning` needs a
 * look. Its own module so that the codes (codes.ts) and the finding model (findings.ts) both
 * read it without importing each other.
 */
export type Severity = 'error' | 'warning' | 'info';

/** Sort rank of a severity: errors first. */
export const severityRank: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };
