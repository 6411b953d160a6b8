import type { RefusedRequest } from '../kube/refusal.js';

/**
 * Remediation actions as data: what `remediate: safe` may do, decided by plan-remediation.ts
 * (pure) and carried out by apply-remediation.ts (the requests).
 */

/** The object a finalizer is removed from (enough to build its API path). */
export interface FinalizerTarget {
  readonly apiVersion: string;
  readonly kind: string;
  /** Plural resource name as listed (`configmaps`, `widgets`). */
  readonly resource: string;
  readonly namespace?: string;
  readonly name: string;
}

/**
 * One action. `because` holds the keys of the findings that justify it (rules/findings.ts).
 * - `delete-apiservice`: an APIService whose backend Service or its namespace is gone (S01);
 * - `delete-webhook-configuration`: a webhook configuration every webhook of which calls a
 *   Service (or namespace) that is gone (S04, S05);
 * - `recreate-namespace` / `delete-namespace`: a namespace that no longer exists but still
 *   stores objects is created again and then deleted, so that the namespace controller deletes
 *   its objects (S10);
 * - `remove-finalizer`: one named finalizer (`force-remove-finalizers`) from one object.
 */
export type RemediationAction =
  | { readonly type: 'delete-apiservice'; readonly name: string; readonly because: readonly string[] }
  | {
      readonly type: 'delete-webhook-configuration';
      readonly kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
      readonly name: string;
      readonly because: readonly string[];
    }
  | { readonly type: 'recreate-namespace'; readonly namespace: string; readonly because: readonly string[] }
  | {
      readonly type: 'remove-finalizer';
      readonly object: FinalizerTarget;
      readonly finalizer: string;
      readonly because: readonly string[];
    }
  | { readonly type: 'delete-namespace'; readonly namespace: string; readonly because: readonly string[] };

/** A finding that a remedy exists for but that kube-sweep leaves alone, and why. */
export interface SkippedRemediation {
  readonly finding: string;
  readonly reason: string;
}

/**
 * What happened to one action. `failed` makes the run's verdict `error`; `refused` (the API
 * server refused the request: RBAC, admission, quota) is a result: `refusal` holds the
 * server's answer, and the scan after it reports it as a DeletionRefused finding.
 */
export interface RemediationResult {
  readonly action: RemediationAction;
  /** One line: what was done (`delete APIService v1.x.example.com`). */
  readonly description: string;
  /** The request sent (`DELETE /apis/...`), for the log and the report. */
  readonly request: string;
  readonly status: 'done' | 'failed' | 'refused';
  readonly message: string;
  /** For `refused`: the request and the server's answer. */
  readonly refusal?: RefusedRequest;
}

/** The remediation part of the report. */
export interface RemediationReport {
  readonly mode: 'safe';
  readonly results: readonly RemediationResult[];
  readonly skipped: readonly SkippedRemediation[];
  readonly counts: {
    readonly done: number;
    readonly failed: number;
    readonly skipped: number;
    /** Actions the API server refused (absent in reports written before it was counted). */
    readonly refused?: number;
  };
  /** How many findings the scan before remediation reported (the report's findings are from the re-scan). */
  readonly findingsBefore: number;
}

/** One line describing an action. */
export function describeAction(a: RemediationAction): string {
  switch (a.type) {
    case 'delete-apiservice':
      return `delete APIService ${a.name} (its backend is gone)`;
    case 'delete-webhook-configuration':
      return `delete ${a.kind} ${a.name} (every webhook in it calls a backend that is gone)`;
    case 'recreate-namespace':
      return `create namespace ${a.namespace} again (it is gone but still stores objects)`;
    case 'remove-finalizer':
      return `remove finalizer ${a.finalizer} from ${a.object.resource} ${a.object.namespace ? `${a.object.namespace}/` : ''}${a.object.name}`;
    case 'delete-namespace':
      return `delete namespace ${a.namespace} so that the namespace controller deletes what it stores`;
  }
}
