/**
 * Defaults of every action input, and the names of the outputs and the post step's state, in one
 * place (the input names themselves are in words/input-words.ts, a leaf every stage may import;
 * `action.yml` declares the same names; `__tests__/unit/config/action-yml.test.ts` keeps them in step).
 */
import type { InputName } from '../words/input-words.js';

/** Default values, as strings exactly as a user would write them in a workflow. */
export const InputDefaults: Record<InputName, string> = {
  mode: 'teardown',
  reports: '',
  environments: '',
  'environment-label': '',
  'older-than': '',
  'pr-state': '',
  'abandoned-label': '',
  'keep-label': '',
  'max-environments': '10',
  'reap-concurrency': '3',
  namespaces: '',
  selector: '',
  releases: '',
  protect: '',
  'max-namespaces': '25',
  'require-match': 'false',
  'delete-namespaces': 'true',
  'dry-run': 'false',
  order: '',
  timeout: '15m',
  'stage-timeout': '5m',
  helm: 'helm',
  'uninstall-concurrency': '4',
  'uninstall-mode': 'auto',
  'await-predicted-hangs': 'false',
  'scan-scope': '',
  'fail-on': 'error',
  'fail-on-new': 'false',
  baseline: '',
  'stuck-after': '5m',
  ignore: '',
  remediate: 'none',
  'force-remove-finalizers': '',
  'etcd-endpoint': '',
  'etcd-tls': '',
  cluster: 'existing',
  kubeconfig: '',
  context: '',
  'cluster-name': '',
  'kind-cluster-name': 'kube-sweep',
  'kind-config': '',
  'kind-node-image': '',
  'kind-wait': '60s',
  'kind-keep': 'false',
  'request-timeout': '30s',
  'list-concurrency': '8',
  'page-size': '500',
  'report-path': '',
  'pr-comment': 'false',
  'check-run': 'false',
  'github-token': '',
  'publish-server': 'false',
};

/**
 * Defaults that action.yml takes from a runner expression instead of `InputDefaults` (the
 * runner evaluates them; outside a runner the value comes from elsewhere: the CLI reads
 * `github-token` from GITHUB_TOKEN).
 */
export const RunnerDefaults: Partial<Record<InputName, string>> = {
  'github-token': '${{ github.token }}',
};

export const Outputs = {
  verdict: 'verdict',
  releasesUninstalled: 'releases-uninstalled',
  blockers: 'blockers',
  stuckNamespaces: 'stuck-namespaces',
  matchedNamespaces: 'matched-namespaces',
  errors: 'errors',
  warnings: 'warnings',
  findings: 'findings',
  suppressed: 'suppressed',
  remediated: 'remediated',
  objectCount: 'object-count',
  coverageGaps: 'coverage-gaps',
  reportPath: 'report-path',
  kubeconfigPath: 'kubeconfig-path',
  newFindings: 'new-findings',
  resolvedFindings: 'resolved-findings',
  reaped: 'reaped',
  kept: 'kept',
  failed: 'failed',
} as const;

/** Keys of the state the main step hands to the post step (core.saveState / core.getState). */
export const State = {
  kindClusterCreated: 'kind-cluster-created',
  kindClusterName: 'kind-cluster-name',
  kindKeep: 'kind-keep',
  isPost: 'is-post',
} as const;

/** The commands of the CLI, which are the values of the `mode` input. */
export const modeNames = ['teardown', 'plan', 'scan', 'inventory', 'reap', 'merge'] as const;

/** A mode: the `mode` input's value, the CLI's command word. */
export type ModeName = (typeof modeNames)[number];
