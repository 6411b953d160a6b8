/**
 * S26: a ValidatingAdmissionPolicy whose param lives in the namespace it guards. Built for real:
 * policy `<id>-pvc-guard` (paramKind ConfigMap, failurePolicy Fail, matches CREATE and UPDATE of
 * persistentvolumeclaims) and binding `<id>-pvc-guard-binding` (paramRef `storage-limits`, no
 * namespace, parameterNotFoundAction Deny; limited to this test's namespaces by a namespace
 * selector); namespace `<id>-team-a` with ConfigMap `storage-limits` and PVC `data` carrying
 * `example.com/volume-cleanup`. Deleting the namespace removes the param, and then the finalizer
 * removal (played by the test as the external controller) is denied with the API server's own
 * message. The rules must report AdmissionPolicyParamMissing on the binding and make it the root
 * cause of the namespace and finalizer findings, not the finalizer's owner. Clean: the same policy
 * with its param present, or with parameterNotFoundAction Allow, is never reported.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { KubernetesApiError } from '../../../src/cluster/errors.js';
import {
  admissionPolicyParamMissingRule,
  paramNotFoundDenial,
} from '../../../src/rules/admission-policy-param-missing.js';
import { findingKey } from '../../../src/rules/findings.js';
import { defaultRuleSettings, runRules } from '../../../src/rules/index.js';
import { rootCausesOf } from '../../../src/report/root-causes.js';
import { waitFor } from '../../../src/util/wait.js';
import { createNamespace, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  adminApiForSuite,
  claimPath,
  createObject,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  scenarioContext,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const admission = '/apis/admissionregistration.k8s.io/v1';
/** Validating or mutating admission policies: both take params through their bindings. */
type Flavour = 'Validating' | 'Mutating';
const plural = (flavour: Flavour) => flavour.toLowerCase() + 'admissionpolicies';
const policyPath = (name: string, flavour: Flavour = 'Validating') =>
  `${admission}/${plural(flavour)}/${name}`;
const bindingPath = (name: string, flavour: Flavour = 'Validating') =>
  `${admission}/${plural(flavour).replace(/ies$/, 'y')}bindings/${name}`;
const volumeCleanup = 'example.com/volume-cleanup';

/** What the policy does: validate that the param has a value, or label the claim with it. */
const policyBody = (flavour: Flavour) =>
  flavour === 'Validating'
    ? { validations: [{ expression: "params.data.maxStorage != ''" }] }
    : {
        reinvocationPolicy: 'Never',
        mutations: [
          {
            patchType: 'ApplyConfiguration',
            applyConfiguration: {
              expression:
                "Object{metadata: Object.metadata{labels: {'max-storage': params.data.maxStorage}}}",
            },
          },
        ],
      };

/** The policy and its binding, limited to namespaces labelled `kube-sweep.test/s26=<id>`. */
async function createGuard(
  api: ApiClient,
  id: string,
  notFound: 'Deny' | 'Allow',
  flavour: Flavour = 'Validating',
): Promise<void> {
  await createObject(api, `${admission}/${plural(flavour)}`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${flavour}AdmissionPolicy`,
    metadata: { name: `${id}-pvc-guard` },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['persistentvolumeclaims'],
          },
        ],
      },
      ...policyBody(flavour),
    },
  });
  await createObject(api, bindingPath('', flavour).slice(0, -1), {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${flavour}AdmissionPolicyBinding`,
    metadata: { name: `${id}-pvc-guard-binding` },
    spec: {
      policyName: `${id}-pvc-guard`,
      ...(flavour === 'Validating' ? { validationActions: ['Deny'] } : {}),
      paramRef: { name: 'storage-limits', parameterNotFoundAction: notFound },
      matchResources: { namespaceSelector: { matchLabels: { 'kube-sweep.test/s26': id } } },
    },
  });
}

/** A 1Gi claim `name` with no storage class and `finalizers`. */
function claim(name: string, finalizers: string[] = []) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, finalizers },
    spec: {
      storageClassName: '',
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
    },
  };
}

/** The API error of `request`, or undefined when it succeeded. */
async function refusal(request: Promise<unknown>): Promise<KubernetesApiError | undefined> {
  try {
    await request;
    return undefined;
  } catch (error) {
    if (error instanceof KubernetesApiError) return error;
    throw error;
  }
}

/**
 * Waits until the policy denies a claim create (a dry run) in a namespace without its param (the
 * API server loads new policies asynchronously), using a probe namespace it deletes again.
 */
async function waitPolicyActive(api: ApiClient, id: string): Promise<void> {
  const probe = `${id}-probe`;
  await createNamespace(api, probe, { 'kube-sweep.test/s26': id });
  try {
    await waitFor(
      async () => {
        // A dry run goes through admission and stores nothing.
        const error = await refusal(
          api.request({
            method: 'POST',
            path: `/api/v1/namespaces/${probe}/persistentvolumeclaims`,
            query: { dryRun: 'All' },
            body: claim('probe'),
          }),
        );
        return { done: error?.apiMessage.includes(paramNotFoundDenial) ?? false, value: error?.apiMessage };
      },
      { timeoutMs: 30_000, description: `policy ${id}-pvc-guard to deny where its param is missing` },
    );
  } finally {
    await deleteNamespaceAndWait(api, probe);
  }
}

