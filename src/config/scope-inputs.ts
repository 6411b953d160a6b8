/**
 * The inputs that name the environment: `namespaces` and `protect` (names and globs), `selector`
 * (a namespace label selector), `releases` (namespace/name), and the `order` lines between releases.
 */
import { z } from 'zod';
import { inputWord, type Inputs } from '../words/input-words.js';
import { LabelSelectorError, parseLabelSelector } from '../plan/label-selector.js';
import type { ReleaseRef } from '../plan/scope.js';
import type { OrderRef, UserOrdering } from '../plan/build-plan.js';
import { items } from './input-values.js';
import { isDns1123Label, isHelmReleaseName } from '../kube/object-names.js';

// Names and globs with *, ? and [a-z] classes. No '!' (minimatch would read it as "every
// namespace but this one") and no braces (the input is also split at commas).
const namespaceGlob = /^[-a-z0-9*?[\]]+$/;
const balancedClasses = (p: string) => /^([^[\]]|\[[^[\]]+\])*$/.test(p);

/** `namespaces` and `protect`: namespace names and globs (minimatch), one per line or comma-separated. */
export function namespacePatterns(input: typeof Inputs.namespaces | typeof Inputs.protect) {
  return z.string().transform((raw, ctx) => {
    const out = items(raw);
    const bad = out.find((p) => !namespaceGlob.test(p) || !balancedClasses(p));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(input)} has '${bad}', which is neither a namespace name nor a glob; use names like pr-12 or globs like pr-* (*, ? and [a-z]; no '!' or braces)`,
      });
      return z.NEVER;
    }
    return out;
  });
}

/** `releases`: `namespace/name` items (a namespace name, a Helm release name). */
export function releaseRefs() {
  return z.string().transform((raw, ctx) => {
    const out: ReleaseRef[] = [];
    for (const item of items(raw)) {
      const [ns, name, extra] = item.split('/');
      if (extra !== undefined || !ns || !name || !isDns1123Label(ns) || !isHelmReleaseName(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('releases')} has '${item}'; write each release as namespace/name, e.g. pr-12/api`,
        });
        return z.NEVER;
      }
      out.push({ namespace: ns, name });
    }
    return out;
  });
}

function orderRef(text: string): OrderRef | undefined {
  const parts = text.split('/');
  if (parts.length === 1 && isHelmReleaseName(parts[0]!)) return { name: parts[0]! };
  if (parts.length === 2 && isDns1123Label(parts[0]!) && isHelmReleaseName(parts[1]!))
    return { namespace: parts[0]!, name: parts[1]! };
  return undefined;
}

/** `order`: one `before -> after` line each, a release name or namespace/name on either side. */
export function orderLines() {
  return z.string().transform((raw, ctx) => {
    const out: UserOrdering[] = [];
    for (const line of raw
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter((l) => l !== '')) {
      const m = /^(\S+)\s*->\s*(\S+)$/.exec(line);
      const before = m ? orderRef(m[1]!) : undefined;
      const after = m ? orderRef(m[2]!) : undefined;
      if (!before || !after) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('order')} has the line '${line}'; write one constraint per line as 'app -> operator' (release names, or namespace/name)`,
        });
        return z.NEVER;
      }
      if (before.name === after.name && before.namespace === after.namespace) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('order')} has the line '${line}', which orders a release before itself (a cycle); name two different releases`,
        });
        return z.NEVER;
      }
      out.push({ before, after, line });
    }
    return out;
  });
}

/** `selector`: a namespace label selector, kept as written and parsed. */
export function labelSelector() {
  return z.string().transform((raw, ctx) => {
    try {
      return { text: raw.trim(), requirements: parseLabelSelector(raw) };
    } catch (error) {
      if (!(error instanceof LabelSelectorError)) throw error;
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('selector')} is '${raw}': ${error.message}; write a label selector like env=pr-12,team in (a,b)`,
      });
      return z.NEVER;
    }
  });
}
