/**
 * Reads the five deletion conditions that kube-controller-manager's namespace controller
 * writes on a Terminating namespace (kubernetes/kubernetes
 * pkg/controller/namespace/deletion/status_condition_utils.go and
 * namespaced_resources_deleter.go). Each condition is `False` with an OK reason when nothing
 * is wrong; the messages of the `True` ones are parsed here. The lists inside each message are
 * sorted by the controller.
 */
import { conditionOf, type Condition } from './kubernetes-objects.js';
import { dns1123LabelFormat, dns1123SubdomainFormat } from '../kube/object-names.js';

/** The condition types, in the order the namespace controller evaluates them. */
export const namespaceConditionTypes = {
  discoveryFailure: 'NamespaceDeletionDiscoveryFailure',
  groupVersionParsingFailure: 'NamespaceDeletionGroupVersionParsingFailure',
  contentFailure: 'NamespaceDeletionContentFailure',
  contentRemaining: 'NamespaceContentRemaining',
  finalizersRemaining: 'NamespaceFinalizersRemaining',
} as const;

/** A group-version the namespace controller could not discover, with the error it got. */
export interface FailingGroupVersion {
  /** `metrics.k8s.io/v1beta1`. */
  readonly groupVersion: string;
  /**
   * `stale GroupVersion discovery: <gv>` (aggregated discovery, 1.26+) or `the server is
   * currently unable to handle the request` (legacy discovery), or any other error text.
   */
  readonly error: string;
}

/** `<resource>.<group> has <n> resource instances` from NamespaceContentRemaining. */
export interface RemainingResource {
  readonly resource: string;
  /** '' for the core group (the controller writes `pods.` with nothing after the dot). */
  readonly group: string;
  readonly count: number;
}

/** `<finalizer> in <n> resource instances` from NamespaceFinalizersRemaining. */
export interface RemainingFinalizer {
  readonly finalizer: string;
  readonly count: number;
}

/** What the conditions of one namespace say, parsed. */
export interface NamespaceDeletionState {
  /** The conditions whose status is `True`, in `namespaceConditionTypes` order. */
  readonly failing: readonly Condition[];
  readonly failingGroupVersions: readonly FailingGroupVersion[];
  readonly remainingResources: readonly RemainingResource[];
  readonly remainingFinalizers: readonly RemainingFinalizer[];
  /** Names of admission webhooks quoted in the ContentFailure message (`failed calling webhook "<name>"`). */
  readonly failingWebhooks: readonly string[];
}

// A DNS subdomain group, '/', a DNS label version, then ': ' (schema.GroupVersion.String() in
// discovery.ErrGroupDiscoveryFailed.Error(), entries joined with ', ').
const groupVersionEntry = new RegExp(`(?:^|, )(${dns1123SubdomainFormat}\\/${dns1123LabelFormat}): `, 'g');
const discoveryListPrefix = 'unable to retrieve the complete list of server APIs: ';

/**
 * Pure: the group-versions of a DiscoveryFailed message, `Discovery failed for some groups,
 * <n> failing: unable to retrieve the complete list of server APIs: <gv>: <err>, <gv>: <err>`.
 * Empty when the message has another form (the raw message is still evidence).
 */
export function parseDiscoveryFailure(message: string): FailingGroupVersion[] {
  const start = message.indexOf(discoveryListPrefix);
  if (start < 0) return [];
  const list = message.slice(start + discoveryListPrefix.length);
  const entries = [...list.matchAll(groupVersionEntry)];
  return entries.map((m, i) => {
    const errorStart = m.index + m[0].length;
    const errorEnd = i + 1 < entries.length ? entries[i + 1]!.index : list.length;
    return { groupVersion: m[1]!, error: list.slice(errorStart, errorEnd) };
  });
}

/** Pure: `Some resources are remaining: widgets.example.com has 1 resource instances, pods. has 2 ...`. */
export function parseRemainingResources(message: string): RemainingResource[] {
  return [...message.matchAll(/([a-z0-9-]+)\.([a-z0-9.-]*) has (\d+) resource instances/g)].map((m) => ({
    resource: m[1]!,
    group: m[2]!,
    count: Number(m[3]),
  }));
}

/**
 * Pure: `Some content in the namespace has finalizers remaining: example.com/cleanup in 2
 * resource instances, ...` (older builds: `Some finalizers are remaining: ...`).
 */
export function parseRemainingFinalizers(message: string): RemainingFinalizer[] {
  const list = message.slice(message.indexOf(': ') + 2);
  return [...list.matchAll(/(?:^|, )(\S+) in (\d+) resource instances/g)].map((m) => ({
    finalizer: m[1]!,
    count: Number(m[2]),
  }));
}

/**
 * Pure: webhook names in an admission error of the API server, as a ContentDeletionFailed
 * condition or a refused request quotes it: `failed calling webhook "<name>"` (the call failed:
 * no backend, a timeout) and `admission webhook "<name>" denied the request` (its backend
 * answered no); k8s.io/apiserver pkg/admission/plugin/webhook/errors.
 */
export function parseFailingWebhooks(message: string): string[] {
  const named = [...message.matchAll(/(?:failed calling webhook|admission webhook) "([^"]+)"/g)];
  return [...new Set(named.map((m) => m[1]!))].sort();
}

const isTrue = (c: Condition | undefined): c is Condition => c?.status === 'True';

/** Pure: reads all five conditions of a namespace (missing conditions count as not failing). */
export function readNamespaceDeletionState(
  conditions: readonly Condition[] | undefined,
): NamespaceDeletionState {
  const t = namespaceConditionTypes;
  const failing = Object.values(t)
    .map((type) => conditionOf(conditions, type))
    .filter(isTrue);
  const message = (type: string) => failing.find((c) => c.type === type)?.message ?? '';
  return {
    failing,
    failingGroupVersions: parseDiscoveryFailure(message(t.discoveryFailure)),
    remainingResources: parseRemainingResources(message(t.contentRemaining)),
    remainingFinalizers: parseRemainingFinalizers(message(t.finalizersRemaining)),
    failingWebhooks: parseFailingWebhooks(message(t.contentFailure)),
  };
}

/** `Type=True (Reason): message`, the way evidence quotes a condition. */
export function describeCondition(c: Condition): string {
  return `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`;
}