/**
 * Removes the claim's finalizers, retrying while a just-deleted policy still denies it (the API
 * server's policy cache lags the delete): a cleanup that gave up here left the namespace stuck
 * for the tests after it.
 */
async function releaseClaim(api: ApiClient, path: string): Promise<void> {
  await waitFor(
    async () => {
      const error = await refusal(removeFinalizers(api, path));
      return { done: error === undefined, value: error?.apiMessage };
    },
    { timeoutMs: 30_000, description: `the finalizers of ${path} to be removable` },
  );
}

/** Removes the guard: the binding first, then the policy (hypershift PR #6616's order). */
async function removeGuard(api: ApiClient, id: string, flavour: Flavour = 'Validating'): Promise<void> {
  await deleteIfPresent(api, bindingPath(`${id}-pvc-guard-binding`, flavour));
  await deleteIfPresent(api, policyPath(`${id}-pvc-guard`, flavour));
}

/** How the API server words the denial of each flavour (seen on v1.37.2). */
const denialOf = (flavour: Flavour, id: string, binding: string) =>
  `${flavour === 'Validating' ? 'ValidatingAdmissionPolicy' : 'policy'} '${id}-pvc-guard' with binding '${binding}' ` +
  `denied request: ${paramNotFoundDenial}`;

test.each<Flavour>(['Validating', 'Mutating'])(
  'S26 (%sAdmissionPolicy): the binding whose param went with the namespace denies the finalizer removal: AdmissionPolicyParamMissing is the root cause',
  async (flavour) => {
    const api = suiteApi();
    const id = uniqueName(`rules-s26-${flavour.slice(0, 3).toLowerCase()}`);
    const ns = `${id}-team-a`;
    const binding = `${id}-pvc-guard-binding`;
    const pvc = claimPath(ns, 'data');
    try {
      await createGuard(api, id, 'Deny', flavour);
      await waitPolicyActive(api, id);
      await createNamespace(api, ns, { 'kube-sweep.test/s26': id });
      await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'storage-limits' },
        data: { maxStorage: '5Gi' },
      });
      await createObject(
        api,
        `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
        claim('data', [volumeCleanup]),
      );
      // Control: with the param present, updates of the claim pass the policy.
      await api.request({
        method: 'PATCH',
        path: pvc,
        contentType: 'application/merge-patch+json',
        body: { metadata: { labels: { x: 'y' } } },
      });
      await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${ns}` });
      await waitGone(api, `/api/v1/namespaces/${ns}/configmaps/storage-limits`);
      // The external controller's finalizer removal is refused with the API server's message.
      const denied = await refusal(
        api.request({
          method: 'PATCH',
          path: pvc,
          contentType: 'application/json-patch+json',
          body: [{ op: 'remove', path: '/metadata/finalizers' }],
        }),
      );
      expect(denied?.apiMessage).toContain(denialOf(flavour, id, binding));

      const inventory = await snapshot(api);
      recordFixture(
        `s26-admission-policy-param-missing${flavour === 'Mutating' ? '-mutating' : ''}`,
        inventory,
        {
          scenario: `S26 ${flavour}AdmissionPolicy whose param went with the namespace denies every finalizer removal`,
          names: { namespace: ns, binding, policy: `${id}-pvc-guard` },
          environmentNamespaces: [ns],
          selection: { namespaces: [ns], clusterObjects: [binding, `${id}-pvc-guard`] },
        },
      );
      const all = findingsOf(inventory, [ns]);
      const mine = findingsAbout(all, [id]);
      const policyKey = findingKey('AdmissionPolicyParamMissing', {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: `${flavour}AdmissionPolicyBinding`,
        name: binding,
      });
      const f = mine.find((x) => x.key === policyKey)!;
      expect(f).toBeDefined();
      expect(f.severity).toBe('error');
      expect(f.scope).toBe('environment');
      expect(f.message).toBe(
        `${flavour}AdmissionPolicyBinding ${binding} denies the finalizer removal of 1 object held in deletion: its ` +
          `param ConfigMap storage-limits is missing in namespace ${ns} (Terminating), and its parameterNotFoundAction ` +
          'is Deny with failurePolicy Fail, so the namespace cannot finish, and the param cannot be recreated there',
      );
      expect(f.evidence).toEqual(
        expect.arrayContaining([
          `binding ${binding}: policyName ${id}-pvc-guard, paramRef name storage-limits, namespace unset (looked up in each request's namespace), parameterNotFoundAction Deny`,
          `policy ${id}-pvc-guard: paramKind v1 ConfigMap, failurePolicy Fail`,
          `policy ${id}-pvc-guard matches apiGroups [] resources [persistentvolumeclaims] operations [CREATE, UPDATE]`,
          `no ConfigMap storage-limits in namespace ${ns} (Terminating)`,
          expect.stringMatching(
            new RegExp(`^persistentvolumeclaims ${ns}/data \\[.*${volumeCleanup}.*\\] \\(deletionTimestamp `),
          ),
        ]),
      );
      expect(f.remediation.summary).toMatch(
        new RegExp(
          `^Set spec\\.paramRef\\.parameterNotFoundAction to Allow on ${flavour}AdmissionPolicyBinding ${binding} until namespace ${ns} is gone, then set it back to Deny:`,
        ),
      );
      const patch = f.remediation.commands.find((c) => c.startsWith('kubectl patch'))!;
      expect(patch).toBe(
        `kubectl patch ${flavour.toLowerCase()}admissionpolicybindings.admissionregistration.k8s.io ${binding} --type json -p ` +
          `'[{"op":"test","path":"/spec/paramRef/parameterNotFoundAction","value":"Deny"},{"op":"replace","path":"/spec/paramRef/parameterNotFoundAction","value":"Allow"}]'`,
      );
      // The namespace and the finalizer wait on the binding, not on the finalizer's owner.
      const nsFinding = mine.find((x) => x.code === 'NamespaceBlockedByFinalizer' && x.object.name === ns)!;
      expect(nsFinding.causedBy).toContain(policyKey);
      const finalizerFinding = mine.find((x) =>
        x.key.includes(`finalizer ${volumeCleanup} in namespace ${ns}`),
      )!;
      expect(finalizerFinding.causedBy).toContain(policyKey);
      const roots = rootCausesOf(mine).causes;
      const root = roots.find((r) => r.finding.key === policyKey)!;
      expect(root.explains.map((x) => x.key)).toEqual(
        expect.arrayContaining([nsFinding.key, finalizerFinding.key]),
      );
      expect(roots.filter((r) => r.finding.object.namespace === ns || r.finding.object.name === ns)).toEqual(
        [],
      );

      // The remedy works: relax the binding, and the finalizer removal goes through.
      await api.request({
        method: 'PATCH',
        path: bindingPath(binding, flavour),
        contentType: 'application/json-patch+json',
        body: [{ op: 'replace', path: '/spec/paramRef/parameterNotFoundAction', value: 'Allow' }],
      });
      await waitFor(
        async () => {
          const error = await refusal(
            api.request({
              method: 'PATCH',
              path: pvc,
              contentType: 'application/merge-patch+json',
              body: { metadata: { finalizers: null } },
            }),
          );
          return { done: error === undefined || error.status === 404, value: error?.apiMessage };
        },
        { timeoutMs: 30_000, description: 'the finalizer removal to be allowed' },
      );
      await waitGone(api, `/api/v1/namespaces/${ns}`, 90_000);
    } finally {
      await removeGuard(api, id, flavour);
      await releaseClaim(api, pvc);
      await deleteNamespaceAndWait(api, ns);
    }
  },
  240_000,
);

