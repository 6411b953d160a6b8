import type { ModeName } from './inputs.js';
import { inputRef, inputSet, type InputName } from '../words/input-words.js';

/**
 * What one input means, in one place: action.yml's `description` of the input is
 * `summary` + ' ' + `details` in the action's words (`npm run action-yml` writes it;
 * `__tests__/unit/config/action-yml.test.ts` checks it), and the CLI's help shows the
 * `summary` in the CLI's words beside the flag, under the `commands` that read it.
 */
export interface InputDoc {
  /** One sentence, at most 80 characters: what the input is (the CLI help's line). */
  readonly summary: string;
  /** The rest of action.yml's description; '' when the summary says it all. */
  readonly details: string;
  /** The modes (CLI commands) whose run reads the input; empty for `mode` itself. */
  readonly commands: readonly ModeName[];
}

/** The modes that open a cluster (all but merge). */
const all: readonly ModeName[] = ['teardown', 'plan', 'scan', 'inventory', 'reap'];
/** Every mode: what writes or publishes the report. */
const every: readonly ModeName[] = [...all, 'merge'];
const scoped: readonly ModeName[] = ['teardown', 'plan', 'scan'];
const judged: readonly ModeName[] = ['teardown', 'plan', 'scan', 'reap'];
const planned: readonly ModeName[] = ['teardown', 'plan', 'reap'];
const teardown: readonly ModeName[] = ['teardown', 'reap'];
const acting: readonly ModeName[] = ['teardown', 'scan', 'reap'];
const reap: readonly ModeName[] = ['reap'];

const kind = inputSet('cluster', 'kind');

