/**
 * Kubernetes label selectors, as `kubectl get -l` takes them
 * (k8s.io/apimachinery/pkg/labels/selector.go): requirements joined by commas, each one of
 * `key`, `!key`, `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`.
 */
import { dns1123SubdomainFormat } from '../kube/object-names.js';
export type LabelRequirement =
  | { readonly key: string; readonly op: 'exists' | 'not-exists' }
  | { readonly key: string; readonly op: 'in' | 'not-in'; readonly values: readonly string[] };

/** Thrown for a selector that does not parse; the message quotes the bad part. */
export class LabelSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabelSelectorError';
  }
}

// Qualified name with an optional DNS-subdomain prefix (validation.IsQualifiedName).
const keyPattern = new RegExp(
  `^(?:${dns1123SubdomainFormat}\\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`,
);
// Label value (validation.IsValidLabelValue): empty, or up to 63 alphanumerics with -_. inside.
const valuePattern = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim());
}

function checkKey(key: string, part: string): string {
  if (!keyPattern.test(key)) throw new LabelSelectorError(`'${part}': '${key}' is not a valid label key`);
  return key;
}
function checkValue(value: string, part: string): string {
  if (!valuePattern.test(value))
    throw new LabelSelectorError(`'${part}': '${value}' is not a valid label value`);
  return value;
}

/**
 * Parses a label selector. '' selects everything (no requirements).
 * @throws LabelSelectorError naming the requirement that does not parse
 */
export function parseLabelSelector(text: string): LabelRequirement[] {
  if (text.trim() === '') return [];
  return splitTopLevel(text).map((part) => {
    if (part === '') throw new LabelSelectorError(`empty requirement in '${text}'`);
    let m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
    if (m) {
      const values = m[3]!.split(',').map((v) => checkValue(v.trim(), part));
      if (values.length === 0 || (values.length === 1 && values[0] === '')) {
        throw new LabelSelectorError(`'${part}': '${m[2]}' needs at least one value`);
      }
      return { key: checkKey(m[1]!, part), op: m[2] === 'in' ? 'in' : 'not-in', values };
    }
    m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (m) {
      return {
        key: checkKey(m[1]!, part),
        op: m[2] === '!=' ? 'not-in' : 'in',
        values: [checkValue(m[3]!, part)],
      };
    }
    m = /^!\s*(\S+)$/.exec(part);
    if (m) return { key: checkKey(m[1]!, part), op: 'not-exists' };
    if (/^\S+$/.test(part)) return { key: checkKey(part, part), op: 'exists' };
    throw new LabelSelectorError(
      `'${part}' is not a label selector requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`,
    );
  });
}

/** Pure: whether `labels` satisfy every requirement (selector.go Requirement.Matches). */
export function matchesLabels(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> = {},
): boolean {
  return requirements.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case 'not-exists':
        return !has;
      case 'in':
        return has && r.values.includes(labels[r.key]!);
      case 'not-in':
        return !has || !r.values.includes(labels[r.key]!);
    }
  });
}
