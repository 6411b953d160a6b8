import type { HelmRelease } from '../../../src/helm/release-storage.js';
import { releaseFacts } from '../../../src/plan/release-facts.js';
import { resourceIndex } from '../../../src/teardown/resource-index.js';
import {
  planNamespaceRemovals,
  removalWithNamespaces,
  uninstallBatches,
} from '../../../src/teardown/remove-with-namespace.js';
import type { ObjectMetadata } from '../../../src/inventory/types.js';
import { contentCollections } from '../../../src/teardown/namespace-content.js';
import { recordedRelease } from '../support/fixtures.js';
import { helm4Resources, served } from '../support/served-resources.js';

const resources = helm4Resources;
const operator = recordedRelease('helm4-operator.json'); // fixture-helm4: CRD, Deployment, webhook configuration
const app = recordedRelease('helm4-app.json'); // fixture-helm4: ConfigMap, two Widgets
const withHook = (r: HelmRelease, events: string[]): HelmRelease => ({
  ...r,
  hooks: [
    {
      name: 'cleanup',
      kind: 'Job',
      path: 'templates/cleanup.yaml',
      manifest: '',
      events,
      deletePolicies: [],
    },
  ],
});

test('a release with no delete hook in a namespace deleted now goes with it; its cluster-scoped objects are deleted directly, webhooks first', () => {
  const removal = removalWithNamespaces(releaseFacts(operator), resources, new Set(['fixture-helm4']));
  expect(removal).toEqual({
    ok: true,
    namespaces: ['fixture-helm4'],
    direct: [
      expect.objectContaining({ kind: 'CustomResourceDefinition', name: 'widgets.fixture4.kube-sweep.test' }),
      expect.objectContaining({
        kind: 'ValidatingWebhookConfiguration',
        name: 'operator-fixture4.kube-sweep.test',
      }),
    ],
  });
  expect(uninstallBatches(removal.ok ? removal.direct : []).map((b) => b.map((o) => o.kind))).toEqual([
    ['ValidatingWebhookConfiguration'],
    ['CustomResourceDefinition'],
  ]);
});

test('helm uninstall stays for delete hooks, a namespace not deleted now, and a kind that is not served', () => {
  const deletedNow = new Set(['fixture-helm4']);
  expect(removalWithNamespaces(releaseFacts(withHook(app, ['pre-delete'])), resources, deletedNow)).toEqual({
    ok: false,
    reason: 'it has delete hooks (templates/cleanup.yaml)',
  });
  expect(removalWithNamespaces(releaseFacts(withHook(app, ['post-delete'])), resources, deletedNow).ok).toBe(
    false,
  );
  // Install and upgrade hooks do not run on uninstall.
  expect(
    removalWithNamespaces(
      releaseFacts(withHook(app, ['post-install', 'pre-upgrade'])),
      resources,
      deletedNow,
    ),
  ).toEqual({ ok: true, namespaces: ['fixture-helm4'], direct: [] });
  expect(removalWithNamespaces(releaseFacts(app), resources, new Set())).toEqual({
    ok: false,
    reason: 'its namespace fixture-helm4 is not deleted at the end of this stage',
  });
  const noWidgets = resourceIndex([served('', 'v1', 'configmaps', 'ConfigMap', true)]);
  expect(removalWithNamespaces(releaseFacts(app), noWidgets, deletedNow)).toEqual({
    ok: false,
    reason: 'Widget fixture4.kube-sweep.test/v1 is not served',
  });
});

test('objects in a namespace not deleted now are deleted directly, except those Helm keeps', () => {
  const manifest = [
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: here',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: there\n  namespace: shared',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  namespace: shared\n  annotations:\n    helm.sh/resource-policy: keep',
  ].join('\n---\n');
  const release = { ...app, manifest };
  expect(removalWithNamespaces(releaseFacts(release), resources, new Set(['fixture-helm4']))).toEqual({
    ok: true,
    namespaces: ['fixture-helm4'],
    direct: [expect.objectContaining({ kind: 'ConfigMap', namespace: 'shared', name: 'there' })],
  });
});

test('a namespace with one release that must go through helm keeps every release touching it on helm', () => {
  const a = releaseFacts({ ...app, name: 'a', namespace: 'ns-1' });
  const hooked = releaseFacts(withHook({ ...app, name: 'b', namespace: 'ns-1' }, ['pre-delete']));
  const alone = releaseFacts({ ...app, name: 'c', namespace: 'ns-2' });
  const touching = new Map([
    ['ns-1', [a.key, hooked.key]],
    ['ns-2', [alone.key]],
  ]);
  const removals = planNamespaceRemovals([a, hooked, alone], touching, new Set(touching.keys()), resources);
  expect(Object.fromEntries([...removals].map(([k, r]) => [k, r.ok]))).toEqual({
    'ns-1/a': false,
    'ns-1/b': false,
    'ns-2/c': true,
  });
  expect(removals.get('ns-1/a')).toEqual({
    ok: false,
    reason: 'its namespace ns-1 is not deleted at the end of this stage',
  });
});

