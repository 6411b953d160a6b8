/**
 * The optional etcd read (`etcd-endpoint`): which custom-resource data etcd stores, by key
 * prefix, read-only. kube-apiserver stores a custom resource at
 * `/registry/<group>/<plural>/[<namespace>/]<name>` (apiextensions-apiserver, the CRD's
 * storage prefix); when a CRD is force-finalized its instances' keys stay (scenario S07).
 * Read through etcd's gRPC gateway (`POST /v3/kv/range`, JSON with base64 keys, keys only,
 * paged), so no etcdctl is needed. Only keys whose second segment is a group (it has a dot, as
 * every CRD group must) are kept, counted per (group, resource) with a few sample names.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

/** The stored data of one (group, resource) key prefix. */
export interface EtcdPrefix {
  readonly group: string;
  readonly resource: string;
  readonly count: number;
  /** Up to 5 `<namespace>/<name>` (or `<name>`) in key order. */
  readonly samples: readonly string[];
  /** Namespaces of the keys (sorted), for scope. */
  readonly namespaces: readonly string[];
}

/** What the etcd read found. */
export interface EtcdData {
  readonly endpoint: string;
  /** How many keys under /registry/ were read. */
  readonly keys: number;
  readonly prefixes: readonly EtcdPrefix[];
}

/** `etcd-endpoint` and, for TLS, the PEM files of `etcd-tls`. */
export interface EtcdAccess {
  readonly endpoint: string;
  readonly tls?: { readonly ca: string; readonly cert: string; readonly key: string };
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/**
 * Pure: groups `/registry/<group>/<resource>/...` keys with a dotted group; other keys are
 * counted only. Object names hold no '/', so a key with two segments after the resource is
 * namespaced (`<namespace>/<name>`), one segment is cluster-scoped.
 */
export function groupKeys(keys: readonly string[]): EtcdPrefix[] {
  const by = new Map<
    string,
    { group: string; resource: string; count: number; samples: string[]; namespaces: Set<string> }
  >();
  for (const key of keys) {
    const parts = key.split('/'); // '', 'registry', group, resource, ...
    const [, root, group, resource, ...rest] = parts;
    if (root !== 'registry' || !group?.includes('.') || !resource || rest.length === 0) continue;
    const id = `${group}/${resource}`;
    const entry = by.get(id) ?? { group, resource, count: 0, samples: [], namespaces: new Set<string>() };
    entry.count++;
    if (rest.length >= 2) entry.namespaces.add(rest[0]!);
    if (entry.samples.length < 5) entry.samples.push(rest.join('/'));
    by.set(id, entry);
  }
  return [...by.values()]
    .map((e) => ({ ...e, namespaces: [...e.namespaces].sort() }))
    .sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource));
}

/**
 * Reads every key under /registry/ (keys only, pages of 5000) and groups them.
 * @throws Error naming the endpoint when etcd cannot be read (the caller records coverage).
 */
export async function readEtcd(access: EtcdAccess, timeoutMs: number): Promise<EtcdData> {
  const agent = new Agent({
    connect: access.tls
      ? {
          ca: readFileSync(access.tls.ca),
          cert: readFileSync(access.tls.cert),
          key: readFileSync(access.tls.key),
        }
      : {},
  });
  const keys: string[] = [];
  const end = b64('/registry0');
  let from = b64('/registry/');
  try {
    for (;;) {
      const res = await request(new URL('/v3/kv/range', access.endpoint), {
        method: 'POST',
        dispatcher: agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: from, range_end: end, keys_only: true, limit: 5000 }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      const page = JSON.parse(text) as { kvs?: { key: string }[]; more?: boolean };
      const batch = (page.kvs ?? []).map((kv) => Buffer.from(kv.key, 'base64').toString('utf8'));
      keys.push(...batch);
      if (!page.more || batch.length === 0) break;
      from = b64(`${batch.at(-1)!}\0`);
    }
  } catch (error) {
    throw new Error(`could not read etcd at ${access.endpoint}: ${(error as Error).message}`);
  } finally {
    await agent.close();
  }
  return { endpoint: access.endpoint, keys: keys.length, prefixes: groupKeys(keys) };
}
