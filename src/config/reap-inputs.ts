/**
 * The inputs of `mode: reap` (plan/environments.ts judges with them): how environments are found
 * (`environments`, `environment-label`), what abandons one (`abandoned-label`), and the cross-input
 * rules of the mode (`reapIssues`, called by input-schema.ts).
 */
import { z } from 'zod';
import { Inputs, inputRef, inputSet, inputWord, type InputName } from '../words/input-words.js';
import { environmentPattern } from '../plan/environments.js';
import { items, qualifiedName } from './input-values.js';

/** `environments`: namespace patterns with one `{id}` each (plan/environments.ts). */
export function environmentPatterns() {
  return z.string().transform((raw, ctx) => {
    const out = items(raw);
    for (const p of out) {
      try {
        environmentPattern(p);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord(Inputs.environments)}: ${(error as Error).message}; write namespace patterns with one {id} each, e.g. pr-{id}-* (with ${inputSet(Inputs.prState, 'closed')} the id is the pull request number)`,
        });
        return z.NEVER;
      }
    }
    return out;
  });
}

/** A label key (a qualified name, as the API server validates it), or ''. */
export function labelKey(name: InputName) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if (text === '' || (qualifiedName.test(text) && text.length <= 316)) return text;
    ctx.addIssue({
      code: 'custom',
      message: `${inputWord(name)} is '${raw}', which is not a label key; write one like preview-id or example.com/preview-id`,
    });
    return z.NEVER;
  });
}

/** `abandoned-label`: `key` or `key=value`. */
export function labelRequirement() {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if (text === '') return undefined;
    const [key, value, extra] = text.split('=');
    if (
      extra === undefined &&
      qualifiedName.test(key!) &&
      (value === undefined || /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/.test(value))
    )
      return { key: key!, ...(value !== undefined ? { value } : {}) };
    ctx.addIssue({
      code: 'custom',
      message: `${inputWord(Inputs.abandonedLabel)} is '${raw}'; write a label key or key=value, e.g. preview-abandoned=true`,
    });
    return z.NEVER;
  });
}

/** The cross-field rules of `mode: reap`: how environments are found, and what abandons one. */
export function reapIssues(
  v: {
    readonly [Inputs.environments]: string[];
    readonly [Inputs.environmentLabel]: string;
    readonly [Inputs.olderThan]?: number;
    readonly [Inputs.prState]: boolean;
    readonly [Inputs.abandonedLabel]?: unknown;
  },
  ctx: z.RefinementCtx,
): void {
  if (v.environments.length === 0 && v['environment-label'] === '')
    ctx.addIssue({
      code: 'custom',
      path: [Inputs.environments],
      message: `${inputSet(Inputs.mode, 'reap')} needs ${inputRef(Inputs.environments)} (namespace patterns with one {id}, e.g. pr-{id}-*) or ${inputRef(Inputs.environmentLabel)} (a namespace label whose value is the id)`,
    });
}
