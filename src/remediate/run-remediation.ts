import type { ApiClient } from '../cluster/api-client.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { Finding } from '../rules/findings.js';
import type { RemediationReport } from './actions.js';
import { applyRemediation } from './apply-remediation.js';
import { planRemediation, type RemediationPolicy } from './plan-remediation.js';
import { Inputs, inputSet } from '../words/input-words.js';

/** Longest wait for a re-created namespace to be gone after its delete, in ms. */
export const namespaceWaitCapMs = 120_000;

/**
 * `remediate: safe` over one scan: plans (pure, plan-remediation.ts), logs what is left alone,
 * then carries the actions out in a log group.
 * @returns the report part without `findingsBefore`; `results` is empty when nothing was to do.
 * @throws ClusterAccessError when the API server cannot be reached at all.
 */
export async function remediate(
  api: ApiClient,
  findings: readonly Finding[],
  inventory: Inventory,
  policy: RemediationPolicy,
  ports: {
    readonly info: (line: string) => void;
    readonly group: <T>(title: string, fn: () => Promise<T>) => Promise<T>;
    readonly stageTimeoutMs: number;
  },
): Promise<Omit<RemediationReport, 'findingsBefore'>> {
  const plan = planRemediation(findings, inventory, policy);
  const results = await ports.group(
    `Remediating (${inputSet(Inputs.remediate, 'safe')}): ${plan.actions.length} action(s)`,
    async () => {
      for (const s of plan.skipped) ports.info(`left alone: ${s.finding}: ${s.reason}`);
      if (plan.actions.length === 0) ports.info('nothing to remediate within the scope');
      return applyRemediation(api, plan.actions, {
        namespaceWaitMs: Math.min(ports.stageTimeoutMs, namespaceWaitCapMs),
        log: ports.info,
      });
    },
  );
  const failed = results.filter((r) => r.status === 'failed').length;
  const refused = results.filter((r) => r.status === 'refused').length;
  return {
    mode: 'safe',
    results,
    skipped: plan.skipped,
    counts: { done: results.length - failed - refused, failed, skipped: plan.skipped.length, refused },
  };
}

/**
 * The `error` message of a run whose remediation had failed actions; undefined when none failed.
 * A refused action is not an error: the scan after it reports it (DeletionRefused).
 */
export function remediationError(
  report: Omit<RemediationReport, 'findingsBefore'> | undefined,
): string | undefined {
  const failed = report?.results.filter((r) => r.status === 'failed') ?? [];
  if (failed.length === 0) return undefined;
  return `remediation: ${failed.length} action(s) failed: ${failed.map((r) => `${r.description}: ${r.message}`).join('; ')}`;
}
