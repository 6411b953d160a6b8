import wrapAnsi from 'wrap-ansi';
import { InputDocs } from '../config/input-docs.js';
import { InputDefaults, modeNames, type ModeName } from '../config/inputs.js';
import { Inputs, renderFaceWords, type InputName } from '../words/input-words.js';
import { booleanInputs, listInputs } from './command-line.js';

/** What each command does (one line each; the general help lists them). */
const commandLines: Readonly<Record<ModeName | 'help', readonly string[]>> = {
  plan: ['show the teardown plan for the scope (stages, order, namespaces); changes nothing'],
  teardown: [
    'uninstall the releases in scope in order, wait until everything is gone,',
    'delete the scoped namespaces',
  ],
  scan: [
    'find leftovers and orphans (stuck namespaces, unavailable APIServices, webhooks',
    'without a backend, stuck finalizers, orphans in missing namespaces, ...)',
  ],
  inventory: ['read the whole cluster; report what was read and what could not be'],
  reap: [
    'find the environments (--environments pr-{id}-*, --environment-label) and tear',
    'down the abandoned ones (an expiry annotation past, --older-than, --pr-state',
    'closed, --abandoned-label), each on its own, --reap-concurrency at once; a',
    'dry run (--dry-run) lists them',
  ],
  merge: [
    'merge <glob>...: merge the report files (--report-path of scans of many',
    'clusters) into one fleet summary, judged by one --fail-on',
  ],
  help: ['this text; help <command>: only the options that command reads'],
};

/** What an empty value means in the CLI, for the inputs whose default is no value. */
const emptyMeans: Partial<Record<InputName, string>> = {
  [Inputs.kubeconfig]: '$KUBECONFIG (its files merged), then ~/.kube/config',
  [Inputs.context]: "the kubeconfig's current-context",
  [Inputs.scanScope]: 'cluster for a scan without a scope, environment otherwise',
  [Inputs.reportPath]: 'no file (--output json prints the report)',
  [Inputs.githubToken]: '$GITHUB_TOKEN',
  [Inputs.reports]: 'the words after merge',
  [Inputs.olderThan]: 'no age condition',
  [Inputs.baseline]: 'no comparison',
  [Inputs.clusterName]: "the context's name",
};

/**
 * The ways to install that exist (README "CLI" and docs/install.md say the same). No npm
 * command: the package name is reserved for a future release, and whoever claimed an
 * unpublished name would run with the users' cluster credentials.
 */
const install = `Install (any one of; the npm name is reserved for a future release):
  kube-sweep-linux-x64   single executable from the release assets, no Node
                         needed (scripts/sea.mjs builds it from a clone)
  kubectl-sweep on PATH  kubectl plugin: kubectl sweep scan ... (the same
                         binary renamed; docs/install.md has krew)
  a clone                node dist/cli/index.js scan ... (Node 24)`;

/** The widest help line, in columns (issue 34: a terminal of 100 columns shows every line whole). */
export const helpWidth = 100;

/**
 * Pure: rows of two columns, the first padded to the widest (plus two spaces); a second column
 * that would pass `helpWidth` wraps at word boundaries onto lines indented to its column.
 */
function columns(rows: readonly (readonly [string, string])[], indent = '  '): string[] {
  const width = Math.max(...rows.map(([a]) => a.length)) + 2;
  const room = Math.max(20, helpWidth - indent.length - width);
  const pad = ' '.repeat(indent.length + width);
  return rows.flatMap(([a, b]) => {
    const [first = '', ...rest] = wrapAnsi(b, room, { hard: true, trim: true }).split('\n');
    return [`${indent}${a.padEnd(width)}${first}`.trimEnd(), ...rest.map((l) => `${pad}${l}`)];
  });
}

