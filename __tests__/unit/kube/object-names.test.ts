import {
  dns1123LabelFormat,
  isApiVersion,
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isHelmReleaseName,
  isKindName,
  isNamespaceName,
  objectNameProblem,
  requestPathProblem,
} from '../../../src/kube/object-names.js';

test.each(['.', '..', '', 'a/b', '50%', '%2e', '\ud800x', 'x\udc00'])(
  '%j cannot be an object name',
  (name) => {
    expect(objectNameProblem(name)).toEqual(expect.any(String));
  },
);

test.each(['web', 'system:controller:web', 'w.1', 'UPPER_case', '...'])(
  '%j can be an object name',
  (name) => {
    expect(objectNameProblem(name)).toBeUndefined();
  },
);

test('namespace names are DNS-1123 labels', () => {
  expect(['pr-1', 'a', 'a'.repeat(63)].every(isNamespaceName)).toBe(true);
  expect(['', '..', 'A', '-a', 'a-', 'a.b', 'a'.repeat(64)].some(isNamespaceName)).toBe(false);
});

test('DNS-1123 labels and subdomains, DNS-1035 labels (apimachinery validation.go)', () => {
  expect(['a', '0', 'pr-1', 'a'.repeat(63)].every(isDns1123Label)).toBe(true);
  expect(['', 'A', '-a', 'a-', 'a.b', 'a_b', 'a'.repeat(64)].some(isDns1123Label)).toBe(false);
  expect(['a', 'a.b', 'example.com', `${'a'.repeat(63)}.${'b'.repeat(63)}`].every(isDns1123Subdomain)).toBe(
    true,
  );
  expect(['', '.a', 'a.', 'a..b', 'a.-b', 'A.b', 'a'.repeat(254)].some(isDns1123Subdomain)).toBe(false);
  expect(['a', 'v1', 'configmaps', 'a'.repeat(63)].every(isDns1035Label)).toBe(true);
  expect(['1v', '-a', '', 'a.b', 'a'.repeat(64)].some(isDns1035Label)).toBe(false);
  expect(new RegExp(`^${dns1123LabelFormat}$`).test('pr-1')).toBe(true);
});

test('Helm release names: DNS-1123 labels joined by dots, at most 53 characters (chartutil ValidateReleaseName)', () => {
  expect(['web', 'web.v2', 'a-1', 'a'.repeat(53)].every(isHelmReleaseName)).toBe(true);
  expect(['', 'Web', 'a..b', 'a.-b', '-a', 'a_b', 'a'.repeat(54)].some(isHelmReleaseName)).toBe(false);
});

test('apiVersions and kinds as Kubernetes writes them', () => {
  expect(['v1', 'apps/v1', 'example.com/v1beta1', 'a.b-c.d/v2alpha1'].every(isApiVersion)).toBe(true);
  expect(['/v1', 'v1/', 'apps/', '/', '', 'Apps/v1', 'a/b/v1', 'v1 ', 'apps/1v'].some(isApiVersion)).toBe(
    false,
  );
  expect(['ConfigMap', 'Widget', 'X', 'my-Kind2'].every(isKindName)).toBe(true);
  expect(['', 'Config Map', '1Kind', 'Kind-', 'a/b'].some(isKindName)).toBe(false);
});

test.each([
  '/api/v1/namespaces/x/configmaps/.',
  '/api/v1/namespaces/x/configmaps/..',
  '/api/v1/namespaces/x/configmaps/',
  '/api/v1/namespaces//configmaps',
  '/api/v1/namespaces/./configmaps',
  '/api/v1/namespaces/x/configmaps/%2e',
  '/api/v1/namespaces/x/configmaps/%2E%2E',
  '/api/v1/namespaces/x/configmaps/a%2Fb',
  '/api/v1/namespaces/x/configmaps/a%25b',
  '/api/v1/namespaces/x/configmaps/%E0%A4%A',
  'api/v1',
  // Characters the URL parser reads as separators, a query or a fragment (a tester's finding).
  '/api/v1/namespaces/victim/configmaps/x\\..\\..',
  '/api/v1/namespaces/victim/configmaps/.\t.',
  '/api/v1/namespaces/victim/configmaps/#frag',
  '/api/v1/namespaces/victim/configmaps/x?dryRun=All',
  '/api/v1/namespaces/victim/configmaps/a b',
])('the request path %j is refused', (path) => {
  expect(requestPathProblem(path)).toEqual(expect.any(String));
});

test.each([
  '/api',
  '/apis',
  '/version',
  '/api/v1/namespaces/pr-1/configmaps',
  '/api/v1/namespaces/pr-1/configmaps/web',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aweb',
  '/api/v1/namespaces/pr-1/pods/p/eviction',
])('the request path %j is sent', (path) => {
  expect(requestPathProblem(path)).toBeUndefined();
});
