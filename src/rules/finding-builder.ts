import type { ObjectRef } from '../inventory/types.js';
import { findingKey, type Finding, type Remediation } from './findings.js';
import type { Severity } from './severity.js';
import { findingCodes, type FindingCode } from './codes.js';
import type { RuleContext } from './rule.js';
import { showableCommands } from './kubectl.js';

/** What a rule says about one finding; `buildFinding` adds key, default severity and scope. */
export interface FindingParts {
  readonly object: ObjectRef;
  readonly message: string;
  readonly evidence: readonly string[];
  readonly remediation: Remediation;
  /**
   * The namespaces the finding concerns (the object's own, a backend Service's): scope is
   * `environment` when any of them belongs to the environment. Default: the object's namespace
   * (a Namespace's own name).
   */
  readonly namespaces?: readonly (string | undefined)[];
  /** Subject of the key when the finding stands for a group of objects (see `findingKey`). */
  readonly subject?: string;
  /** Overrides the code's default severity; the rule's docs say when. */
  readonly severity?: Severity;
}

/**
 * Pure: a Finding of `code` from rule `rule`. Every remedy line passes `showableCommands`: one
 * that holds a line break, control, bidi or zero-width character is replaced by a line saying
 * why it is not shown.
 */
export function buildFinding(
  rule: string,
  code: FindingCode,
  parts: FindingParts,
  context: RuleContext,
): Finding {
  const own =
    parts.object.kind === 'Namespace' && parts.object.apiVersion === 'v1' ? parts.object.name : undefined;
  const namespaces = parts.namespaces ?? [parts.object.namespace ?? own];
  const inEnvironment = namespaces.some((ns) => ns !== undefined && context.environmentNamespaces.has(ns));
  return {
    key: findingKey(code, parts.subject ?? parts.object),
    code,
    rule,
    severity: parts.severity ?? findingCodes[code].severity,
    object: parts.object,
    message: parts.message,
    evidence: parts.evidence,
    remediation: { ...parts.remediation, commands: showableCommands(parts.remediation.commands) },
    scope: inEnvironment ? 'environment' : 'cluster',
  };
}
