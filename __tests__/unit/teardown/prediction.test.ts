/**
 * The prediction (teardown/prediction.ts) from a plan's dry run and the snapshot: an instance
 * whose finalizer's controller is gone hangs, its operator's release and namespace stay, and
 * each object is named once; `surprisesOf` names a leftover nobody predicted and a predicted
 * hang that went, and says nothing when the prediction held.
 */
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { dryRunOf } from '../../../src/teardown/dry-run.js';
import {
  knownHangs,
  predictedId,
  predictTeardown,
  surprisesOf,
  type PredictedRef,
} from '../../../src/teardown/prediction.js';
import { operatorAppPlan } from '../support/fixtures.js';
import { helm4Resources } from '../support/served-resources.js';

const resources = helm4Resources;
const ns = 'fixture-helm4';
const group = 'fixture4.kube-sweep.test';

const live = (
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): ObjectMetadata => ({
  apiVersion,
  kind,
  resource: '',
  ...(namespace !== undefined ? { namespace } : {}),
  name,
  uid: `uid-${name}`,
  ...(kind === 'Widget' ? { finalizers: [`${group}/cleanup`] } : {}),
});
const widgets = [live(`${group}/v1`, 'Widget', ns, 'w1'), live(`${group}/v1`, 'Widget', ns, 'w2')];

const plan = operatorAppPlan(resources);

function predict(hangs: boolean) {
  const why = `finalizer ${group}/cleanup: no controller for it appears to run`;
  const outlook = (o: ObjectMetadata) =>
    hangs && o.kind === 'Widget'
      ? { outcome: 'hangs' as const, why, finalizer: `${group}/cleanup` }
      : undefined;
  const dryRun = dryRunOf(plan, resources, {
    failedGroupVersions: new Set(),
    instancesOf: (g, kind) => (g === group && kind === 'Widget' ? widgets : []),
    outlivesDeletion: (o) => (outlook(o) ? why : undefined),
  });
  return {
    dryRun,
    prediction: predictTeardown(plan, resources, {
      dryRun,
      failedGroupVersions: new Set(),
      liveObject: (g, kind, namespace, name) => live(g ? `${g}/v1` : 'v1', kind, namespace, name),
      outlook,
    }),
  };
}

test('Widgets whose finalizer has no running controller hang; their operator release and namespace stay; each object once', () => {
  const { dryRun, prediction } = predict(true);
  const hanging = prediction.objects.filter((o) => o.expected === 'hangs');
  expect(hanging.map((o) => [o.object.kind, o.object.name])).toEqual([
    ['Widget', 'w1'],
    ['Widget', 'w2'],
  ]);
  expect(hanging[0]!.remedy).toContain(`kubectl patch`);
  expect(hanging[0]!.finalizers).toEqual([`${group}/cleanup`]);
  expect(prediction.releases).toContainEqual(
    expect.objectContaining({ release: `${ns}/operator`, expected: 'stays' }),
  );
  expect(prediction.namespaces).toEqual([expect.objectContaining({ name: ns, expected: 'stays' })]);
  // Hangs first, then stays.
  expect(prediction.objects.map((o) => o.expected).slice(0, 3)).toEqual(['hangs', 'hangs', 'stays']);
  const ids = prediction.objects.map((o) => predictedId(o.object));
  expect(new Set(ids).size).toBe(ids.length);
  // The dry run names each object once too (the Widgets are the app's objects, not again the operator's CRD instances).
  const named = dryRun.stages.flatMap((s) => [...s.crdInstances, ...s.objects]).map(predictedId);
  expect(new Set(named).size).toBe(named.length);
  expect(prediction.counts.hangs).toBe(2);
  expect([...knownHangs(prediction).keys()]).toEqual(hanging.map((o) => predictedId(o.object)));
});

test('with no reason to think otherwise the Widgets go and the namespace goes', () => {
  const { prediction } = predict(false);
  expect(prediction.counts.hangs).toBe(0);
  expect(prediction.namespaces).toEqual([expect.objectContaining({ name: ns, expected: 'goes' })]);
  expect(prediction.releases.every((r) => r.expected === 'goes')).toBe(true);
});

test('surprises: a leftover expected to go or not named, a predicted hang that went; none when the prediction held', () => {
  const { prediction } = predict(true);
  const w1 = { apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w1' };
  const w2 = { ...w1, name: 'w2' };
  const stranger = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'late' };
  // After the teardown, everything named here is still there unless in `gone`.
  const gone = new Set<string>();
  const stillThere = (o: PredictedRef) => !gone.has(predictedId(o));
  expect(surprisesOf(prediction, [{ object: w1 }, { object: w2 }], stillThere)).toEqual([]);
  expect(surprisesOf(prediction, [{ object: w1 }, { object: w2 }, { object: stranger }], stillThere)).toEqual(
    [
      {
        object: stranger,
        expected: 'unpredicted',
        actual: 'left',
        message: `ConfigMap ${ns}/late was left, and the prediction did not name it`,
      },
    ],
  );
  gone.add(predictedId(w2));
  expect(surprisesOf(prediction, [{ object: w1 }], stillThere)).toEqual([
    expect.objectContaining({ object: w2, expected: 'hangs', actual: 'gone' }),
  ]);
});
