import pLimit from 'p-limit';
import type { OpenCluster } from './cluster/open.js';
import type { ReapSettings, Settings } from './config/settings.js';
import { modes } from './engine.js';
import type { EnginePorts, RunInputs } from './engine/ports.js';
import {
  groupEnvironments,
  judgeEnvironment,
  type Environment,
  type NamespaceFacts,
  type PullRequestFacts,
} from './plan/environments.js';
import { namespaceProtection } from './plan/protected-namespaces.js';
import { compareWithBaseline } from './report/baseline.js';
import { createOctokit } from './report/github/octokit.js';
import { defaultGitHubRequestTimeoutMs } from './report/github/publish.js';
import { byFace, inputRef, Inputs, inputSet } from './words/input-words.js';
import { readPullRequests } from './report/github/pull-requests.js';
import {
  failingFindings,
  type ReapEnvironment,
  type ReapOutcome,
  type Report,
  type ReportFinding,
} from './report/report.js';
import { objectLabel, rootCausesOf } from './report/root-causes.js';
import type { Finding } from './rules/findings.js';

/*
 * `mode: reap`: find the environments, judge which are abandoned, and tear each abandoned one
 * down with the teardown strategy (engine.ts) on its own: its own plan, stages, namespaces and
 * verdict; several at once within `reap-concurrency`.
 */

type ReportBody = Omit<Report, 'schemaVersion' | 'tool' | 'toolVersion' | 'generatedAt' | 'mode' | 'cluster'>;

interface NamespaceObject {
  metadata?: {
    name?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string;
  };
}

/** Every namespace of the cluster with what reap reads of it (one paged list). */
async function listNamespaces(cluster: OpenCluster): Promise<NamespaceFacts[]> {
  const out: NamespaceFacts[] = [];
  let next: string | undefined;
  do {
    const page = await cluster.api.request<{ items: NamespaceObject[]; metadata?: { continue?: string } }>({
      path: '/api/v1/namespaces',
      query: { limit: '500', ...(next ? { continue: next } : {}) },
    });
    for (const n of page.items)
      out.push({
        name: n.metadata?.name ?? '',
        labels: n.metadata?.labels ?? {},
        annotations: n.metadata?.annotations ?? {},
        creationTimestamp: n.metadata?.creationTimestamp ?? '',
      });
    next = page.metadata?.continue || undefined;
  } while (next);
  return out;
}

/**
 * The pull requests of the environments, when `pr-state` or `keep-label` asks for them.
 * @throws Error naming GITHUB_REPOSITORY or the token when they are missing.
 */
