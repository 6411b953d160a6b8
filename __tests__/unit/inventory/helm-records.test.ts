import { configMapRecordNamespaces } from '../../../src/inventory/helm-records.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { recordedRecord } from '../support/fixtures.js';

/** The metadata the snapshot keeps of a recorded record (resource as listed), in namespace `namespace`. */
function listed(file: string, namespace: string, resource: string): ObjectMetadata {
  const r = recordedRecord(file);
  return {
    apiVersion: 'v1',
    kind: r.kind,
    resource,
    namespace,
    name: r.metadata.name,
    uid: `${namespace}-${r.metadata.name}`,
    labels: r.metadata.labels,
  };
}

test('configMapRecordNamespaces: only namespaces holding a release ConfigMap, sorted, once each', () => {
  const objects: ObjectMetadata[] = [
    listed('helm4-configmap-modes.json', 'pr-2', 'configmaps'),
    listed('helm4-configmap-modes.json', 'pr-1', 'configmaps'),
    { ...listed('helm4-configmap-modes.json', 'pr-1', 'configmaps'), name: 'sh.helm.release.v1.modes.v2' },
    // A release Secret, a ConfigMap not labelled owner=helm, one labelled but not named as a record.
    listed('helm4-app.json', 'pr-3', 'secrets'),
    { ...listed('helm4-configmap-modes.json', 'pr-4', 'configmaps'), labels: { name: 'modes' } },
    { ...listed('helm4-configmap-modes.json', 'pr-5', 'configmaps'), name: 'settings' },
  ];
  expect(configMapRecordNamespaces(objects)).toEqual(['pr-1', 'pr-2']);
});

test('configMapRecordNamespaces: no ConfigMap record, no namespace (kube-root-ca.crt and the like are not records)', () => {
  const rootCa: ObjectMetadata = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    resource: 'configmaps',
    namespace: 'kube-system',
    name: 'kube-root-ca.crt',
    uid: 'u1',
  };
  expect(configMapRecordNamespaces([rootCa, listed('helm4-app.json', 'pr-1', 'secrets')])).toEqual([]);
});
