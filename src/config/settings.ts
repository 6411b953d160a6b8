import parseDuration from 'parse-duration';
import { z } from 'zod';
import { InputDefaults, Inputs, type InputName } from './inputs.js';

/**
 * Read-only, validated settings. The only place that knows input names and defaults; every
 * other module takes a `Settings`. Durations are stored in milliseconds (`...Ms`).
 */
export interface Settings {
  /** `inventory`: read the whole cluster and report what was read and what could not be. */
  readonly mode: 'inventory';
  /** `existing`: use `kubeconfig`/`context`; `kind`: create (or reuse) a kind cluster. */
  readonly cluster: 'existing' | 'kind';
  /** Raw `kubeconfig` input: a path, inline YAML, base64 of either, or '' for the default chain. */
  readonly kubeconfig: string;
  /** Context to use; '' means the kubeconfig's current-context. */
  readonly context: string;
  readonly kind: {
    readonly clusterName: string;
    readonly configPath: string;
    readonly nodeImage: string;
    readonly waitMs: number;
    readonly keep: boolean;
  };
  /** Timeout of one API request, in ms. */
  readonly requestTimeoutMs: number;
  /** How many list requests run at once. */
  readonly listConcurrency: number;
  /** `limit` of one list page. */
  readonly pageSize: number;
  /** Where the JSON report is written; '' means `$RUNNER_TEMP/kube-sweep-report.json`. */
  readonly reportPath: string;
}

/** Thrown for input that cannot be used. `message` names the input, quotes the value and says the fix. */
export class InputError extends Error {
  constructor(
    readonly input: InputName,
    message: string,
  ) {
    super(message);
    this.name = 'InputError';
  }
}

/** Reads one raw input; '' when unset (the shape of core.getInput). */
export type InputReader = (name: InputName) => string;

const kindClusterName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function duration(name: InputName) {
  return z.string().transform((raw, ctx) => {
    const ms = parseDuration(raw.trim());
    if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) {
      ctx.addIssue({
        code: 'custom',
        message: `input '${name}' is '${raw}', which is not a positive duration; write it like 90s, 5m or 1h30m`,
      });
      return z.NEVER;
    }
    return Math.round(ms);
  });
}

function integer(name: InputName, min: number, max: number) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      ctx.addIssue({
        code: 'custom',
        message: `input '${name}' is '${raw}'; it takes a whole number from ${min} to ${max}`,
      });
      return z.NEVER;
    }
    return value;
  });
}

function boolean(name: InputName) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
    ctx.addIssue({ code: 'custom', message: `input '${name}' is '${raw}'; it takes true or false` });
    return z.NEVER;
  });
}

function oneOf<const T extends readonly [string, ...string[]]>(name: InputName, values: T) {
  return z.string().transform((raw, ctx) => {
    const text = raw.trim();
    if ((values as readonly string[]).includes(text)) return text as T[number];
    ctx.addIssue({
      code: 'custom',
      message: `input '${name}' is '${raw}'; it takes one of: ${values.join(', ')}`,
    });
    return z.NEVER;
  });
}

const schema = z
  .object({
    [Inputs.mode]: oneOf(Inputs.mode, ['inventory']),
    [Inputs.cluster]: oneOf(Inputs.cluster, ['existing', 'kind']),
    [Inputs.kubeconfig]: z.string(),
    [Inputs.context]: z.string().transform((s) => s.trim()),
    [Inputs.kindClusterName]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (!kindClusterName.test(text) || text.length > 50) {
        ctx.addIssue({
          code: 'custom',
          message: `input 'kind-cluster-name' is '${raw}'; use lower-case letters, digits and '-' (at most 50)`,
        });
        return z.NEVER;
      }
      return text;
    }),
    [Inputs.kindConfig]: z.string().transform((s) => s.trim()),
    [Inputs.kindNodeImage]: z.string().transform((s) => s.trim()),
    [Inputs.kindWait]: duration(Inputs.kindWait),
    [Inputs.kindKeep]: boolean(Inputs.kindKeep),
    [Inputs.requestTimeout]: duration(Inputs.requestTimeout),
    [Inputs.listConcurrency]: integer(Inputs.listConcurrency, 1, 64),
    [Inputs.pageSize]: integer(Inputs.pageSize, 1, 10000),
    [Inputs.reportPath]: z.string().transform((s) => s.trim()),
  })
  .superRefine((v, ctx) => {
    if (v.cluster === 'kind' && v.kubeconfig.trim() !== '') {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.kubeconfig],
        message:
          "inputs 'cluster: kind' and 'kubeconfig' exclude each other: kind writes its own kubeconfig; drop one",
      });
    }
    if (v.cluster !== 'kind' && (v['kind-config'] || v['kind-node-image'])) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.kindConfig],
        message: "inputs 'kind-config' and 'kind-node-image' only apply with 'cluster: kind'",
      });
    }
  });

/**
 * Parses and validates every input into `Settings`. An unset input takes its default from
 * `InputDefaults`.
 * @throws InputError for the first bad input, naming it, quoting the value and giving the fix.
 */
export function parseSettings(read: InputReader): Settings {
  const raw: Record<string, string> = {};
  for (const name of Object.values(Inputs)) {
    const value = read(name);
    raw[name] = value === '' ? InputDefaults[name] : value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const input = (issue.path[0] as InputName | undefined) ?? Inputs.mode;
    throw new InputError(input, issue.message);
  }
  const v = parsed.data;
  return Object.freeze({
    mode: v.mode,
    cluster: v.cluster,
    kubeconfig: v.kubeconfig,
    context: v.context,
    kind: Object.freeze({
      clusterName: v['kind-cluster-name'],
      configPath: v['kind-config'],
      nodeImage: v['kind-node-image'],
      waitMs: v['kind-wait'],
      keep: v['kind-keep'],
    }),
    requestTimeoutMs: v['request-timeout'],
    listConcurrency: v['list-concurrency'],
    pageSize: v['page-size'],
    reportPath: v['report-path'],
  });
}