async function pullRequestsOf(
  environments: readonly Environment[],
  settings: Settings,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  signal?: AbortSignal,
): Promise<Map<string, PullRequestFacts>> {
  const r = settings.reap;
  if (!r.prClosed && !r.keepLabel) return new Map();
  const [owner, repo, extra] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const asking = `${inputSet(Inputs.prState, 'closed')} and ${inputRef(Inputs.keepLabel)}`;
  if (!owner || !repo || extra !== undefined)
    throw new Error(
      `${asking} read pull requests of the repository in GITHUB_REPOSITORY, which is '${env.GITHUB_REPOSITORY ?? ''}', not owner/repo; run in a GitHub Actions job or set GITHUB_REPOSITORY (nothing was deleted)`,
    );
  if (!settings.github.token)
    throw new Error(
      `${asking} need ${inputRef(Inputs.githubToken)} (${byFace('in a workflow its default is ${{ github.token }}', 'or set GITHUB_TOKEN')}) (nothing was deleted)`,
    );
  const apiUrl = (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
  // Each request within request-timeout; all of them within one per id plus two for the list.
  const requestMs = settings.github.requestTimeoutMs ?? defaultGitHubRequestTimeoutMs;
  const budgetMs = requestMs * (2 + environments.length);
  const budget = AbortSignal.timeout(budgetMs);
  return readPullRequests(
    environments.map((e) => e.id),
    {
      owner,
      repo,
      octokit: createOctokit(settings.github.token, apiUrl, {
        requestMs,
        budgetMs,
        budget: signal ? AbortSignal.any([budget, signal]) : budget,
      }),
    },
    log,
  );
}

/** The settings of one environment's teardown: its namespaces by name, nothing else in scope. */
function environmentSettings(settings: Settings, env: Environment): Settings {
  return Object.freeze({
    ...settings,
    mode: 'teardown' as const,
    scanScope: 'environment' as const,
    baseline: '',
    scope: Object.freeze({
      namespacePatterns: env.namespaces.map((n) => n.name),
      selector: [],
      selectorText: '',
      releases: [],
      ...(settings.scope.protect ? { protect: settings.scope.protect } : {}),
    }),
  });
}

/** Ports whose lines name the environment (the teardowns of several run at once). */
function environmentPorts(ports: EnginePorts, id: string): EnginePorts {
  const tag = (line: string) => `[${id}] ${line}`;
  return {
    ...ports,
    info: (l) => ports.info(tag(l)),
    warning: (l) => ports.warning(tag(l)),
    ...(ports.error ? { error: (l: string) => ports.error!(tag(l)) } : {}),
    group: async (title, fn) => {
      ports.info(tag(`▸ ${title}`));
      return fn();
    },
  };
}

/** Pure: an environment's outcome from its teardown's verdict. */
export function outcomeOf(verdict: Report['verdict']): ReapOutcome {
  if (verdict === 'planned') return 'would-reap';
  return verdict === 'clean' || verdict === 'partial' ? 'reaped' : 'failed';
}

/** Tears one abandoned environment down (or dry-runs it); never throws. */
async function reapOne(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts,
  env: Environment,
): Promise<{ entry: Partial<ReapEnvironment>; findings: readonly Finding[] }> {
  const started = Date.now();
  let body: ReportBody;
  try {
    body = await modes.teardown(
      environmentSettings(settings, env),
      cluster,
      environmentPorts(ports, env.id),
      {},
    );
  } catch (error) {
    body = { verdict: 'error', warnings: [], error: (error as Error).message || String(error) };
  }
  const findings = body.findings ?? [];
  const failing = new Set(body.failing ?? []);
  const root = rootCausesOf(findings, failing).causes.find((c) => failing.has(c.finding.key)) ?? undefined;
  return {
    findings,
    entry: {
      outcome: outcomeOf(body.verdict),
      verdict: body.verdict,
      durationMs: Date.now() - started,
      ...(body.error ? { error: body.error } : {}),
      findings: findings.map((f) => f.key),
      failing: [...failing],
      ...(root ? { rootCause: `${root.finding.code} ${objectLabel(root.finding.object)}` } : {}),
      ...(body.plan ? { plan: body.plan } : {}),
      ...(body.teardown ? { teardown: body.teardown } : {}),
      ...(body.dryRun ? { dryRun: body.dryRun } : {}),
      ...(body.leftovers ? { leftovers: body.leftovers } : {}),
    },
  };
}

/** Pure: the reap's verdict (see README): refused → error; any failed → leftovers; dry run → planned. */
export function reapVerdict(
  entries: readonly ReapEnvironment[],
  failing: number,
  dryRun: boolean,
): Report['verdict'] {
  if (entries.some((e) => e.outcome === 'refused')) return 'error';
  if (entries.some((e) => e.outcome === 'failed') || failing > 0) return 'leftovers';
  if (dryRun) return 'planned';
  return entries.some((e) => e.verdict === 'partial') ? 'partial' : 'clean';
}

/**
 * The `reap` strategy: namespaces → environments → judgements → each abandoned environment torn
 * down on its own (`reap-concurrency` at once), or, above `max-environments`, none (verdict
 * `error`, every one listed as refused). The report's `findings` are those of every torn-down
 * environment (compared with the baseline when one is given).
 * @throws what listing namespaces throws; the GitHub settings errors of pullRequestsOf.
 */
export async function reap(
  settings: Settings,
  cluster: OpenCluster,
  ports: EnginePorts & { env: NodeJS.ProcessEnv },
  run: RunInputs,
): Promise<ReportBody> {
  const r: ReapSettings = settings.reap;
  const namespaces = await listNamespaces(cluster);
  const protection = namespaceProtection(settings.scope.protect ?? [], namespaces);
  const environments = groupEnvironments({ patterns: r.patterns, label: r.label }, namespaces);
  ports.info(`environments: ${environments.map((e) => e.id).join(', ') || '(none)'}`);
  const prs = await pullRequestsOf(
    environments,
    settings,
    ports.env,
    ports.warning,
    ports.cancellation?.signal,
  );
  const now = Date.now();
  const judged = environments.map((env) => ({
    env,
    judgement: judgeEnvironment(env, r, now, prs.get(env.id), protection),
  }));
  for (const { env, judgement } of judged)
    ports.info(`${env.id}: ${judgement.abandoned ? 'abandoned' : 'kept'}: ${judgement.reasons.join('; ')}`);
  const abandoned = judged.filter((j) => j.judgement.abandoned);
  const refused = abandoned.length > r.maxEnvironments;
  const limit = pLimit(r.concurrency);
  const done = new Map(
    await Promise.all(
      (refused ? [] : abandoned).map((j) =>
        limit(async () => [j.env.id, await reapOne(settings, cluster, ports, j.env)] as const),
      ),
    ),
  );
  const entries: ReapEnvironment[] = judged.map(({ env, judgement }) => ({
    id: env.id,
    namespaces: env.namespaces.map((n) => n.name),
    abandoned: judgement.abandoned,
    reasons: judgement.reasons,
    outcome: !judgement.abandoned ? 'kept' : refused ? 'refused' : 'failed',
    ...(done.get(env.id)?.entry ?? {}),
  }));
  return reapBody(
    settings,
    entries,
    [...done.values()].flatMap((d) => d.findings),
    run,
    refused,
  );
}

/** Pure: the report body of a reap from its environments and their findings. */
function reapBody(
  settings: Settings,
  entries: ReapEnvironment[],
  all: readonly Finding[],
  run: RunInputs,
  refused: boolean,
): ReportBody {
  const unique = [...new Map(all.map((f) => [f.key, f])).values()];
  const compared = run.baseline ? compareWithBaseline(unique, run.baseline) : undefined;
  const findings: readonly ReportFinding[] = compared?.findings ?? unique;
  const failing = failingFindings(findings, settings.failOn).filter(
    (f) => !settings.failOnNew || f.baseline !== 'still',
  );
  const abandoned = entries.filter((e) => e.abandoned).map((e) => e.id);
  return {
    verdict: reapVerdict(entries, failing.length, settings.dryRun),
    ...(refused
      ? {
          error: `refusing to reap ${abandoned.length} environments, more than ${inputRef(Inputs.maxEnvironments)} (${settings.reap.maxEnvironments}); nothing was deleted. Abandoned: ${abandoned.join(', ')}. Raise ${inputRef(Inputs.maxEnvironments)} or narrow ${inputRef(Inputs.environments)}`,
        }
      : {}),
    reap: { environments: entries },
    findings,
    failing: failing.map((f) => f.key),
    ...(compared ? { baseline: compared.summary } : {}),
    warnings: [],
  };
}
