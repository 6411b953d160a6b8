import { buildInventory } from '../../../src/inventory/snapshot.js';
import { parseLabelSelector } from '../../../src/plan/label-selector.js';
import type { Finding } from '../../../src/rules/findings.js';
import { applyExclusions, type Exclusion } from '../../../src/rules/exclusions.js';

const finding = (
  code: string,
  kind: string,
  namespace: string | undefined,
  name: string,
  uid: string,
): Finding =>
  ({
    key: `${code}:${name}`,
    code,
    rule: 'test',
    severity: 'error',
    object: { apiVersion: 'v1', kind, ...(namespace ? { namespace } : {}), name, uid },
    message: 'm',
    evidence: [],
    remediation: { summary: 's', commands: [] },
    scope: 'cluster',
  }) as Finding;

const inventory = buildInventory({
  takenAt: '',
  server: '',
  serverVersion: '',
  resources: [],
  failedGroupVersions: [],
  objects: [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'pr-1',
      name: 'a',
      uid: 'u1',
      labels: { team: 'x' },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace: 'pr-2',
      name: 'b',
      uid: 'u2',
      labels: { team: 'y' },
    },
  ],
  full: {
    namespaces: [],
    apiservices: [],
    validatingwebhookconfigurations: [],
    mutatingwebhookconfigurations: [],
    customresourcedefinitions: [],
    persistentvolumes: [],
    persistentvolumeclaims: [],
    validatingadmissionpolicies: [],
    validatingadmissionpolicybindings: [],
    resourcequotas: [],
    jobs: [],
    cronjobs: [],
    nodes: [],
    leases: [],
    rolebindings: [],
    clusterrolebindings: [],
    deployments: [],
    statefulsets: [],
    daemonsets: [],
    volumeattachments: [],
    pods: [],
  },
  coverage: [],
  stats: { discoveryMs: 0, listMs: 0, resourcesListed: 0, pages: 0, requests: 0 },
});

const findings = [
  finding('StuckFinalizer', 'ConfigMap', 'pr-1', 'a', 'u1'),
  finding('StuckFinalizer', 'ConfigMap', 'pr-2', 'b', 'u2'),
  finding('StaleAPIService', 'APIService', undefined, 'v1.metrics.k8s.io', 'u3'),
];

test.each<[string, Exclusion[], string[], number]>([
  ['by code', [{ code: 'StuckFinalizer', text: 'e' }], ['StaleAPIService:v1.metrics.k8s.io'], 2],
  [
    'by namespace glob',
    [{ namespace: 'pr-1', text: 'e' }],
    ['StuckFinalizer:b', 'StaleAPIService:v1.metrics.k8s.io'],
    1,
  ],
  [
    'every field must match',
    [{ code: 'StuckFinalizer', name: 'b*', text: 'e' }],
    ['StuckFinalizer:a', 'StaleAPIService:v1.metrics.k8s.io'],
    1,
  ],
  [
    'by label selector',
    [{ selector: parseLabelSelector('team=y'), text: 'e' }],
    ['StuckFinalizer:a', 'StaleAPIService:v1.metrics.k8s.io'],
    1,
  ],
  [
    'a cluster-scoped object has no namespace to match',
    [{ namespace: '*', text: 'e' }],
    ['StaleAPIService:v1.metrics.k8s.io'],
    2,
  ],
  [
    'nothing matches',
    [{ kind: 'Secret', text: 'e' }],
    ['StuckFinalizer:a', 'StuckFinalizer:b', 'StaleAPIService:v1.metrics.k8s.io'],
    0,
  ],
])('%s', (_name, exclusions, keptKeys, suppressedCount) => {
  const { kept, suppressed } = applyExclusions(findings, exclusions, inventory);
  expect(kept.map((f) => f.key)).toEqual(keptKeys);
  expect(suppressed.reduce((n, s) => n + s.count, 0)).toBe(suppressedCount);
});
