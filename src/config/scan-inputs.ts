/**
 * The inputs that judge a scan's findings and act on them: `fail-on`, `ignore` (exclusions), and
 * the finalizers `remediate: safe` may remove (`force-remove-finalizers`).
 */
import { z } from 'zod';
import { minimatch } from 'minimatch';
import { parse as parseYaml } from 'yaml';
import { inputWord } from '../words/input-words.js';
import { parseLabelSelector } from '../plan/label-selector.js';
import { hasNoLiteral } from '../plan/scope.js';
import type { Severity } from '../rules/severity.js';
import { findingCodes, type FindingCode } from '../rules/codes.js';
import type { Exclusion } from '../rules/exclusions.js';
import { items, qualifiedName } from './input-values.js';

/** `force-remove-finalizers`: exact finalizer names (no globs), duplicates dropped. */
export function finalizerNames() {
  return z.string().transform((raw, ctx) => {
    const out = items(raw);
    const bad = out.find((f) => !qualifiedName.test(f) || f.length > 316);
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('force-remove-finalizers')} has '${bad}', which is not a finalizer name; list exact names such as example.com/cleanup (no globs)`,
      });
      return z.NEVER;
    }
    return [...new Set(out)];
  });
}

const severities = ['error', 'warning', 'info'] as const;

/** `fail-on`: `never`, a severity (findings at or above it fail), finding codes, or both. */
export function failOn() {
  return z.string().transform((raw, ctx) => {
    let severity: Severity | undefined;
    const codes: FindingCode[] = [];
    const all = items(raw);
    if (all.includes('never') && all.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('fail-on')} is '${all.join(', ')}': 'never' means nothing fails the step, so it cannot be combined with a severity or codes; keep one`,
      });
      return z.NEVER;
    }
    for (const item of all) {
      if (item === 'never') continue;
      if ((severities as readonly string[]).includes(item)) {
        severity = item as Severity;
        continue;
      }
      if (!Object.prototype.hasOwnProperty.call(findingCodes, item)) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('fail-on')} has '${item}', which is neither a severity (error, warning, info), 'never', nor a finding code (see docs/finding-codes.md)`,
        });
        return z.NEVER;
      }
      codes.push(item as FindingCode);
    }
    return { ...(severity ? { severity } : {}), codes };
  });
}

const ignoreKeys = ['code', 'kind', 'namespace', 'name', 'selector'];

/** `ignore`: a YAML list of mappings with code, kind, namespace, name (globs) and selector. */
export function ignoreEntries() {
  return z.string().transform((raw, ctx) => {
    if (raw.trim() === '') return [] as Exclusion[];
    const fail = (why: string) => {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('ignore')} ${why}; write a YAML list such as '- {code: StuckFinalizer, namespace: "pr-*"}' (keys: ${ignoreKeys.join(', ')})`,
      });
      return z.NEVER;
    };
    let doc: unknown;
    try {
      doc = parseYaml(raw);
    } catch (error) {
      return fail(`is not valid YAML (${(error as Error).message.split('\n')[0]})`);
    }
    if (!Array.isArray(doc)) return fail('is not a YAML list');
    const out: Exclusion[] = [];
    for (const [i, entry] of doc.entries()) {
      if (!entry || typeof entry !== 'object' || Array.isArray(entry))
        return fail(`entry ${i + 1} is not a mapping`);
      const e = entry as Record<string, unknown>;
      const unknown = Object.keys(e).find((k) => !ignoreKeys.includes(k));
      if (unknown) return fail(`entry ${i + 1} has the unknown key '${unknown}'`);
      if (Object.keys(e).length === 0) return fail(`entry ${i + 1} is empty (it would hide every finding)`);
      const bad = Object.entries(e).find(([, v]) => typeof v !== 'string' || v.trim() === '');
      if (bad) return fail(`entry ${i + 1} has '${bad[0]}' that is not a non-empty string`);
      // `{code: '*'}`, `{name: '*', kind: '?*'}`: globs that match anything hide every finding,
      // as an empty entry would (a tester's finding).
      if (e.selector === undefined && Object.values(e).every((v) => hasNoLiteral(String(v))))
        return fail(
          `entry ${i + 1} has only patterns with no literal character (${Object.keys(e).join(', ')}), so it would hide every finding`,
        );
      if (
        typeof e.code === 'string' &&
        !Object.keys(findingCodes).some((c) => minimatch(c, String(e.code)))
      ) {
        return fail(
          `entry ${i + 1} has code '${e.code}', which matches no finding code (docs/finding-codes.md lists them)`,
        );
      }
      let selector;
      if (typeof e.selector === 'string') {
        try {
          selector = parseLabelSelector(e.selector);
        } catch (error) {
          return fail(`entry ${i + 1} has selector '${e.selector}': ${(error as Error).message}`);
        }
      }
      out.push({
        ...(e.code ? { code: String(e.code) } : {}),
        ...(e.kind ? { kind: String(e.kind) } : {}),
        ...(e.namespace ? { namespace: String(e.namespace) } : {}),
        ...(e.name ? { name: String(e.name) } : {}),
        ...(selector ? { selector } : {}),
        text: JSON.stringify(e),
      });
    }
    return out;
  });
}
