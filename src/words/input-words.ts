/**
 * The words of the inputs, a leaf every stage may import: the input names (`Inputs`) and the
 * words a message uses to name an input, which each face renders its own way (`byFace`,
 * `inputWord`, `inputRef`, `inputSet`, `inputEmpty`, `renderFaceWords`). It imports nothing of
 * the project, so a stage that names an input in a message does not import config/ (which reads
 * the inputs and imports the stages' parsers). Defaults, outputs and state stay in
 * config/inputs.ts; `action.yml` declares the same names
 * (`__tests__/unit/config/action-yml.test.ts` keeps them in step).
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
  requireMatch: 'require-match',
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
