import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  pemLines,
  resolveHttpsCredentials,
  type CredentialOptions,
  type HttpsCredentials,
  type KubeconfigCluster,
  type KubeconfigUser,
} from './credentials.js';
import { ClusterAccessError } from './errors.js';
import { inputEmpty, inputRef, Inputs, inputSet, inputWord } from '../words/input-words.js';
import { makeDirectories } from '../util/make-directories.js';

/** Where a kubeconfig came from, for messages (never the content). */
export type KubeconfigOrigin =
  | { kind: 'file'; path: string }
  | { kind: 'inline' }
  | { kind: 'base64' }
  | { kind: 'env'; paths: string[] }
  | { kind: 'home'; path: string };

/** A validated kubeconfig pinned to one context. */
export interface LoadedKubeconfig {
  /** The kubeconfig pinned to `context` (only its cluster, context and user), as YAML. */
  readonly pinnedYaml: string;
  /**
   * Resolves the TLS material and authorization (src/cluster/credentials.ts); runs the
   * exec/auth-provider plugin when the user entry has one. Tokens obtained then and later
   * (plugin runs, tokenFile reads) go to `options.onSecret`, to be masked.
   * @throws ClusterAccessError `not-a-kubeconfig` when a named file is missing or a plugin fails.
   */
  readonly credentials: (options?: CredentialOptions) => Promise<HttpsCredentials>;
  readonly context: string;
  /** `server` of the context's cluster, e.g. https://127.0.0.1:6443. */
  readonly server: string;
  readonly origin: KubeconfigOrigin;
  /**
   * Every credential value found (tokens, passwords, client keys and certificates, both as
   * base64 and line by line when decoded), to be masked in logs with core.setSecret.
   */
  readonly secrets: readonly string[];
}

export interface KubeconfigEnvironment {
  /** $KUBECONFIG: a list of paths separated by the platform's path delimiter. */
  readonly KUBECONFIG?: string | undefined;
  readonly HOME?: string | undefined;
}

function looksLikeYaml(text: string): boolean {
  return (
    /(^|\n)\s*(apiVersion|clusters|contexts|users|kind|current-context)\s*:/.test(text) || /^\s*\{/.test(text)
  );
}

/**
 * Resolves the `kubeconfig` input to YAML text. Accepted forms, in the order they are tried:
 * inline YAML (has a newline or a top-level kubeconfig key), base64 of YAML or of a path,
 * a path to a file. An empty input falls back to $KUBECONFIG (every listed file, merged as
 * kubectl does, first file wins) and then to ~/.kube/config.
 * @throws ClusterAccessError `no-such-file` when a named or default file does not exist.
 */
export function readKubeconfigInput(
  input: string,
  env: KubeconfigEnvironment,
): { texts: string[]; origin: KubeconfigOrigin } {
  const value = input.trim();
  if (value === '') {
    const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p.trim() !== '');
    if (listed.length > 0) {
      const present = listed.filter((p) => existsSync(p));
      if (present.length === 0) {
        throw new ClusterAccessError(
          'no-such-file',
          `${inputEmpty(Inputs.kubeconfig)} and $KUBECONFIG names no file that exists (${listed.join(', ')}); ` +
            `set ${inputRef(Inputs.kubeconfig)} to a kubeconfig path, its YAML or its base64, or fix $KUBECONFIG`,
        );
      }
      return { texts: present.map((p) => readFileSync(p, 'utf8')), origin: { kind: 'env', paths: present } };
    }
    const home = join(env.HOME ?? homedir(), '.kube', 'config');
    if (!existsSync(home)) {
      throw new ClusterAccessError(
        'no-such-file',
        `${inputEmpty(Inputs.kubeconfig)}, $KUBECONFIG is unset and ${home} does not exist; ` +
          `set ${inputRef(Inputs.kubeconfig)} to a path, the kubeconfig YAML or its base64, or use ${inputSet(Inputs.cluster, 'kind')}`,
      );
    }
    return { texts: [readFileSync(home, 'utf8')], origin: { kind: 'home', path: home } };
  }
  if (looksLikeYaml(value)) return { texts: [value], origin: { kind: 'inline' } };
  // A short single line that names an existing file is a path, whatever its characters.
  const singleLine = !value.includes('\n');
  if (singleLine && value.length <= 4096 && existsSync(resolve(value))) {
    const path = resolve(value);
    if (statSync(path).isDirectory()) {
      throw new ClusterAccessError(
        'no-such-file',
        `${inputWord(Inputs.kubeconfig)} is '${value}', which is a directory; give the path of a kubeconfig file, the kubeconfig YAML itself, or its base64`,
      );
    }
    return { texts: [readFileSync(path, 'utf8')], origin: { kind: 'file', path } };
  }
  // Base64, on one line or wrapped (what `base64 file` prints: 76 characters a line).
  const compact = value.replace(/\s+/g, '');
  const pathLike = /^(\/|\.\.?\/|~)/.test(value);
  if (!pathLike && compact.length >= 16 && /^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    const decoded = Buffer.from(compact, 'base64').toString('utf8');
    if (looksLikeYaml(decoded)) return { texts: [decoded], origin: { kind: 'base64' } };
    const path = decoded.trim();
    if (path !== '' && !path.includes('\n') && existsSync(path) && !statSync(path).isDirectory()) {
      return { texts: [readFileSync(path, 'utf8')], origin: { kind: 'file', path } };
    }
    throw new ClusterAccessError(
      'not-a-kubeconfig',
      `${inputWord(Inputs.kubeconfig)} looks like base64 (${compact.length} characters) but decodes neither to a kubeconfig ` +
        'nor to the path of an existing file; encode the whole kubeconfig (base64 -w0 ~/.kube/config) or give its path',
    );
  }
  if (!singleLine) return { texts: [value], origin: { kind: 'inline' } };
  // Echo the value only when it reads like a path (has a '/'): a bare word may be a token.
  const shown =
    value.length <= 256 && value.includes('/') && /^[\w.~/@:+-]+$/.test(value)
      ? `'${value}'`
      : `(${value.length} characters, not shown)`;
  throw new ClusterAccessError(
    'no-such-file',
    `${inputWord(Inputs.kubeconfig)}: no such file ${shown}; give a path to a kubeconfig file, the kubeconfig YAML itself, or its base64`,
  );
}