/** Pure: the rows of one input's flag: the flag with its summary, then its default. */
function flagRows(name: InputName): [string, string][] {
  const doc = InputDocs[name];
  const flag = booleanInputs.has(name) ? `--${name}[=false]` : `--${name} <value>`;
  const fallback = InputDefaults[name] === '' ? 'none' : InputDefaults[name].replace(/\n/g, ' ');
  // `order` lines and `ignore` entries are one per value: their inputs do not split at commas (settings.ts).
  const more = !listInputs.has(name)
    ? ''
    : name === Inputs.order || name === Inputs.ignore
      ? '; repeat the flag, one entry per value'
      : '; repeat the flag or separate values with commas';
  // As kubectl: -n for the namespaces.
  const short = name === Inputs.namespaces ? ' (-n)' : '';
  return [
    [flag, `${renderFaceWords('cli', doc.summary)}${short}`],
    ['', `default: ${emptyMeans[name] ?? fallback}${more}`],
  ];
}

/** Pure: the option rows of the inputs `command` reads (every input's for the general help). */
function optionRows(command?: ModeName): string[] {
  const names = Object.values(Inputs).filter(
    (n) => n !== Inputs.mode && (command === undefined || InputDocs[n].commands.includes(command)),
  );
  return columns([
    ...names.flatMap(flagRows),
    ...(command === undefined || command === 'scan'
      ? [
          ['--all-contexts', 'scan: every context of the kubeconfig (see Several clusters)'] as [
            string,
            string,
          ],
        ]
      : []),
    ['--output <format>', 'text (default), markdown or json (-o)'],
    ['--version', 'print the version and the commit it was built from'],
    ['-h, --help', 'this text'],
  ]);
}

/** What bounds the scope: for the commands that read --namespaces (all but inventory). */
const scopeLines = [
  'The scope (teardown and plan): --namespaces names or globs, each with a literal character',
  "(a bare '*' is refused); --selector narrows them (a namespace must match a pattern and the",
  'selector); a --selector alone must not be only negative or match every namespace; more than',
  '--max-namespaces namespaces is refused; with --require-match, a pattern or selector that',
  'matches no namespace is too. Nothing is changed when the scope is refused.',
  'Never touched, in any command: kube-system, kube-public, kube-node-lease, default, every',
  'kube-* namespace, those --protect matches and those labelled kube-sweep.io/protected=true',
  '(never deleted or emptied, their releases never uninstalled, their objects never deleted).',
  '',
];

/** Several clusters in one run (scan only). */
const contextLines = [
  'Several clusters: scan --context a,b (or --all-contexts) scans those contexts of the',
  'kubeconfig at once and prints one fleet summary, as merge does.',
  '',
];

const epilogue = [
  'The cluster: --kubeconfig takes a path, the kubeconfig YAML or its base64; without it the',
  'files of $KUBECONFIG are read (merged as kubectl merges them), else ~/.kube/config.',
  '--cluster kind creates a kind cluster instead (docker and kind on PATH).',
  '',
  'Exit codes: 0 done (clean, planned, or inventory read), 1 leftovers (the teardown left things',
  'behind, or findings over --fail-on), 2 it could not run (a usage error, bad input, cluster',
  'unreachable).',
];

/** The general help text (`--help`, `help`, and after a missing or unknown command). */
export const usage = [
  'Usage: kube-sweep <command> [options]',
  '',
  'Commands:',
  ...columns(
    [...modeNames, 'help' as const].flatMap((c) => commandLines[c].map((l, i) => [i ? '' : c, l] as const)),
  ),
  '',
  'Options (kube-sweep help <command> lists only the ones that command reads):',
  ...optionRows(),
  '',
  ...scopeLines,
  ...contextLines,
  ...epilogue,
].join('\n');

/** Pure: the help of the general usage, with the ways to install first. */
export function generalHelp(): string {
  return `${install}\n\n${usage}\n`;
}

/** Pure: the help of one command: what it does and only the options it reads. */
export function commandHelp(command: ModeName): string {
  return (
    [
      `Usage: kube-sweep ${command === 'merge' ? 'merge <glob>...' : command} [options]`,
      '',
      ...commandLines[command].map((l, i) => (i ? `  ${l}` : `${command}: ${l}`)),
      '',
      'Options:',
      ...optionRows(command),
      '',
      ...(InputDocs.namespaces.commands.includes(command) ? scopeLines : []),
      ...(command === 'scan' ? contextLines : []),
      ...epilogue,
    ].join('\n') + '\n'
  );
}
