import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeRelease, type HelmRelease } from '../../../src/helm/release-storage.js';
import { buildPlan, type TeardownPlan } from '../../../src/plan/build-plan.js';
import type { ResourceIndex } from '../../../src/teardown/resource-index.js';

/** A release record recorded from the local control plane (__tests__/fixtures/helm), as stored. */
export function recordedRecord(file: string): {
  kind: 'Secret' | 'ConfigMap';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  data: { release: string };
} {
  return JSON.parse(readFileSync(join(process.cwd(), '__tests__/fixtures/helm', file), 'utf8')) as ReturnType<
    typeof recordedRecord
  >;
}

/** A release record (a Secret, or a ConfigMap of the configmap driver) recorded from the local control plane, decoded. */
export function recordedRelease(file: string): HelmRelease {
  const record = recordedRecord(file);
  return decodeRelease(record.data.release, `${record.metadata.namespace}/${record.metadata.name}`, {
    kind: record.kind,
  });
}

/**
 * The plan of the recorded Helm 4 operator and app releases (helm4-operator.json, helm4-app.json)
 * in their namespace `fixture-helm4`, namespaces deleted, no snapshot instances: the app's
 * Widgets first, the operator after.
 */
export function operatorAppPlan(resources: ResourceIndex): TeardownPlan {
  return buildPlan({
    scope: { namespaces: ['fixture-helm4'], protectedMatched: [], unmatchedPatterns: [] },
    releaseRefs: [],
    foundReleases: [recordedRelease('helm4-operator.json'), recordedRelease('helm4-app.json')],
    userOrder: [],
    deleteNamespaces: true,
    resourceOf: (g, kind) => resources(g, kind)?.resource,
    namespacedOf: (g, kind) => resources(g, kind)?.namespaced,
    instancesOf: () => [],
  });
}
