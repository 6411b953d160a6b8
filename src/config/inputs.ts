/**
 * Names and defaults of every action input and output, in one place (the `action.yml`
 * declares the same names; `__tests__/unit/config/action-yml.test.ts` keeps them in step).
 */
export const Inputs = {
  mode: 'mode',
  reports: 'reports',
  environments: 'environments',
  environmentLabel: 'environment-label',
  olderThan: 'older-than',
  prState: 'pr-state',
  abandonedLabel: 'abandoned-label',
  keepLabel: 'keep-label',
  maxEnvironments: 'max-environments',
  reapConcurrency: 'reap-concurrency',
  namespaces: 'namespaces',
  selector: 'selector',
  releases: 'releases',
  protect: 'protect',
  maxNamespaces: 'max-namespaces',
  deleteNamespaces: 'delete-namespaces',
  dryRun: 'dry-run',
  order: 'order',
  timeout: 'timeout',
  stageTimeout: 'stage-timeout',
  helm: 'helm',
  uninstallConcurrency: 'uninstall-concurrency',
  uninstallMode: 'uninstall-mode',
  awaitPredictedHangs: 'await-predicted-hangs',
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
  publishServer: 'publish-server',
} as const;

export type InputName = (typeof Inputs)[keyof typeof Inputs];

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

/*
 * Words that name an input, as data. A message that names an input writes it with one of the
 * functions below; each face renders it in its own words (report/face.ts `inFaceTerms`): the
 * action's (`input 'stage-timeout'`, `'cluster: kind'`) or the CLI's (`--stage-timeout`,
 * `--cluster kind`). The words travel inside the message string between private-use
 * characters (U+E000 action U+E001 cli U+E002), which no cluster object, input or prose holds
 * and which every face removes; a renderer never guesses an input name from the prose.
 */
const wordsOpen = '\uE000';
const wordsMiddle = '\uE001';
const wordsClose = '\uE002';

/** The marks `byFace` puts in a string: `[action words, cli words]` per match. */
const faceWordsPattern = /\uE000([^\uE000-\uE002]*)\uE001([^\uE000-\uE002]*)\uE002/g;

/**
 * Pure: words that differ by face, carried in a message: `action` for the action's readers,
 * `cli` for the CLI's. Neither may hold U+E000 to U+E002 (they are removed if they do).
 */
export function byFace(action: string, cli: string): string {
  const clean = (s: string) => s.replace(/[\uE000-\uE002]/g, '');
  return `${wordsOpen}${clean(action)}${wordsMiddle}${clean(cli)}${wordsClose}`;
}

/** Pure: an input named as the subject of a sentence: `input 'helm'` (action) or `--helm` (CLI). */
export function inputWord(name: InputName): string {
  return byFace(`input '${name}'`, `--${name}`);
}

/** Pure: an input named in passing: `'timeout'` (action) or `--timeout` (CLI). */
export function inputRef(name: InputName): string {
  return byFace(`'${name}'`, `--${name}`);
}

/** Pure: an input with a value: `'remediate: safe'` (action) or `--remediate safe` (CLI). */
export function inputSet(name: InputName, value: string): string {
  return byFace(`'${name}: ${value}'`, `--${name} ${value}`);
}

/** Pure: an input left empty: `input 'x' is empty` (action) or `--x is not given` (CLI). */
export function inputEmpty(name: InputName): string {
  return byFace(`input '${name}' is empty`, `--${name} is not given`);
}

/** Pure: `message` with every `byFace` mark replaced by the words of `face`. */
export function renderFaceWords(face: 'action' | 'cli', message: string): string {
  return message.replace(faceWordsPattern, (_m, action: string, cli: string) =>
    face === 'cli' ? cli : action,
  );
}
