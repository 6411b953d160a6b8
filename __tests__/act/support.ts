/**
 * Runs a workflow file of this repository under nektos/act (an independent GitHub Actions runner,
 * built by test/act/build.sh) on this host (`-P ubuntu-latest=-self-hosted`: every step runs on
 * the host, no image is pulled), and reads what act reports per step from its JSON log (issue 22;
 * docs/development.md, "act").
 *
 * Nothing leaves the machine: the remote actions a workflow uses are the local folders given with
 * `--local-repository` (kube-sweep/kube-sweep@v0 is a copy of action.yml and dist/, others are the
 * stand-ins of test/act/actions/), `actions/checkout` of the repository itself is act's local copy,
 * `--action-offline-mode` keeps act from fetching, GITHUB_API_URL is the test's recorder, the token
 * is a secret the test gives, act's version check is off and it starts no cache server.
 */
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { repoRoot } from '../integration/support/cluster.js';

/**
 * Why the act suites are skipped, or '' when they run: they run with KUBE_SWEEP_ACT_TESTS=1, which
 * .ci/run and ci.yml set (act must be built first: test/act/build.sh).
 */
export function actSkipReason(): string {
  return process.env['KUBE_SWEEP_ACT_TESTS'] === '1'
    ? ''
    : 'set KUBE_SWEEP_ACT_TESTS=1 to run the workflows under act (docs/development.md)';
}

/** One line of `act --json` (a logrus entry). */
export interface ActLogLine {
  readonly msg: string;
  readonly level?: string;
  /** Step id(s): the step's `id:`, else its index; composite actions add their own. */
  readonly stepID?: readonly string[];
  /** `Pre`, `Main` or `Post`. */
  readonly stage?: string;
  /** On the line that ends a stage: `success`, `failure` or `skipped`. */
  readonly stepResult?: string;
  /** On the line that ends the job: `success` or `failure`. */
  readonly jobResult?: string;
  /** A line the step printed (its stdout and stderr). */
  readonly raw_output?: boolean;
  /** `set-output` (with name and arg), `add-mask`, `summary`, ... */
  readonly command?: string;
  readonly name?: string;
  readonly arg?: string;
  readonly content?: string;
}

/** What one act run reported. */
export interface ActRun {
  readonly exitCode: number;
  readonly lines: readonly ActLogLine[];
  /** Every message, one per line (for diagnostics in a failed expectation). */
  readonly text: string;
  /** The job's result (`success`, `failure`), from act's last job line. */
  readonly jobResult: string | undefined;
  /** The outcome act recorded for a step's stage (`Main` unless given); undefined: not run. */
  result(stepId: string, stage?: 'Pre' | 'Main' | 'Post'): string | undefined;
  /** The outputs a step set (GITHUB_OUTPUT), as act recorded them for later steps. */
  outputs(stepId: string): Record<string, string>;
  /** What a step's stage printed (its raw output lines, joined). */
  log(stepId: string, stage?: 'Pre' | 'Main' | 'Post'): string;
  /** The job summary (GITHUB_STEP_SUMMARY) a step's stage wrote, as act read it. */
  summary(stepId: string): string;
  /** The workflow commands (`warning`, `error`, `debug`, ...) a step's stage printed: their text. */
  commands(stepId: string, command: string, stage?: 'Pre' | 'Main' | 'Post'): string[];
}

/** How to run a workflow under act. */
export interface ActOptions {
  /** Workflow file, relative to the repository root (`examples/scheduled-hygiene.yml`). */
  readonly workflow: string;
  /**
   * The git repository act runs in (its working tree is the job's workspace, its HEAD the
   * commit, its remotes the checkout's), and whose `workflow` is run: this repository unless given.
   */
  readonly directory?: string;
  /** Event name (`pull_request`, `schedule`, `push`, `workflow_dispatch`). */
  readonly event: string;
  /** Run only this job (act's `--job`); every job the event triggers when absent. */
  readonly job?: string;
  /** Event payload (`github.event`); written to a file for `--eventpath`. */
  readonly payload?: Record<string, unknown>;
  /** `secrets.*`; GITHUB_TOKEN is `''` unless given (act would otherwise ask the gh CLI). */
  readonly secrets?: Record<string, string>;
  /** `vars.*`. */
  readonly vars?: Record<string, string>;
  /** Variables every step sees (act's `--env`): GITHUB_API_URL, GITHUB_REPOSITORY, ... */
  readonly env?: Record<string, string>;
  /** Folders to put on PATH before Node 24 and the system folders (kind, helm, kubectl). */
  readonly path?: readonly string[];
  /** Environment of the act process itself (seen by the steps too: act copies it to them). */
  readonly processEnv?: Record<string, string>;
  /** Kill act after this long (ms). */
  readonly timeoutMs?: number;
}

/** The act binary: $KUBE_SWEEP_ACT (set by .ci/run), else what test/act/build.sh prints. */
export async function actBinary(): Promise<string> {
  const fromEnv = process.env['KUBE_SWEEP_ACT'];
  if (fromEnv) return fromEnv;
  const { stdout } = await execa('bash', [join(repoRoot, 'test/act/build.sh')]);
  return stdout.trim();
}

