/**
 * Names and defaults of every action input and output, in one place (the `action.yml`
 * declares the same names; `__tests__/unit/config/action-yml.test.ts` keeps them in step).
 */
export const Inputs = {
  mode: 'mode',
  namespaces: 'namespaces',
  selector: 'selector',
  releases: 'releases',
  deleteNamespaces: 'delete-namespaces',
  dryRun: 'dry-run',
  order: 'order',
  timeout: 'timeout',
  stageTimeout: 'stage-timeout',
  helm: 'helm',
  uninstallConcurrency: 'uninstall-concurrency',
  uninstallMode: 'uninstall-mode',
  scanScope: 'scan-scope',
  failOn: 'fail-on',
  failOnNew: 'fail-on-new',
  baseline: 'baseline',
  stuckAfter: 'stuck-after',
  ignore: 'ignore',
  remediate: 'remediate',
  forceRemoveFinalizers: 'force-remove-finalizers',
  etcdEndpoint: 'etcd-endpoint',
  etcdTls: 'etcd-tls',
  cluster: 'cluster',
  kubeconfig: 'kubeconfig',
  context: 'context',
  clusterName: 'cluster-name',
  kindClusterName: 'kind-cluster-name',
  kindConfig: 'kind-config',
  kindNodeImage: 'kind-node-image',
  kindWait: 'kind-wait',
  kindKeep: 'kind-keep',
  requestTimeout: 'request-timeout',
  listConcurrency: 'list-concurrency',
  pageSize: 'page-size',
  reportPath: 'report-path',
  prComment: 'pr-comment',
  checkRun: 'check-run',
  githubToken: 'github-token',
} as const;

export type InputName = (typeof Inputs)[keyof typeof Inputs];

/** Default values, as strings exactly as a user would write them in a workflow. */
export const InputDefaults: Record<InputName, string> = {
  mode: 'teardown',
  namespaces: '',
  selector: '',
  releases: '',
  'delete-namespaces': 'true',
  'dry-run': 'false',
  order: '',
  timeout: '15m',
  'stage-timeout': '5m',
  helm: 'helm',
  'uninstall-concurrency': '4',
  'uninstall-mode': 'auto',
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
} as const;

/** Keys of the state the main step hands to the post step (core.saveState / core.getState). */
export const State = {
  kindClusterCreated: 'kind-cluster-created',
  kindClusterName: 'kind-cluster-name',
  kindKeep: 'kind-keep',
  isPost: 'is-post',
} as const;
