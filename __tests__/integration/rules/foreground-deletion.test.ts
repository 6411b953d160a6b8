/**
 * An owner held in foreground deletion: a ConfigMap deleted with propagationPolicy Foreground
 * whose dependent (blockOwnerDeletion: true) carries a finalizer no controller removes. Built
 * for real, with the garbage collector of kube-controller-manager running: the owner's finding
 * names the dependent it waits for and is linked to the dependent's finalizer finding.
 */
import { waitFor } from '../../../src/util/wait.js';
import { findingKey } from '../../../src/rules/findings.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { createNamespace, getOrUndefined, uniqueName } from '../support/cluster.js';
import {
  adminApiForSuite,
  cleanupFinalizer,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

interface Meta {
  metadata: { uid: string; deletionTimestamp?: string; finalizers?: string[] };
}

test('foreground deletion: the owner names the blockOwnerDeletion dependent it waits for and links to what holds it', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-fg');
  const ns = `${id}-o`;
  const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
  try {
    await createNamespace(api, ns);
    const owner = await api.request<Meta>({
      method: 'POST',
      path: configMaps,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } },
    });
    await createObject(api, configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'dependent',
        finalizers: [cleanupFinalizer],
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: owner.metadata.uid,
            blockOwnerDeletion: true,
          },
        ],
      },
    });
    // A dependent without blockOwnerDeletion: the owner does not wait for it (and it goes).
    await createObject(api, configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'bystander',
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }],
      },
    });
    await api.request({
      method: 'DELETE',
      path: `${configMaps}/owner`,
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' },
    });
    // The garbage collector deletes the dependents; the one with the finalizer stays, and so does the owner.
    await waitFor(
      async () => {
        const dependent = await getOrUndefined<Meta>(api, `${configMaps}/dependent`);
        const bystander = await getOrUndefined<Meta>(api, `${configMaps}/bystander`);
        const done = dependent?.metadata.deletionTimestamp !== undefined && bystander === undefined;
        return { done, value: done };
      },
      { timeoutMs: 60_000, description: 'the garbage collector to delete the dependents' },
    );
    const held = await api.request<Meta>({ path: `${configMaps}/owner` });
    expect(held.metadata.finalizers).toEqual(['foregroundDeletion']);

    const inventory = await snapshot(api);
    recordFixture('foreground-deletion', inventory, {
      scenario: 'Owner in foreground deletion waiting for a blockOwnerDeletion dependent held by a finalizer',
      names: { namespace: ns },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = findingsAbout(findingsOf(inventory, [ns]), [id]);
    const foreground = mine.find(
      (f) => f.key === findingKey('StuckFinalizer', finalizerGroupSubject(ns, 'foregroundDeletion')),
    );
    const cleanupSubject = finalizerGroupSubject(ns, cleanupFinalizer);
    const cleanup = mine.find(
      (f) =>
        f.key === findingKey('OperatorGoneFinalizer', cleanupSubject) ||
        f.key === findingKey('StuckFinalizer', cleanupSubject),
    );
    expect(foreground).toBeDefined();
    expect(cleanup).toBeDefined();
    expect(foreground!.message).toContain(
      `the garbage collector removes it only when the dependent with blockOwnerDeletion is gone (configmaps ${ns}/dependent)`,
    );
    expect(foreground!.evidence).toContain(
      `configmaps ${ns}/owner waits for dependent configmaps ${ns}/dependent [${cleanupFinalizer}] (deleting since ${
        inventory.byNamespace.get(ns)!.find((o) => o.name === 'dependent')!.deletionTimestamp
      }) (blockOwnerDeletion)`,
    );
    expect(foreground!.evidence.join('\n')).not.toContain('bystander');
    expect(foreground!.causedBy).toEqual([cleanup!.key]);
  } finally {
    await removeFinalizers(api, `${configMaps}/dependent`);
    await deleteNamespaceAndWait(api, ns);
  }
});
