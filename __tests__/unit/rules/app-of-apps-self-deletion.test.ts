/**
 * app-of-apps-self-deletion over the recorded S12 snapshot (a Terminating namespace) with Argo CD
 * Applications held by their resources finalizer added, and Argo CD's tracking id on the namespace
 * (the shapes the S24 integration test builds on the control plane).
 */
import { buildInventory } from '../../../src/inventory/snapshot.js';
import { appOfAppsSelfDeletionRule } from '../../../src/rules/app-of-apps-self-deletion.js';
import { replayContext } from './support/recorded-fixture.js';
import { annotateNamespace, held, s12 } from './support/round3-variants.js';

const argo = 'resources-finalizer.argocd.argoproj.io';

function appsIn(ns: string) {
  const { inventory } = s12();
  const app = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    resource: 'applications',
    ns,
    finalizer: argo,
    status: {},
  };
  return held(inventory, [
    { ...app, name: 'bootstrap' },
    { ...app, name: 'in-cluster' },
  ]);
}

test('S24: the Application that manages the Terminating namespace it lives in is AppOfAppsSelfDeletion, naming what waits', () => {
  const { fixture } = s12();
  const ns = fixture.names.namespace!;
  const tracking = `in-cluster:/Namespace:/${ns}`;
  const marked = annotateNamespace(appsIn(ns), ns, { 'argocd.argoproj.io/tracking-id': tracking });
  const [f, ...rest] = appOfAppsSelfDeletionRule.check(buildInventory(marked), replayContext(fixture));
  expect(rest).toEqual([]);
  expect([f!.code, f!.severity, f!.object.kind, f!.object.namespace, f!.object.name]).toEqual([
    'AppOfAppsSelfDeletion',
    'error',
    'Application',
    ns,
    'in-cluster',
  ]);
  expect(f!.message).toBe(
    `applications.argoproj.io ${ns}/in-cluster manages namespace ${ns}, which it lives in: deleting it with its ` +
      "resources finalizer made Argo CD's own cascade delete the namespace Argo CD runs in, and with it the " +
      "controller that had to finalize 2 objects there, which now wait on Argo CD's finalizers",
  );
  expect(f!.evidence).toEqual([
    `namespace ${ns} carries argocd.argoproj.io/tracking-id=${tracking}: it names applications.argoproj.io ${ns}/in-cluster, which lives in it`,
    `namespace ${ns} is Terminating: nothing can be created in it (403), so Argo CD cannot come back in place`,
    `applications.argoproj.io ${ns}/bootstrap is held by ${argo}`,
    `applications.argoproj.io ${ns}/in-cluster is held by ${argo}`,
  ]);
  expect(f!.remediation.summary).toContain('Next time: delete the leaf Applications (cascade)');
  expect(f!.remediation.commands).toContain(
    `kubectl annotate namespace ${ns} argocd.argoproj.io/sync-options=Delete=false`,
  );
});

test('not reported: the namespace is not marked, or marked by an app that does not live in it', () => {
  const { fixture } = s12();
  const ns = fixture.names.namespace!;
  const context = replayContext(fixture);
  expect(appOfAppsSelfDeletionRule.check(buildInventory(appsIn(ns)), context)).toEqual([]);
  const elsewhere = annotateNamespace(appsIn(ns), ns, {
    'argocd.argoproj.io/tracking-id': `other:/Namespace:/${ns}`,
  });
  expect(appOfAppsSelfDeletionRule.check(buildInventory(elsewhere), context)).toEqual([]);
});