/**
 * Where a kubeconfig came from, for messages: always names the `kubeconfig` input, so an error
 * about its content (empty, wrong server, wrong CA) points at the input to fix.
 */
export function describeKubeconfigOrigin(origin: KubeconfigOrigin): string {
  switch (origin.kind) {
    case 'file':
      return `the kubeconfig file ${origin.path} (${inputWord(Inputs.kubeconfig)})`;
    case 'home':
      return `${origin.path} (${inputEmpty(Inputs.kubeconfig)} and $KUBECONFIG unset)`;
    case 'env':
      return `$KUBECONFIG (${origin.paths.join(', ')}; ${inputEmpty(Inputs.kubeconfig)})`;
    case 'inline':
      return `the inline YAML in ${inputWord(Inputs.kubeconfig)}`;
    case 'base64':
      return `the base64 kubeconfig in ${inputWord(Inputs.kubeconfig)}`;
  }
}

interface KubeconfigDoc {
  clusters?: { name: string; cluster?: KubeconfigCluster }[];
  contexts?: { name: string; context?: { cluster?: string; user?: string } }[];
  users?: { name: string; user?: KubeconfigUser }[];
  'current-context'?: string;
  [key: string]: unknown;
}

function parseDoc(text: string, origin: KubeconfigOrigin): KubeconfigDoc {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new ClusterAccessError(
      'not-a-kubeconfig',
      `${describeKubeconfigOrigin(origin)} is not valid YAML (${(error as Error).message.split('\n')[0]}); ` +
        'give a kubeconfig as written by kubectl or kind',
    );
  }
  const map = doc as Record<string, unknown> | null;
  if (
    map === null ||
    typeof map !== 'object' ||
    Array.isArray(map) ||
    !(Array.isArray(map.clusters) || Array.isArray(map.contexts) || Array.isArray(map.users))
  ) {
    throw new ClusterAccessError(
      'not-a-kubeconfig',
      `${describeKubeconfigOrigin(origin)} is not a kubeconfig: it has no 'clusters', 'contexts' or 'users' list`,
    );
  }
  return map as KubeconfigDoc;
}

/** Merges kubeconfigs as kubectl merges $KUBECONFIG: for each name, the first file wins. */
function mergeDocs(docs: KubeconfigDoc[]): KubeconfigDoc {
  const merged: KubeconfigDoc = { ...docs[0]!, clusters: [], contexts: [], users: [] };
  for (const key of ['clusters', 'contexts', 'users'] as const) {
    const seen = new Set<string>();
    const out: { name: string }[] = [];
    for (const d of docs) {
      for (const entry of (d[key] ?? []) as { name: string }[]) {
        if (!entry || seen.has(entry.name)) continue;
        seen.add(entry.name);
        out.push(entry);
      }
    }
    (merged as Record<string, unknown>)[key] = out;
  }
  merged['current-context'] = docs.find((d) => d['current-context'])?.['current-context'];
  return merged;
}

type KubeconfigContext = NonNullable<KubeconfigDoc['contexts']>[number];
type KubeconfigClusterEntry = NonNullable<KubeconfigDoc['clusters']>[number];
type KubeconfigUserEntry = NonNullable<KubeconfigDoc['users']>[number];

