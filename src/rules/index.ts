/**
 * The rule registry: every rule (the first set, S19-S23, S26-S28), in the order they run, and `runRules`, which
 * runs them over one snapshot, links root causes and sorts. Adding a rule touches its file,
 * one line here, its codes in codes.ts and docs/finding-codes.md, and its fixture test.
 */
import type { Inventory } from '../inventory/snapshot.js';
import { sortFindings, type Finding } from './findings.js';
import { admissionPolicyParamMissingRule } from './admission-policy-param-missing.js';
import { apiServiceUnavailableRule } from './apiservice-unavailable.js';
import { crdStuckRule } from './crd-stuck.js';
import { csiDriverGoneRule } from './csi-driver-gone.js';
import { deletionRefusedRule } from './deletion-refused.js';
import { helmLeftoverRule } from './helm-leftover.js';
import { helmReleaseNamespaceGoneRule } from './helm-release-namespace-gone.js';
import { helmReleaseRecordInvalidRule } from './helm-release-record-invalid.js';
import { helmReleaseRecordLostRule } from './helm-release-record-lost.js';
import { helmReleaseStuckRule } from './helm-release-stuck.js';
import { linkFindings } from './link.js';
import { namespaceStuckRule } from './namespace-stuck.js';
import { objectInMissingNamespaceRule } from './object-in-missing-namespace.js';
import { orphanedCrDataRule } from './orphaned-cr-data.js';
import { ownerReferenceRule } from './owner-reference.js';
import { podStuckTerminatingRule } from './pod-stuck-terminating.js';
import { pvcProtectionBlockedRule } from './pvc-protection-blocked.js';
import { quotaFinishedJobsRule } from './quota-finished-jobs.js';
import { quotaTerminalPodsRule } from './quota-terminal-pods.js';
import { appOfAppsSelfDeletionRule } from './app-of-apps-self-deletion.js';
import { rbacDanglingSubjectsRule } from './rbac-dangling-subjects.js';
import type { Rule, RuleContext } from './rule.js';
import { staleLeaderLeaseRule } from './stale-leader-lease.js';
import { statefulSetClaimLeftoverRule } from './statefulset-claim-leftover.js';
import { storageLeftoverRule } from './storage-leftover.js';
import { stuckFinalizerRule } from './stuck-finalizer.js';
import { webhookBackendMissingRule } from './webhook-backend-missing.js';

export { defaultRuleSettings, type Rule, type RuleContext } from './rule.js';

/** Every registered rule. */
export const rules: readonly Rule[] = [
  namespaceStuckRule,
  apiServiceUnavailableRule,
  objectInMissingNamespaceRule,
  stuckFinalizerRule,
  webhookBackendMissingRule,
  crdStuckRule,
  orphanedCrDataRule,
  ownerReferenceRule,
  storageLeftoverRule,
  podStuckTerminatingRule,
  pvcProtectionBlockedRule,
  helmReleaseStuckRule,
  helmLeftoverRule,
  rbacDanglingSubjectsRule,
  staleLeaderLeaseRule,
  helmReleaseRecordLostRule,
  statefulSetClaimLeftoverRule,
  csiDriverGoneRule,
  admissionPolicyParamMissingRule,
  quotaFinishedJobsRule,
  quotaTerminalPodsRule,
  appOfAppsSelfDeletionRule,
  helmReleaseNamespaceGoneRule,
  helmReleaseRecordInvalidRule,
  deletionRefusedRule,
];

/**
 * Pure: runs `selected` rules (default: all) over the snapshot, sets `causedBy` (link.ts) and
 * returns the findings sorted (rules/findings.ts `compareFindings`). Never calls the API.
 */
export function runRules(
  inventory: Inventory,
  context: RuleContext,
  selected: readonly Rule[] = rules,
): Finding[] {
  const findings = selected.flatMap((r) => r.check(inventory, context));
  return sortFindings(linkFindings(findings, inventory));
}
