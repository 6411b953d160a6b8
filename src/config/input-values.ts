/**
 * The kinds of value an input takes, shared by every group of inputs (input-schema.ts): a duration,
 * a whole number in a range, true/false, one of a few words, a list of items, a qualified name.
 * Each is a zod string transform whose issue names the input, quotes the value and says the fix.
 */
import parseDuration from 'parse-duration';
import { z } from 'zod';
import { inputWord, type InputName } from '../words/input-words.js';
import { dns1123SubdomainFormat } from '../kube/object-names.js';

// A duration is one or more number+unit pairs (90s, 5m, 1h30m, 500ms); a bare number is refused
// (parse-duration would read it as milliseconds, which nobody means for a timeout).
const durationPattern = /^(\d+(\.\d+)?(ms|s|m|h|d))+$/;

/**
 * The longest time budget kube-sweep takes, in ms: 2^31 − 1, the longest delay Node.js's
 * `setTimeout` keeps (a longer one is set to 1 ms with a TimeoutOverflowWarning, and
 * `AbortSignal.timeout` refuses more than 2^32 − 1 with a RangeError). The waits, the helm
 * uninstall processes and every API request run on such timers, so `timeout`, `stage-timeout`,
 * `request-timeout` and `kind-wait` are refused above it.
 */
export const maxDurationMs = 2 ** 31 - 1;

/** `maxDurationMs` in whole seconds, as a duration input is written (24d 20h 31m 23.647s, floored). */
export const maxDurationText = '24d20h31m23s';

/**
 * A duration input in ms (rounded to whole ms, at least 1). With `capped`, longer than
 * `maxDurationMs` is refused; `stuck-after` is an age compared with timestamps, not a timer, so
 * it has no maximum.
 */
export function duration(name: InputName, capped = true) {
  return z.string().transform((raw, ctx) => {
    const ms = durationPattern.test(raw.trim()) ? parseDuration(raw.trim()) : undefined;
    if (ms === null || ms === undefined || Number.isNaN(ms) || Math.round(ms) < 1) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}', which is not a positive duration; write it like 90s, 5m or 1h30m`,
      });
      return z.NEVER;
    }
    if (capped && ms > maxDurationMs) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}', longer than the maximum, ${maxDurationText} (2^31-1 ms, the longest timer Node.js can set); write ${maxDurationText} or less, e.g. 24d`,
      });
      return z.NEVER;
    }
    if (!Number.isFinite(ms)) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}', a number too large to read; write it like 90s, 5m or 1h30m`,
      });
      return z.NEVER;
    }
    return Math.round(ms);
  });
}

/** A duration input that may be left empty (undefined then). */
export function optionalDuration(name: InputName) {
  return z.string().transform((raw, ctx) => {
    if (raw.trim() === '') return undefined;
    const parsed = duration(name, false).safeParse(raw);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]!.message });
      return z.NEVER;
    }
    return parsed.data;
  });
}

/** A whole number from `min` to `max` (digits only). */
export function integer(name: InputName, min: number, max: number) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(name)} is '${raw}'; it takes a whole number from ${min} to ${max}`,
      });
      return z.NEVER;
    }
    return value;
  });
}

/** `true` or `false` (any case). */
export function boolean(name: InputName) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
    ctx.addIssue({ code: 'custom', message: `${inputWord(name)} is '${raw}'; it takes true or false` });
    return z.NEVER;
  });
}

/** One of `values`, exactly as written there. */
export function oneOf<const T extends readonly [string, ...string[]]>(name: InputName, values: T) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if ((values as readonly string[]).includes(text)) return text as T[number];
    ctx.addIssue({
      code: 'custom',
      message: `${inputWord(name)} is '${raw}'; it takes one of: ${values.join(', ')}`,
    });
    return z.NEVER;
  });
}

/** Splits a multi-line or comma-separated input into trimmed, non-empty items ('#' starts a comment). */
export function items(raw: string): string[] {
  return raw
    .split('\n')
    .map((line) => line.replace(/#.*$/, ''))
    .flatMap((line) => line.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

// A qualified name as the API server validates finalizers (apimachinery IsQualifiedName):
// optional DNS-subdomain prefix and '/', then a name of [A-Za-z0-9_.-], alphanumeric at both ends.
export const qualifiedName = new RegExp(
  `^(?:${dns1123SubdomainFormat}\\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$`,
);