/**
 * Pure: the context to use: input `context`, else the kubeconfig's current-context.
 * @throws ClusterAccessError `no-such-context` when neither is set or the kubeconfig does not
 *   define it (the message lists the contexts there are).
 */
function chooseContext(
  doc: KubeconfigDoc,
  context: string,
  origin: KubeconfigOrigin,
): { chosen: string; ctx: KubeconfigContext } {
  const names = (doc.contexts ?? []).map((c) => c.name);
  const chosen = context || doc['current-context'] || '';
  if (!chosen) {
    throw new ClusterAccessError(
      'no-such-context',
      `${describeKubeconfigOrigin(origin)} has no current-context and ${inputEmpty(Inputs.context)}; ` +
        `set ${inputRef(Inputs.context)} to one of: ${names.join(', ') || '(none: the kubeconfig has no contexts)'}`,
    );
  }
  const ctx = (doc.contexts ?? []).find((c) => c.name === chosen);
  if (!ctx) {
    throw new ClusterAccessError(
      'no-such-context',
      `${context ? inputWord(Inputs.context) : 'current-context'} is '${chosen}', which ${describeKubeconfigOrigin(origin)} does not define; ` +
        `contexts there: ${names.join(', ') || '(none)'}`,
    );
  }
  return { chosen, ctx };
}

/**
 * Pure: the cluster entry of context `chosen` and its server URL.
 * @throws ClusterAccessError `no-server` when the cluster is not defined or has no server.
 */
function clusterOfContext(
  doc: KubeconfigDoc,
  ctx: KubeconfigContext,
  chosen: string,
  origin: KubeconfigOrigin,
): { cluster: KubeconfigClusterEntry; server: string } {
  const clusterName = ctx.context?.cluster ?? '';
  const cluster = (doc.clusters ?? []).find((c) => c.name === clusterName);
  const server = cluster?.cluster?.server ?? '';
  if (!cluster || !server) {
    throw new ClusterAccessError(
      'no-server',
      `context '${chosen}' in ${describeKubeconfigOrigin(origin)} points at cluster '${clusterName}', which ` +
        `${cluster ? "has no 'server' URL" : 'is not defined'}; add the cluster with its server URL`,
    );
  }
  return { cluster, server };
}

/** Pure: the file the kubeconfig was read from (the first of $KUBECONFIG), undefined for inline or base64 input. */
function sourcePathOf(origin: KubeconfigOrigin): string | undefined {
  if (origin.kind === 'file' || origin.kind === 'home') return origin.path;
  return origin.kind === 'env' ? origin.paths[0] : undefined;
}

/**
 * Pure: `entry` with its relative paths in `fields` resolved against the folder of
 * `sourcePath`. Paths inside a kubeconfig are relative to its file (client-go's
 * ResolveLocalPaths); the pinned copy may be written elsewhere (writeKubeconfigFile), so they
 * are made absolute. Unchanged without a source file.
 */
function withAbsolutePaths<T extends Record<string, unknown>>(
  entry: T | undefined,
  fields: readonly string[],
  sourcePath: string | undefined,
): T | undefined {
  if (!entry || !sourcePath) return entry;
  const out: Record<string, unknown> = { ...entry };
  for (const f of fields) {
    const v = out[f];
    if (typeof v === 'string' && v !== '' && !isAbsolute(v)) out[f] = resolve(dirname(sourcePath), v);
  }
  return out as T;
}

/**
 * Pure: the user entry of `ctx` with its file paths made absolute (client-certificate,
 * client-key, tokenFile, and an exec command with a path separator: client-go's
 * ResolveLocalPaths, k8s.io/client-go/tools/clientcmd/loader.go; a bare name is looked up on
 * PATH). Undefined when the kubeconfig has no such user.
 */
function pinnedUserOf(
  doc: KubeconfigDoc,
  ctx: KubeconfigContext,
  sourcePath: string | undefined,
): KubeconfigUserEntry | undefined {
  const found = (doc.users ?? []).find((entry) => entry && entry.name === ctx.context?.user);
  const resolvedUser = withAbsolutePaths(
    found?.user,
    ['client-certificate', 'client-key', 'tokenFile'],
    sourcePath,
  );
  const exec = resolvedUser?.exec as { command?: unknown } | undefined;
  return (
    found && {
      ...found,
      user:
        exec && typeof exec.command === 'string' && exec.command.includes('/')
          ? {
              ...resolvedUser,
              exec: withAbsolutePaths(exec as Record<string, unknown>, ['command'], sourcePath),
            }
          : resolvedUser,
    }
  );
}

/** Shortest plugin setting that is masked: a shorter one (`1`, `true`, `eu`) would mask that text all through the log. */
export const minimumMaskedLength = 8;