/** Every input's documentation (see InputDoc). */
export const InputDocs: Readonly<Record<InputName, InputDoc>> = {
  mode: {
    summary: 'What to do: teardown, plan, scan, inventory, reap or merge.',
    details: `\`teardown\`: uninstall the releases in scope stage by stage, wait until their objects are gone, delete the scoped namespaces. \`plan\`: show that plan and change nothing. \`scan\`: find leftovers and orphans (a scheduled hygiene job). \`inventory\`: read the whole cluster and report what was read and what could not be. \`reap\`: find the environments (${inputRef('environments')}, ${inputRef('environment-label')}) and tear down the abandoned ones (${inputRef('older-than')}, ${inputRef('pr-state')}, ${inputRef('abandoned-label')}), each on its own. \`merge\`: merge the report files ${inputRef('reports')} names into one fleet summary.`,
    commands: [],
  },
  reports: {
    summary: 'The report files to merge, as globs (reports/**/*.json).',
    details:
      'With mode merge: one per line or comma-separated, relative to the working folder, e.g. where actions/download-artifact put the reports of a matrix of scans. A file that is cut short, is not a report or has a schemaVersion this version does not read is named in the summary and makes the verdict `partial`. Globs that match no file are an error, and so is a `report-path` that they match (the merge would read its own report).',
    commands: ['merge'],
  },
  environments: {
    summary: 'Namespace patterns with one {id} each (pr-{id}-*): one environment per id.',
    details: `With mode reap: namespaces whose names match and share the id form one environment. \`*\` and \`?\` as in globs; the id is lowercase letters, digits and inner dashes (with ${inputSet('pr-state', 'closed')}, the pull request number). A pattern with no literal character besides \`{id}\` (\`{id}\`, \`*{id}\`: an empty variable before it) is refused: it would make every namespace an environment.`,
    commands: reap,
  },
  'environment-label': {
    summary: 'A namespace label whose value is the environment id (preview-id).',
    details: `With mode reap: for namespaces no ${inputRef('environments')} pattern matches.`,
    commands: reap,
  },
  'older-than': {
    summary: 'Abandoned when all its namespaces are older than this (7d, 36h).',
    details:
      "With mode reap: by creationTimestamp; a namespace with kube-janitor's `janitor/ttl` or `janitor/expires`, or `kube-sweep.io/expires-at` (RFC 3339), expires by that annotation instead. Empty: the annotations decide alone (an environment expires when every namespace carries one that is past). An annotation that cannot be read keeps the environment.",
    commands: reap,
  },
  'pr-state': {
    summary: 'closed: abandoned when its pull request (the id) is closed or merged.',
    details: `With mode reap: read through the GitHub API with ${inputRef('github-token')} (open pull requests listed page by page, then one request per other id at most, once per run); a pull request that cannot be read keeps its environment.`,
    commands: reap,
  },
  'abandoned-label': {
    summary: 'A namespace label (key or key=value) that makes its environment abandoned.',
    details: '',
    commands: reap,
  },
  'keep-label': {
    summary: 'A pull request label that keeps its environment.',
    details: `With mode reap: read with ${inputRef('github-token')}. Environments are also kept when a namespace is protected (see ${inputRef('protect')}) or labelled \`kube-sweep.io/keep=true\`.`,
    commands: reap,
  },
  'max-environments': {
    summary: 'The most abandoned environments one reap tears down (1-1000).',
    details:
      'With mode reap: when more are abandoned, nothing is reaped: the run lists them and fails (verdict `error`).',
    commands: reap,
  },
  'reap-concurrency': {
    summary: 'How many environments are torn down at once (1-32).',
    details: 'With mode reap: each with its own plan, stages and verdict.',
    commands: reap,
  },
  namespaces: {
    summary: "The environment's namespaces: names or globs (pr-12, pr-12-*).",
    details: `One per line or comma-separated. For \`teardown\` (and \`plan\`, which says what a teardown would do) a pattern with no literal character (\`*\`, \`?*\`, \`[a-z]*\`, \`**\`) is refused before any change. Protected namespaces are never in scope even when a pattern matches them (see ${inputRef('protect')}).`,
    commands: scoped,
  },
  selector: {
    summary: 'A namespace label selector (env=pr-12, team in (a,b)).',
    details: `With ${inputRef('namespaces')} it narrows them: a namespace is in scope when its name matches a pattern AND its labels match the selector. Alone it selects the namespaces whose labels match; for \`teardown\` and \`plan\` a selector alone that is only negative (\`!key\`, \`key!=value\`, \`notin\`), that matches every namespace of the cluster (\`kubernetes.io/metadata.name\`), or whose positive requirements each match every namespace (\`kubernetes.io/metadata.name,!legacy\`) is refused before any change.`,
    commands: scoped,
  },
  releases: {
    summary: 'Helm releases to tear down, as namespace/name.',
    details:
      'One `namespace/name` per line or comma-separated. Empty: every release in the scoped namespaces.',
    commands: scoped,
  },
  protect: {
    summary: 'More namespaces kube-sweep must never touch: names or globs.',
    details: `One per line or comma-separated. Always protected besides: kube-system, kube-public, kube-node-lease, default, every kube-* namespace, and namespaces labelled kube-sweep.io/protected=true. A protected namespace is never deleted or emptied, its releases are never uninstalled, its objects are never deleted or changed by kube-sweep (teardown, ${inputSet('uninstall-mode', 'auto')}, remediate); a teardown whose releases would delete an object there is refused before any change. Before each delete a teardown reads the namespace again and applies the same check, so a namespace labelled protected after the plan was made is not deleted either (its result is \`protected\`, and the verdict is not clean).`,
    commands: judged,
  },
  'max-namespaces': {
    summary: 'The most namespaces a teardown (or plan) may have in scope (1-100000).',
    details:
      'More is refused before any change, naming the count and the first names. Raise it when a scope that large is meant.',
    commands: planned,
  },
  'require-match': {
    summary: 'Fail when a namespaces pattern or the selector matches no namespace.',
    details: `\`true\`: a teardown, plan or scan whose ${inputRef('namespaces')} has a pattern that matches no namespace, or whose ${inputRef('selector')} leaves nothing in scope, stops before any change with verdict \`error\`, naming the pattern (a typo must not pass). \`false\`: such a run goes on with what did match; a teardown that matched nothing passes and says so in its headline (\`passed: the scope matched no namespace\`), so that a rerun on an environment already gone passes. Either way the \`matched-namespaces\` output holds how many namespaces were in scope.`,
    commands: planned,
  },
  'delete-namespaces': {
    summary: 'Delete the scoped namespaces and wait until they are gone.',
    details:
      'Each is deleted as soon as the releases of the last stage touching it are removed (a namespace no release touches: after the last stage).',
    commands: planned,
  },
  'dry-run': {
    summary: 'Read, plan and check everything, then report what would be deleted.',
    details:
      "With mode teardown (and reap, for each abandoned environment): no create, update, patch or delete request is sent. It names the releases the teardown would skip, and why: those whose custom resources the snapshot foretells would outlive their deletion. The verdict is `planned`, never `clean`. With mode scan and `remediate: safe` it is refused: a scan's remediation has no dry run (`remediate: none` shows the findings and their remedies without acting).",
    commands: teardown,
  },
  order: {
    summary: 'Extra ordering constraints: `app -> operator` tears app down first.',
    details:
      'One per line (release names or namespace/name). Merged with the order kube-sweep derives from CRDs, webhooks and APIServices; a cycle is an error.',
    commands: planned,
  },
  timeout: {
    summary: 'Budget of the whole teardown (a duration).',
    details: `For example 15m; at most 24d20h31m23s, the longest timer Node.js sets. It bounds the whole step from the first request: the reads before the teardown, the stages, the namespace wait and the retries of every request (no retry, Retry-After wait or outage wait starts past it; a request after it gets one try, and what it could not read again is a coverage gap, not a wait). When it is shorter than the default ${inputRef('stage-timeout')} and ${inputRef('stage-timeout')} is unset, each stage gets the whole ${inputRef('timeout')} (the log says so).`,
    commands: teardown,
  },
  'stage-timeout': {
    summary: 'Budget of one stage, from its start (a duration).',
    details: `For example 5m; at most 24d20h31m23s. Its custom-resource wait, \`helm uninstall\`s and wait for its objects share it; also the budget of the namespace wait and of a remediation's waits. Never past ${inputRef('timeout')}; a ${inputRef('stage-timeout')} set above ${inputRef('timeout')} is refused.`,
    commands: acting,
  },
  helm: {
    summary: 'The Helm executable (Helm 3 or 4): a name on PATH or a path.',
    details:
      'A teardown (dry run included) whose scope holds a release runs `helm version` first and stops before any change when it fails or is not Helm 3 or 4; a scope with no release needs no helm.',
    commands: teardown,
  },
  'uninstall-concurrency': {
    summary: 'How many `helm uninstall` run at once within a stage (1-32).',
    details: '',
    commands: teardown,
  },
  'uninstall-mode': {
    summary: 'How releases are removed: auto (with their namespace when it can) or helm.',
    details:
      "`auto`: a release with no pre-delete or post-delete hook whose record's namespace this teardown deletes at the end of its stage, and whose kinds are all served, is removed with that namespace, unless a release touching the namespace must go through Helm or is skipped. Its namespaced objects in namespaces deleted then go with them; kube-sweep first deletes its other objects itself, in Helm's uninstall order, except those with a `helm.sh/resource-policy` annotation. Every other release goes through `helm uninstall`. `helm`: every release goes through `helm uninstall`. Either way each deleted namespace is emptied as soon as its deletion is accepted.",
    commands: teardown,
  },
  'await-predicted-hangs': {
    summary: 'Wait for objects predicted to hang (true), or look at them once (false).',
    details:
      "The plan predicts, from the snapshot taken before any change, which objects will hang: a finalizer whose controller does not run, a deletion already stuck past the stage budget. `false`: a teardown looks at each such object once and does not spend a stage's budget waiting for it while its finalizers are those the snapshot saw; a namespace that holds one is looked at, not awaited; an object a wait already waited out is not awaited again by a later stage. Each is reported (`waitsSkipped`, the namespace's `waitSkipped`). `true`: every object is awaited in each stage and in the namespace wait, as before.",
    commands: teardown,
  },
  'scan-scope': {
    summary: 'Which findings the scan reports: environment or cluster.',
    details:
      '`environment`: the scoped namespaces, what backs them, and what blocks them wherever it is (a CRD whose instances live there, a webhook or APIService whose backend Service is there, the cause of what they hold); `cluster`: everything. Empty: `cluster` for a scan that names no scope, else `environment` (a scan with `namespaces`, `selector` or `releases` reports that scope, as `kubectl -n` does).',
    commands: scoped,
  },
  'fail-on': {
    summary: 'Findings that fail the run: a severity, finding codes, both, or never.',
    details:
      "A severity (`error`, `warning`, `info`) means that and worse; codes are listed in docs/finding-codes.md. An object a teardown left behind fails the run whatever its findings' severity, unless this is `never` or `ignore` suppresses every finding that explains it. A run that passes with findings says so in its headline (`passed: 3 findings below the fail-on policy`), never `clean`; a run that could not do its job (`error`, a release not uninstalled) or read everything (`partial`) still fails.",
    commands: [...judged, 'merge'],
  },
  'fail-on-new': {
    summary: `Only findings new against ${inputRef('baseline')} fail the run.`,
    details: `Findings still there from the baseline are reported but do not fail it (${inputRef('fail-on')} still chooses which new ones fail). Without ${inputRef('baseline')} every finding is new.`,
    commands: [...judged, 'merge'],
  },
  baseline: {
    summary: 'Path of the JSON report of an earlier run, to compare with.',
    details: `Its ${inputRef('report-path')} file, e.g. restored with actions/cache or downloaded as an artifact. Each finding is marked \`new\` or \`still\` and the baseline findings that are gone are listed as \`resolved\`, by identity: the code and the object UID, else the code, kind, namespace and name. The summary opens with what is new and what was resolved. A file that cannot be read or is not a report stops the run before the cluster is touched, and so does a ${inputRef('report-path')} that is this same file (write each run's report to a new file). Empty: no comparison.`,
    commands: judged,
  },
  'stuck-after': {
    summary: 'How long a deletion may take before the scan calls it stuck (a duration).',
    details: 'Deletions of namespaces, finalizers and CRDs.',
    commands: judged,
  },
  ignore: {
    summary: 'Findings to suppress (counted in the report), as a YAML list.',
    details:
      'Entries with any of: code, kind, namespace, name (globs) and selector (labels), e.g. `- {code: StuckFinalizer, namespace: "ci-*"}`. An entry that would hide every finding (empty, or only globs with no literal character such as `{code: "*"}`) is refused.',
    commands: judged,
  },
  remediate: {
    summary: 'none: report only; safe: fix what is safe to fix, then scan again.',
    details: `\`safe\`: after the scan, delete APIServices and admission webhook configurations whose backend Service or namespace is gone, create a missing namespace that still stores objects and delete it properly, remove the finalizers named in ${inputRef('force-remove-finalizers')}; only within the scope of the inputs; then scan again. Every action is logged and reported.`,
    commands: acting,
  },
  'force-remove-finalizers': {
    summary: `Finalizer names ${inputSet('remediate', 'safe')} may remove from stuck objects.`,
    details:
      'One per line or comma-separated; only from in-scope objects a StuckFinalizer/OperatorGoneFinalizer finding reports. Removing a finalizer skips its cleanup: name only finalizers whose controller is gone for good.',
    commands: acting,
  },
  'etcd-endpoint': {
    summary: 'Optional, read-only: an etcd client URL (http://127.0.0.1:2379).',
    details:
      'kube-sweep then reads the keys under /registry/ and reports custom-resource data no CRD serves (OrphanedCRDataInEtcd). Empty: etcd is not read.',
    commands: all,
  },
  'etcd-tls': {
    summary: `For an https ${inputRef('etcd-endpoint')}: CA, client certificate, client key.`,
    details: 'Three PEM file paths, comma-separated.',
    commands: all,
  },
  cluster: {
    summary: 'existing: the kubeconfig and context; kind: create a kind cluster.',
    details: `\`existing\`: use ${inputRef('kubeconfig')}/${inputRef('context')}. \`kind\`: create a kind cluster named ${inputRef('kind-cluster-name')} (or reuse one of that name) and delete it in the post step.`,
    commands: all,
  },
  kubeconfig: {
    summary: 'A kubeconfig: a file path, the YAML itself, or base64 of either.',
    details:
      'Empty: $KUBECONFIG, then ~/.kube/config. Its credentials are masked, and so are exec-plugin env values and auth-provider config values of 8 or more characters; exec-plugin and tokenFile tokens are obtained again when they expire or get a 401, and masked too.',
    commands: all,
  },
  context: {
    summary: 'Context of the kubeconfig to use.',
    details: 'Empty: its current-context.',
    commands: all,
  },
  'cluster-name': {
    summary: "The cluster's name in the report and in a fleet summary (merge).",
    details: "Empty: the context's name.",
    commands: all,
  },
  'kind-cluster-name': {
    summary: `Name of the kind cluster (with ${kind}).`,
    details: '',
    commands: all,
  },
  'kind-config': {
    summary: `Path to a kind cluster config file (with ${kind}).`,
    details: '',
    commands: all,
  },
  'kind-node-image': {
    summary: `kind node image, e.g. kindest/node:v1.33.1 (with ${kind}).`,
    details: "Empty: kind's default.",
    commands: all,
  },
  'kind-wait': {
    summary: 'How long kind waits for the control plane to be ready (a duration).',
    details: 'For example 60s or 5m; at most 24d20h31m23s.',
    commands: all,
  },
  'kind-keep': {
    summary: 'Keep the kind cluster this run created instead of deleting it.',
    details: 'The action deletes it in the post step, the CLI when the run ends.',
    commands: all,
  },
  'request-timeout': {
    summary: 'Timeout of one API request (a duration).',
    details: `For example 30s; at most 24d20h31m23s. Requests are retried on HTTP 429, 500, 502, 503 and 504, and when no answer came; a 403 within 15 s of a request that got no answer is retried too (a restarted API server denies RBAC-bound users until its RBAC cache syncs); in a teardown never past ${inputRef('timeout')}. Each GitHub request (${inputRef('pr-comment')}, ${inputRef('check-run')}) gets this timeout too, and publishing as a whole four times it.`,
    commands: all,
  },
  'list-concurrency': {
    summary: 'How many list requests run at once (1-64).',
    details: '',
    commands: all,
  },
  'page-size': {
    summary: 'Objects per list page (`limit`, 1-10000).',
    details: '',
    commands: all,
  },
  'report-path': {
    summary: 'Where the JSON report is written.',
    details:
      "Empty: a file of this step's own in $RUNNER_TEMP, $RUNNER_TEMP/kube-sweep-report-<step>.json (<step> from GITHUB_ACTION: the step's id; -2, -3, ... added when that file is already there), so two kube-sweep steps in one job keep their reports apart. The `report-path` output names it. The CLI writes no file unless given one. A given path that is the `baseline` file (the same file by any path or link) or that a `mode: merge` glob of `reports` matches is refused before anything is written or changed. Before the cluster is touched, one line that says the run is unfinished is written beside the path, to `<report-path>.unfinished` (a path next to which no file can be created, such as /proc/self/status, or a device that takes no bytes, such as /dev/full, stops the run there). The report is written to that file and renamed over the path only when complete, so a run that is killed leaves an earlier report at the path whole (and the `.unfinished` file beside it), never half a file.",
    commands: every,
  },
  'pr-comment': {
    summary: 'Keep one comment with the summary on the pull request.',
    details:
      'On a pull_request or pull_request_target event; updated on every run of this step. Needs `permissions: pull-requests: write`. Other events: a notice, no comment.',
    commands: every,
  },
  'check-run': {
    summary: 'Create a check run with the verdict, the summary and the findings.',
    details:
      'Named "kube-sweep (<mode>)", on the commit (the pull request head on PR events), with the verdict as conclusion and one annotation per finding. Needs `permissions: checks: write`.',
    commands: every,
  },
  'github-token': {
    summary: `Token for ${inputRef('pr-comment')} and ${inputRef('check-run')}.`,
    details:
      'Empty, or a 403 (missing permission, pull request from a fork): a warning, never a failed step; the sweep runs. The CLI reads GITHUB_TOKEN when it is not given.',
    commands: every,
  },
  'publish-server': {
    summary: 'Name the API server URL and the context in the PR comment and check run.',
    details:
      'Default false: they are left out there (text posted through the API is not masked, and on a public repository the comment is public; the URL is also replaced where an error quotes it). The job summary and the JSON report always name them.',
    commands: every,
  },
};
