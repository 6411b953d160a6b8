/**
 * The forecast the dry run reads (rules/deletion-forecast.ts): an object whose deletion would
 * not end while a teardown waits, from the recorded S02 snapshot (a Widget held by
 * example.com/cleanup, no controller of it running) and variants of it.
 */
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { deletionForecast } from '../../../src/rules/deletion-forecast.js';
import { loadRecordedFixture, withDeployment } from './support/recorded-fixture.js';

const { fixture, inventory } = loadRecordedFixture('s02-operator-gone-finalizer');
const ns = fixture.names.namespace!;
const widget = inventory.objects.find((o) => o.kind === 'Widget' && o.namespace === ns)!;
const now = Date.parse(inventory.takenAt) + 1000;
const notDeleting = (o: ObjectMetadata): ObjectMetadata => {
  const copy = { ...o };
  delete copy.deletionTimestamp;
  return copy;
};

test('a finalizer whose controller does not run: the deletion would not end, with the controller search as evidence', () => {
  const why = deletionForecast(inventory, { now, stuckAfterSeconds: 1e9 })(notDeleting(widget));
  expect(why).toMatch(
    /^finalizer example\.com\/cleanup: no controller for it appears to run: no live Deployment, StatefulSet, DaemonSet/,
  );
});

test('a deletion already held longer than the stuck threshold stays, whatever runs', () => {
  expect(deletionForecast(inventory, { now, stuckAfterSeconds: 0 })(widget)).toBe(
    `deleting since ${widget.deletionTimestamp}, still held by finalizer example.com/cleanup`,
  );
});

test('nothing foretold: no finalizer, a finalizer Kubernetes removes itself, or a live controller', () => {
  const forecast = deletionForecast(inventory, { now, stuckAfterSeconds: 1e9 });
  expect(forecast({ ...notDeleting(widget), finalizers: [] })).toBeUndefined();
  expect(forecast({ ...notDeleting(widget), finalizers: ['kubernetes.io/pvc-protection'] })).toBeUndefined();
  // A Deployment named after the finalizer's domain with an available replica: its controller runs.
  const live = withDeployment(inventory, 'ops', 'example-operator', 1);
  expect(deletionForecast(live, { now, stuckAfterSeconds: 1e9 })(notDeleting(widget))).toBeUndefined();
});
