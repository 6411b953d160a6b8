import { groupOf } from '../kube/api-version.js';
import type { RefusedRequest } from '../kube/refusal.js';
import type { Inventory } from '../inventory/snapshot.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { objectIdentity } from './link.js';
import type { Rule, RuleContext } from './rule.js';
import { capLines, wasListed } from './snapshot-views.js';
import { isDns1123Label } from '../kube/object-names.js';

const rule = 'deletion-refused';

/** What each step was doing, for the message. */
const stepWords: Readonly<Record<RefusedRequest['step'], string>> = {
  'delete-namespace': 'deletion of',
  'delete-object': 'deletion (without Helm, uninstall-mode auto) of',
  'empty-namespace': 'emptying (deletecollection) of',
  remediation: 'remediation (remediate: safe) of',
};

/** The plural resource a request path names (`/api/v1/namespaces/a/configmaps/x` → configmaps). */
function resourceOfPath(request: string, collection: boolean): string {
  const parts = request.split(' ').slice(1).join(' ').split('?')[0]!.split('/');
  return parts[parts.length - (collection ? 1 : 2)] ?? '';
}

/**
 * Whether the refused request's object is still in the snapshot taken after the run: a
 * Namespace by name; another object by identity when its resource was listed (unlisted: taken
 * as still there, the finding must not say it went).
 */
function stillThere(r: RefusedRequest, inventory: Inventory): boolean {
  const o = r.object;
  if (o.kind === 'Namespace' && o.apiVersion === 'v1') return inventory.namespaceNames.has(o.name);
  const resource = resourceOfPath(r.request, false);
  if (!wasListed(inventory, groupOf(o.apiVersion), resource)) return true;
  const id = objectIdentity(o);
  return inventory.objects.some((x) => objectIdentity(x) === id);
}

/** The commands: what to look at, then the delete once allowed (names only when plainly safe). */
function commandsFor(refusals: readonly RefusedRequest[]): string[] {
  const o = refusals[0]!.object;
  const namespace = o.kind === 'Namespace' && o.apiVersion === 'v1' ? o.name : undefined;
  const safe = namespace !== undefined && isDns1123Label(namespace);
  return [
    "# the server's message (evidence) names what refused: an RBAC rule ('cannot delete'), a ValidatingAdmissionPolicy and its binding, an admission webhook, or a quota",
    ...(namespace !== undefined ? ['kubectl auth can-i delete namespaces'] : []),
    'kubectl get validatingadmissionpolicies,validatingadmissionpolicybindings,validatingwebhookconfigurations',
    ...(safe && refusals[0]!.step === 'delete-namespace'
      ? [
          '# once the deletion is allowed (or as an identity that may), delete it and let the namespace controller finish:',
          `kubectl delete namespace ${namespace}`,
        ]
      : []),
  ];
}

/** One finding for a group of refusals about the same object and step (the first one is quoted). */
function findingOf(refusals: readonly RefusedRequest[], inventory: Inventory, context: RuleContext): Finding {
  const first = refusals[0]!;
  const o = first.object;
  const label = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
  const there = stillThere(first, inventory);
  const collections = first.step === 'empty-namespace';
  const what = collections ? `${refusals.length} collection(s) of ${label}` : label;
  return buildFinding(
    rule,
    'DeletionRefused',
    {
      object: o,
      subject: `refused ${first.step} ${objectIdentity(o)}`,
      // Remediation acts only within the scope (plan-remediation.ts): its refusals concern the environment.
      namespaces: [
        o.namespace ?? (o.kind === 'Namespace' ? o.name : undefined),
        first.environmentNamespace,
        ...(first.step === 'remediation' ? context.environmentNamespaces : []),
      ],
      severity: !there ? 'info' : collections ? 'warning' : 'error',
      message:
        `The API server refused kube-sweep's ${stepWords[first.step]} ${what} (HTTP ${first.status}${first.reason ? ` ${first.reason}` : ''}): ${first.message}` +
        (first.status >= 500
          ? ' (a failure of the server that its retries did not get past, such as an admission webhook with failurePolicy Fail whose backend times out or cannot be reached)'
          : '') +
        (there
          ? collections
            ? '; the namespace controller deletes them instead, if it may'
            : `; ${label} is still there`
          : `; ${label} is gone anyway (deleted by someone allowed to)`),
      evidence: capLines(
        refusals.map((r) => `${r.request}: HTTP ${r.status}${r.reason ? ` ${r.reason}` : ''}: ${r.message}`),
      ),
      remediation: {
        summary:
          'Check what refused the request (the message names an RBAC rule, an admission policy or webhook, or a quota) and allow the deletion, or delete the object as an identity that may; then run kube-sweep again.',
        commands: commandsFor(refusals),
      },
    },
    context,
  );
}

/**
 * deletion-refused: a request of kube-sweep's own to delete (or, in remediation, patch) an
 * object that the API server refused during this run (`context.refusals`: RBAC 403, an
 * admission policy's or webhook's denial, a quota; for a teardown's DELETE, also a 5xx such as a
 * failing webhook's 500: cluster/refusal.ts `isFailedDeletion`), which the teardown recorded and went past.
 * Refusals of the same step about the same object are one finding (a namespace's refused
 * deletecollections). Severity error while the object is still there in the snapshot after the
 * run; warning for a namespace's refused emptying (the namespace controller, with its own
 * identity, may still delete its content); info when the object is gone anyway. Reads no
 * object of the snapshot but to tell whether the refused object is still there.
 */
export const deletionRefusedRule: Rule = {
  name: rule,
  title: 'Deletions the API server refused during the run',
  codes: ['DeletionRefused'],
  check(inventory, context) {
    const groups = new Map<string, RefusedRequest[]>();
    for (const r of context.refusals ?? []) {
      const key = `${r.step} ${objectIdentity(r.object)}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    return [...groups.values()].map((g) => findingOf(g, inventory, context));
  },
};