/**
 * The action as `uses: kube-sweep/kube-sweep@v0` fetches it at run time: action.yml and dist/
 * of this working tree, copied to a temporary folder (act tars the whole folder it is given).
 */
export function actionCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-act-action-'));
  cpSync(join(repoRoot, 'action.yml'), join(dir, 'action.yml'));
  cpSync(join(repoRoot, 'dist'), join(dir, 'dist'), { recursive: true });
  return dir;
}

/** The remote actions the workflows use, each mapped to a local folder (no fetch). */
export function localRepositories(action: string): string[] {
  const standIns = join(repoRoot, 'test/act/actions');
  return [
    `kube-sweep/kube-sweep@v0=${action}`,
    `azure/setup-helm@v4=${join(standIns, 'setup-helm')}`,
    `actions/upload-artifact@v4=${join(standIns, 'upload-artifact')}`,
    `actions/download-artifact@v4=${join(standIns, 'download-artifact')}`,
    `actions/cache@v4=${join(standIns, 'cache')}`,
  ];
}

const systemPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function pairs(flag: string, values: Record<string, string>): string[] {
  return Object.entries(values).flatMap(([k, v]) => [flag, `${k}=${v}`]);
}

/** act's command line for `options`, with its private folders under `work`. */
function actArgs(options: ActOptions, work: string, action: string): string[] {
  const eventPath = join(work, 'event.json');
  writeFileSync(eventPath, JSON.stringify(options.payload ?? {}));
  const directory = options.directory ?? repoRoot;
  return [
    options.event,
    '--workflows',
    join(directory, options.workflow),
    '--directory',
    directory,
    '--eventpath',
    eventPath,
    ...(options.job ? ['--job', options.job] : []),
    '--platform',
    'ubuntu-latest=-self-hosted',
    '--json',
    '--no-cache-server',
    '--action-offline-mode',
    '--action-cache-path',
    join(work, 'actions'),
    ...localRepositories(action).flatMap((l) => ['--local-repository', l]),
    ...pairs('--secret', { GITHUB_TOKEN: '', ...options.secrets }),
    ...pairs('--var', options.vars ?? {}),
    ...pairs('--env', options.env ?? {}),
  ];
}

/** Runs `options.workflow` under act and returns what it reported (never throws on failure). */
export async function runAct(options: ActOptions): Promise<ActRun> {
  const work = mkdtempSync(join(tmpdir(), 'kube-sweep-act-'));
  mkdirSync(join(work, 'xdg-config'));
  const act = await actBinary();
  const result = await execa(act, actArgs(options, work, actionCopy()), {
    cwd: options.directory ?? repoRoot,
    env: {
      PATH: [...(options.path ?? []), dirname(process.execPath), systemPath].join(delimiter),
      HOME: process.env['HOME'] ?? work,
      XDG_CONFIG_HOME: join(work, 'xdg-config'),
      XDG_CACHE_HOME: join(work, 'xdg-cache'),
      ACT_DISABLE_VERSION_CHECK: '1',
      ...options.processEnv,
    },
    extendEnv: false,
    all: true,
    reject: false,
    timeout: options.timeoutMs ?? 10 * 60_000,
  });
  return parseActLog(String(result.all ?? ''), result.exitCode ?? -1);
}

const sameStep = (line: ActLogLine, stepId: string, stage: string) =>
  line.stepID?.[0] === stepId && line.stepID.length === 1 && line.stage === stage;

/** Reads act's JSON log (lines that are not JSON are kept as plain messages). */
export function parseActLog(all: string, exitCode: number): ActRun {
  const lines: ActLogLine[] = all
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as ActLogLine;
      } catch {
        return { msg: l };
      }
    });
  return {
    exitCode,
    lines,
    text: lines.map((l) => l.msg.replace(/\n$/, '')).join('\n'),
    jobResult: lines.findLast((l) => l.jobResult)?.jobResult,
    result: (stepId, stage = 'Main') =>
      lines.findLast((l) => l.stepResult && sameStep(l, stepId, stage))?.stepResult,
    outputs: (stepId) =>
      Object.fromEntries(
        lines
          .filter((l) => l.command === 'set-output' && sameStep(l, stepId, 'Main'))
          .map((l) => [l.name ?? '', l.arg ?? '']),
      ),
    log: (stepId, stage = 'Main') =>
      lines
        .filter((l) => l.raw_output && l.stepID?.[0] === stepId && l.stage === stage)
        .map((l) => l.msg)
        .join(''),
    commands: (stepId, command, stage = 'Main') =>
      lines.filter((l) => l.command === command && sameStep(l, stepId, stage)).map((l) => l.arg ?? ''),
    summary: (stepId) =>
      lines
        .filter((l) => l.command === 'summary' && l.stepID?.[0] === stepId)
        .map((l) => l.content ?? '')
        .join(''),
  };
}