test('uninstallBatches: Helm uninstall order, unknown kinds last by name', () => {
  const kinds = [
    'Widget',
    'ConfigMap',
    'Deployment',
    'Gadget',
    'Service',
    'ValidatingWebhookConfiguration',
    'ConfigMap',
  ];
  expect(uninstallBatches(kinds.map((kind) => ({ kind }))).map((b) => `${b[0]!.kind}×${b.length}`)).toEqual([
    'ValidatingWebhookConfiguration×1',
    'Service×1',
    'Deployment×1',
    'ConfigMap×2',
    'Gadget×1',
    'Widget×1',
  ]);
});

test('contentCollections: the collections the inventory saw objects in, that serve deletecollection', () => {
  const object = (apiVersion: string, resource: string, namespace: string, name: string) =>
    ({ apiVersion, kind: 'X', resource, namespace, name, uid: `${namespace}/${name}` }) as ObjectMetadata;
  const inventory = {
    resources: [
      served('', 'v1', 'configmaps', 'ConfigMap', true),
      served('fixture4.kube-sweep.test', 'v1', 'widgets', 'Widget', true),
      { ...served('', 'v1', 'bindings', 'Binding', true), verbs: ['create'] },
    ],
    byNamespace: new Map([
      [
        'ns-1',
        [
          object('v1', 'configmaps', 'ns-1', 'a'),
          object('v1', 'configmaps', 'ns-1', 'b'),
          object('fixture4.kube-sweep.test/v1', 'widgets', 'ns-1', 'w'),
          object('v1', 'bindings', 'ns-1', 'x'),
        ],
      ],
      ['ns-2', [object('v1', 'configmaps', 'ns-2', 'c')]],
    ]),
  };
  expect(contentCollections(inventory, 'ns-1')).toEqual([
    { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
    { group: 'fixture4.kube-sweep.test', version: 'v1', resource: 'widgets', namespaced: true },
  ]);
  expect(contentCollections(inventory, 'absent')).toEqual([]);
});

test('a release that stays (its custom resources are still there) keeps its namespace, so the releases beside it go through helm', () => {
  const a = releaseFacts({ ...app, name: 'a', namespace: 'ns-1' });
  const b = releaseFacts({ ...app, name: 'b', namespace: 'ns-1' });
  const touching = new Map([['ns-1', [a.key, b.key]]]);
  const removals = planNamespaceRemovals(
    [a, b],
    touching,
    new Set(touching.keys()),
    resources,
    new Set([b.key]),
  );
  expect(removals.get(a.key)).toEqual({
    ok: false,
    reason: 'its namespace ns-1 is not deleted at the end of this stage',
  });
  expect(removals.get(b.key)).toEqual({
    ok: false,
    reason: 'it stays (its custom resources are still there)',
  });
});

test('any helm.sh/resource-policy value keeps an object out of the direct deletes, as Helm does not delete it', () => {
  const manifest = ['Keep', ' keep ', 'KEEP', 'something-else']
    .map(
      (v, i) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n  namespace: shared\n  annotations:\n    helm.sh/resource-policy: "${v}"`,
    )
    .concat('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: shared')
    .join('\n---\n');
  const removal = removalWithNamespaces(
    releaseFacts({ ...app, manifest }),
    resources,
    new Set(['fixture-helm4']),
  );
  expect(removal.ok && removal.direct.map((o) => o.name)).toEqual(['plain']);
});

test('an object of the manifest in a protected namespace is never deleted by kube-sweep: the release is left to Helm', () => {
  const planted = {
    ...app,
    manifest: `${app.manifest}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n  namespace: vault\n`,
  };
  const deletedNow = new Set(['fixture-helm4']);
  expect(removalWithNamespaces(releaseFacts(planted), resources, deletedNow)).toMatchObject({ ok: true });
  expect(
    removalWithNamespaces(releaseFacts(planted), resources, deletedNow, {
      patterns: [],
      labelled: ['vault'],
    }),
  ).toEqual({ ok: false, reason: 'its ConfigMap vault/planted is in a protected namespace' });
  const kubePlanted = {
    ...planted,
    manifest: planted.manifest.replace('namespace: vault', 'namespace: kube-x'),
  };
  expect(removalWithNamespaces(releaseFacts(kubePlanted), resources, deletedNow)).toEqual({
    ok: false,
    reason: 'its ConfigMap kube-x/planted is in a protected namespace',
  });
});
