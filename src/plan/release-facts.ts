import { groupOf } from '../kube/api-version.js';
import type { HelmRelease } from '../helm/release-storage.js';
import { parseManifest, type ManifestObject } from '../helm/manifest.js';
import { releaseKey } from './scope.js';

/** A CustomResourceDefinition a release ships (from its templates or its chart's crds/ folder). */
export interface ProvidedCrd {
  /** metadata.name, `<plural>.<group>`. */
  readonly name: string;
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** The served versions; the first is the storage version when one is marked so. */
  readonly versions: readonly string[];
  readonly source: 'templates' | 'crds/';
  /** Where the release holds it: the chart file (`crds/….yaml`) for `crds/`, `templates` otherwise. */
  readonly file: string;
}

/** One admission webhook of a release's webhook configuration. */
export interface ProvidedWebhook {
  readonly configuration: string;
  readonly kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  readonly webhook: string;
  readonly rules: readonly { apiGroups: string[]; resources: string[]; operations: string[] }[];
}

/** An aggregated API a release registers (APIService with a backing Service). */
export interface ProvidedApiService {
  readonly name: string;
  readonly group: string;
  readonly version: string;
}

/** What the plan needs to know of one release, read from its stored manifest and chart. */
export interface ReleaseFacts {
  readonly key: string;
  readonly release: HelmRelease;
  /** The manifest's objects (hooks excluded; crds/ files excluded). */
  readonly objects: readonly ManifestObject[];
  readonly crds: readonly ProvidedCrd[];
  readonly webhooks: readonly ProvidedWebhook[];
  readonly apiServices: readonly ProvidedApiService[];
}

function crdOf(o: ManifestObject, source: ProvidedCrd['source'], file: string): ProvidedCrd | undefined {
  if (o.kind !== 'CustomResourceDefinition') return undefined;
  const spec = (o.body.spec ?? {}) as {
    group?: string;
    scope?: string;
    names?: { kind?: string; plural?: string };
    versions?: { name: string; served?: boolean; storage?: boolean }[];
  };
  const versions = [...(spec.versions ?? [])]
    .filter((v) => v.served !== false)
    .sort((a, b) => Number(b.storage ?? false) - Number(a.storage ?? false))
    .map((v) => v.name);
  return {
    name: o.name,
    group: spec.group ?? '',
    kind: spec.names?.kind ?? '',
    plural: spec.names?.plural ?? '',
    namespaced: spec.scope !== 'Cluster',
    versions,
    source,
    file,
  };
}

/**
 * Pure: reads a release's manifest, chart crds/ files and kinds of interest.
 * @throws ManifestParseError when the stored manifest is not YAML (names the release)
 */
export function releaseFacts(release: HelmRelease): ReleaseFacts {
  const key = releaseKey(release);
  const objects = parseManifest(release.manifest, `release ${key}`);
  const crds: ProvidedCrd[] = [];
  for (const o of objects) {
    const crd = crdOf(o, 'templates', 'templates');
    if (crd) crds.push(crd);
  }
  for (const file of release.crdFiles) {
    for (const o of parseManifest(file.yaml, `release ${key} chart file ${file.name}`)) {
      const crd = crdOf(o, 'crds/', file.name);
      if (crd && !crds.some((c) => c.name === crd.name)) crds.push(crd);
    }
  }
  const webhooks: ProvidedWebhook[] = [];
  const apiServices: ProvidedApiService[] = [];
  for (const o of objects) {
    if (o.kind === 'ValidatingWebhookConfiguration' || o.kind === 'MutatingWebhookConfiguration') {
      for (const w of (o.body.webhooks ?? []) as { name?: string; rules?: ProvidedWebhook['rules'] }[]) {
        webhooks.push({
          configuration: o.name,
          kind: o.kind,
          webhook: w.name ?? '',
          rules: (w.rules ?? []).map((r) => ({
            apiGroups: r.apiGroups ?? [],
            resources: r.resources ?? [],
            operations: r.operations ?? [],
          })),
        });
      }
    }
    if (o.kind === 'APIService' && groupOf(o.apiVersion) === 'apiregistration.k8s.io') {
      const spec = (o.body.spec ?? {}) as { group?: string; version?: string; service?: unknown };
      if (spec.service)
        apiServices.push({ name: o.name, group: spec.group ?? '', version: spec.version ?? '' });
    }
  }
  return { key, release, objects, crds, webhooks, apiServices };
}

/**
 * Pure: the facts of the `earlier` stored revisions of the releases of `facts` (same namespace,
 * name and storage kind; others are left out), keyed `<namespace>/<name> (stored revision <n>)`
 * so that a refusal about one names the revision. `helm uninstall` acts on one of them when it
 * cannot decode a later one. A revision whose manifest does not parse is left out (its record
 * was validated when it was decoded, so that does not happen).
 */
export function earlierRevisionFacts(
  earlier: readonly HelmRelease[],
  facts: readonly ReleaseFacts[],
): ReleaseFacts[] {
  const chosen = new Set(facts.map((f) => JSON.stringify([f.release.storage.kind, f.key])));
  return earlier
    .filter((r) => chosen.has(JSON.stringify([r.storage.kind, releaseKey(r)])))
    .flatMap((r) => {
      try {
        return [{ ...releaseFacts(r), key: `${releaseKey(r)} (stored revision ${r.revision})` }];
      } catch {
        return [];
      }
    });
}
