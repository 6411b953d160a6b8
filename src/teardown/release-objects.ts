/**
 * Pure: what a release puts where, read from its stored manifests and hook manifests: the objects
 * to wait for (and the kept, unserved and unverifiable ones), its hook objects, the namespaces it
 * touches, and for each namespace to delete the last stage whose releases touch it.
 */
import { groupOf } from '../kube/api-version.js';
import { keptByHelm, parseManifest } from '../helm/manifest.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import type { ResourceIndex } from './resource-index.js';
import type { StageResult } from '../model/teardown-result.js';
import type { AwaitedObject } from './wait-gone.js';

/** Pure: the objects that a release's hooks create (from the stored hook manifests). */
export function hookObjects(release: ReleaseFacts, resources: ResourceIndex): AwaitedObject[] {
  const out: AwaitedObject[] = [];
  for (const hook of release.release.hooks) {
    for (const o of parseManifest(hook.manifest, `release ${release.key} hook ${hook.path}`)) {
      const group = groupOf(o.apiVersion);
      const address = resources(group, o.kind, o.apiVersion.slice(group ? group.length + 1 : 0));
      if (!address) continue;
      const namespace = address.namespaced ? (o.namespace ?? release.release.namespace) : undefined;
      out.push({
        apiVersion: o.apiVersion,
        kind: o.kind,
        ...(namespace ? { namespace } : {}),
        name: o.name,
        address,
      });
    }
  }
  return out;
}

/**
 * Pure: the objects of a release's manifest to wait for, the kept ones, the kinds no longer
 * served, and the kinds whose group-version failed discovery (cannot be checked).
 */
export function objectsToAwait(
  release: ReleaseFacts,
  resources: ResourceIndex,
  failedGroupVersions: ReadonlySet<string>,
) {
  const awaited: AwaitedObject[] = [];
  const kept: StageResult['kept'][number][] = [];
  const unserved = new Set<string>();
  const unverifiable = new Set<string>();
  for (const o of release.objects) {
    const group = groupOf(o.apiVersion);
    const version = o.apiVersion.slice(group ? group.length + 1 : 0);
    const address = resources(group, o.kind, version);
    const namespace = address?.namespaced ? (o.namespace ?? release.release.namespace) : undefined;
    const ref = { apiVersion: o.apiVersion, kind: o.kind, ...(namespace ? { namespace } : {}), name: o.name };
    if (keptByHelm(o.annotations)) {
      kept.push(ref);
      continue;
    }
    if (!address) {
      const label = `${o.kind}.${group || 'core'}/${version}`;
      if (failedGroupVersions.has(o.apiVersion)) unverifiable.add(label);
      else unserved.add(label);
      continue;
    }
    awaited.push({ ...ref, address });
  }
  return { awaited, kept, unserved: [...unserved].sort(), unverifiable: [...unverifiable].sort() };
}

/** Pure: the namespaces a release has its record, a manifest object or a hook object in. */
export function namespacesOf(release: ReleaseFacts, resources: ResourceIndex): Set<string> {
  const spaces = new Set([release.release.namespace]);
  for (const o of release.objects) if (o.namespace) spaces.add(o.namespace);
  for (const o of hookObjects(release, resources)) if (o.namespace) spaces.add(o.namespace);
  return spaces;
}

/**
 * Pure: for each namespace to delete, the index of the last stage whose releases touch it
 * (`namespacesOf`), and those releases of that stage. Once they are uninstalled, nothing in
 * the namespace waits on an order any more, so it can be deleted while the rest runs. A
 * namespace no release touches gets the last stage and no releases (deleted once every
 * release is gone, as something of a release may still run there: a webhook's backend).
 */
export function lastStageTouching(
  plan: TeardownPlan,
  resources: ResourceIndex,
): Map<string, { stage: number; releases: string[] }> {
  const byKey = new Map(plan.releases.map((r) => [r.key, r]));
  const last = new Map<string, { stage: number; releases: string[] }>(
    plan.namespacesToDelete.map((n) => [n, { stage: plan.stages.length - 1, releases: [] }]),
  );
  for (const stage of plan.stages) {
    for (const key of stage.releases) {
      for (const ns of namespacesOf(byKey.get(key)!, resources)) {
        const entry = last.get(ns);
        if (!entry) continue;
        if (entry.releases.length === 0 || entry.stage < stage.index)
          last.set(ns, { stage: stage.index, releases: [key] });
        else entry.releases.push(key);
      }
    }
  }
  return last;
}