test('clean: the policy with its param present (validating or mutating), or with parameterNotFoundAction Allow, is not reported', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s26-clean');
  const allowId = `${id}-allow`;
  const present = `${id}-present`;
  const allow = `${allowId}-ns`;
  const mutatingId = `${id}-mut`;
  const mutating = `${mutatingId}-ns`;
  const spaces = [present, allow, mutating];
  try {
    await createGuard(api, id, 'Deny');
    await createGuard(api, allowId, 'Allow');
    await createGuard(api, mutatingId, 'Deny', 'Mutating');
    await createNamespace(api, mutating, { 'kube-sweep.test/s26': mutatingId });
    await createNamespace(api, present, { 'kube-sweep.test/s26': id });
    await createNamespace(api, allow, { 'kube-sweep.test/s26': allowId });
    for (const ns of [present, mutating])
      await createObject(api, `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'storage-limits' },
        data: { maxStorage: '5Gi' },
      });
    for (const ns of spaces) {
      await createObject(
        api,
        `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
        claim('data', [volumeCleanup]),
      );
      await api.request({ method: 'DELETE', path: claimPath(ns, 'data') });
    }
    const findings = runRules(await snapshot(api), { ...scenarioContext(spaces), stuckAfterSeconds: 0 }, [
      admissionPolicyParamMissingRule,
    ]);
    // Other tests may hold their own faults at the same time: nothing but theirs may be reported.
    expect(findings.filter((f) => !/^rules-/.test(f.object.name) || f.object.name.startsWith(id))).toEqual(
      [],
    );
    // A fresh control plane's own objects at default settings: nothing.
    const fresh = runRules(
      await snapshot(api),
      { ...scenarioContext([]), stuckAfterSeconds: defaultRuleSettings.stuckAfterSeconds },
      [admissionPolicyParamMissingRule],
    );
    expect(fresh.filter((f) => !/^rules-/.test(f.object.name))).toEqual([]);
  } finally {
    await removeGuard(api, id);
    await removeGuard(api, allowId);
    await removeGuard(api, mutatingId, 'Mutating');
    for (const ns of spaces) {
      await releaseClaim(api, claimPath(ns, 'data'));
      await deleteNamespaceAndWait(api, ns);
    }
  }
}, 180_000);
