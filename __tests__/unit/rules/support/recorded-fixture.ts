/**
 * Inventory fixtures recorded from the real control plane by the scenario tests in
 * __tests__/integration/rules (RECORD_FIXTURES=1), and the rule context to replay them with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuleContext } from '../../../../src/rules/rule.js';
import { buildInventory, type Inventory, type InventoryData } from '../../../../src/inventory/snapshot.js';

export const recordedFixturesDir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'fixtures',
  'rules',
);

/** One recorded snapshot of a built fault. */
export interface RecordedFixture {
  /** Scenario id and title (shared/cases/scenarios.md). */
  readonly scenario: string;
  /** The names the scenario generated on that run, so the tests can assert on them. */
  readonly names: Readonly<Record<string, string>>;
  /** The namespaces the scenario treats as its environment. */
  readonly environmentNamespaces: readonly string[];
  /** What was kept of the whole-cluster snapshot (objects of other namespaces are dropped). */
  readonly kept: string;
  /** The snapshot as collectInventory built it, minus what `kept` says was dropped. */
  readonly inventory: InventoryData;
  /**
   * What the run told the rules besides the snapshot, as recorded from the real run: the
   * requests the API server refused (DeletionRefused) and the release records kube-sweep
   * refused (HelmReleaseRecordInvalid). Absent: nothing.
   */
  readonly context?: Pick<RuleContext, 'refusals' | 'invalidReleaseRecords'>;
}

/** Reads `__tests__/fixtures/rules/<name>.json` and rebuilds its indexes. */
export function loadRecordedFixture(name: string): { fixture: RecordedFixture; inventory: Inventory } {
  const fixture = JSON.parse(
    readFileSync(join(recordedFixturesDir, `${name}.json`), 'utf8'),
  ) as RecordedFixture;
  return { fixture, inventory: buildInventory(fixture.inventory) };
}

/**
 * The context the scenario tests use: `now` one second after the snapshot was taken,
 * deletions count as stuck at once (the faults were just built), the scenario's environment,
 * and what the recorded run told the rules besides the snapshot (`fixture.context`).
 */
export function replayContext(fixture: RecordedFixture, overrides: Partial<RuleContext> = {}): RuleContext {
  return {
    now: Date.parse(fixture.inventory.takenAt) + 1000,
    stuckAfterSeconds: 0,
    environmentNamespaces: new Set(fixture.environmentNamespaces),
    ...fixture.context,
    ...overrides,
  };
}

/**
 * Every recorded fixture, by file name (without `.json`): read from the folder, so that a
 * fixture added later is covered by the registry invariants too (a hand-kept list stopped at
 * S14 and left S15–S23 unchecked).
 */
export const recordedScenarios: readonly string[] = readdirSync(recordedFixturesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();

/** A variant of a recorded snapshot: `change` returns the changed data, the indexes are rebuilt. */
export function withInventory(
  inventory: Inventory,
  change: (data: InventoryData) => InventoryData,
): Inventory {
  return buildInventory(change(inventory));
}

/** A variant of a recorded snapshot with StatefulSet `name` in `namespace` (metadata only). */
export function withStatefulSet(inventory: Inventory, namespace: string, name: string): Inventory {
  return withInventory(inventory, (d) => ({
    ...d,
    objects: [
      ...d.objects,
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        resource: 'statefulsets',
        namespace,
        name,
        uid: `sts-${name}`,
      },
    ],
  }));
}

/**
 * A variant of a recorded snapshot where Namespace `name` (listed whole) is Active again: no
 * deletionTimestamp, phase Active (the environment before a teardown).
 */
export function withActiveNamespace(inventory: Inventory, name: string): Inventory {
  return withInventory(inventory, (d) => ({
    ...d,
    full: {
      ...d.full,
      namespaces: d.full.namespaces.map((n) => {
        const ns = n as { metadata: { name: string; deletionTimestamp?: string } };
        if (ns.metadata.name !== name) return n;
        const metadata = { ...ns.metadata };
        delete metadata.deletionTimestamp;
        return { ...ns, metadata, status: { phase: 'Active' } };
      }),
    },
  }));
}

/**
 * A variant of a recorded snapshot with Deployment `namespace`/`name` (listed whole, one replica
 * wanted) with `availableReplicas` available: live evidence of a controller when above zero.
 */
export function withDeployment(
  inventory: Inventory,
  namespace: string,
  name: string,
  availableReplicas: number,
): Inventory {
  const uid = `deploy-${namespace}-${name}`;
  return withInventory(inventory, (d) => ({
    ...d,
    objects: [
      ...d.objects,
      { apiVersion: 'apps/v1', kind: 'Deployment', resource: 'deployments', namespace, name, uid },
    ],
    full: {
      ...d.full,
      deployments: [
        ...(d.full.deployments ?? []),
        { metadata: { name, namespace, uid }, spec: { replicas: 1 }, status: { availableReplicas } },
      ],
    },
  }));
}