/** Pure: each line of `value` (trimmed) of at least `minimumMaskedLength` characters. */
function maskableLines(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length >= minimumMaskedLength);
}

/**
 * Pure: the values a credential plugin is given that may be secrets: every `exec.env` value
 * (AWS keys, a token passed to a helper) and every `auth-provider.config` value (client secret,
 * id and refresh tokens, certificate data), line by line, each of at least
 * `minimumMaskedLength` characters.
 */
function pluginSecrets(u: KubeconfigUser | undefined): string[] {
  const exec = u?.exec as { env?: unknown } | undefined;
  const env = Array.isArray(exec?.env) ? (exec.env as { value?: unknown }[]) : [];
  const provider = u?.['auth-provider'] as { config?: unknown } | undefined;
  const config =
    provider?.config && typeof provider.config === 'object'
      ? Object.values(provider.config as Record<string, unknown>)
      : [];
  return [...env.map((e) => e?.value), ...config].flatMap(maskableLines);
}

/**
 * The user entry's credential values to mask: token, password, the client key and certificate
 * data (pemLines), the client key file's content when the file exists (read here), and what a
 * credential plugin is given (`pluginSecrets`: exec env values, auth-provider config values).
 */
function secretsOfUser(u: KubeconfigUser | undefined): string[] {
  const secrets: string[] = [];
  if (u?.token) secrets.push(u.token);
  if (u?.password) secrets.push(u.password);
  secrets.push(...pemLines(u?.['client-key-data']), ...pemLines(u?.['client-certificate-data']));
  const keyFile = u?.['client-key'];
  if (keyFile && existsSync(keyFile)) secrets.push(...pemLines(readFileSync(keyFile).toString('base64')));
  secrets.push(...pluginSecrets(u));
  return secrets;
}

/**
 * The names of every context of a kubeconfig (its files merged as kubectl merges them), in
 * file order: the CLI's --all-contexts.
 * @throws ClusterAccessError `no-such-file` or `not-a-kubeconfig`, as loadKubeconfig.
 */
export function listContexts(input: string, env: KubeconfigEnvironment): string[] {
  const { texts, origin } = readKubeconfigInput(input, env);
  const doc = mergeDocs(texts.map((t) => parseDoc(t, origin)));
  return (doc.contexts ?? []).map((c) => c.name).filter((n) => typeof n === 'string' && n !== '');
}

/**
 * Reads, parses and validates a kubeconfig and pins it to one context.
 * @param input the raw `kubeconfig` input (see readKubeconfigInput for its forms)
 * @param context the `context` input; '' for the kubeconfig's current-context
 * @throws ClusterAccessError `no-such-file`, `not-a-kubeconfig`, `no-such-context` (the message
 *   lists the contexts there are) or `no-server`.
 */
export function loadKubeconfig(input: string, context: string, env: KubeconfigEnvironment): LoadedKubeconfig {
  const { texts, origin } = readKubeconfigInput(input, env);
  const doc = mergeDocs(texts.map((t) => parseDoc(t, origin)));
  const { chosen, ctx } = chooseContext(doc, context, origin);
  const { cluster, server } = clusterOfContext(doc, ctx, chosen, origin);
  const sourcePath = sourcePathOf(origin);
  const user = pinnedUserOf(doc, ctx, sourcePath);
  const pinnedCluster = {
    ...cluster,
    cluster: withAbsolutePaths(cluster.cluster, ['certificate-authority'], sourcePath),
  };
  const pinned: KubeconfigDoc = {
    ...doc,
    clusters: [pinnedCluster],
    contexts: [ctx],
    users: user ? [user] : [],
    'current-context': chosen,
  };
  const pinnedYaml = stringifyYaml(pinned);
  const u = user?.user;
  return {
    pinnedYaml,
    credentials: (options) =>
      resolveHttpsCredentials(pinnedCluster.cluster ?? {}, u, pinnedYaml, undefined, options),
    context: chosen,
    server,
    origin,
    secrets: secretsOfUser(u),
  };
}

/**
 * Writes the kubeconfig (pinned to its context) to a file only the current user can read
 * (mode 0600) under `dir` (default: $RUNNER_TEMP, else a new private folder in the OS temp folder), for tools that
 * take a file (helm, kubectl). Returns the path.
 */
export function writeKubeconfigFile(loaded: LoadedKubeconfig, dir?: string): string {
  const base = dir ?? process.env.RUNNER_TEMP;
  // Outside a runner: a private folder of this run, never a shared one another user may own.
  const folder = base ? join(base, 'kube-sweep') : mkdtempSync(join(tmpdir(), 'kube-sweep-'));
  makeDirectories(folder, 0o700);
  const path = join(folder, `kubeconfig-${process.pid}-${Date.now()}.yaml`);
  writeFileSync(path, loaded.pinnedYaml, { mode: 0o600 });
  return path;
}
