/**
 * quota-terminal-pods over the recorded S12 snapshot with a `count/pods` quota and whole Pods
 * added (the shapes the integration test reads from the control plane).
 */
import { buildInventory, type InventoryData } from '../../../src/inventory/snapshot.js';
import { quotaTerminalPodsRule } from '../../../src/rules/quota-terminal-pods.js';
import { replayContext } from './support/recorded-fixture.js';
import { podQuota, s12 } from './support/round3-variants.js';

test('Pods of a finished Job fill count/pods: the Job is named, and the remedy deletes the Pods and the Job', () => {
  const { fixture, inventory } = s12();
  const full = buildInventory(
    podQuota(inventory, 3, [
      { name: 'migrate-a', phase: 'Failed', job: 'migrate' },
      { name: 'migrate-b', phase: 'Failed', job: 'migrate' },
      { name: 'web', phase: 'Running' },
    ]),
  );
  const [f, ...rest] = quotaTerminalPodsRule.check(full, replayContext(fixture));
  expect(rest).toEqual([]);
  expect(f!.message).toMatch(
    /^ResourceQuota default\/pods is at its hard limit for count\/pods \(3 of 3\), and 2 terminal Pods/,
  );
  expect(f!.evidence).toEqual([
    'count/pods: used 3, hard 3',
    'pods default/migrate-a: Failed, owned by Job migrate',
    'pods default/migrate-b: Failed, owned by Job migrate',
    'the next Pod create is refused with: pods "<name>" is forbidden: exceeded quota: pods, requested: count/pods=1, used: count/pods=3, limited: count/pods=3',
    'a `pods` quota would not count them: it counts only Pods that are not Succeeded or Failed',
    'owned by Job migrate: their Pods stay as long as the Job does',
  ]);
  expect(f!.remediation.commands).toEqual([
    'kubectl get resourcequota pods -n default -o yaml',
    'kubectl delete pods -n default migrate-a migrate-b',
    'kubectl delete jobs.batch -n default migrate --cascade=background',
  ]);
});

test('not reported: room left, only running or pending Pods, or the terminal Pods are already being deleted', () => {
  const { fixture, inventory } = s12();
  const context = replayContext(fixture);
  const check = (d: InventoryData) => quotaTerminalPodsRule.check(buildInventory(d), context);
  expect(check(podQuota(inventory, 3, [{ name: 'done', phase: 'Succeeded' }]))).toEqual([]);
  expect(
    check(
      podQuota(inventory, 2, [
        { name: 'a', phase: 'Running' },
        { name: 'b', phase: 'Pending' },
      ]),
    ),
  ).toEqual([]);
  expect(check(podQuota(inventory, 1, [{ name: 'gone', phase: 'Succeeded', deleting: true }]))).toEqual([]);
});
