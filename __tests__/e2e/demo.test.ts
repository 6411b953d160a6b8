/**
 * The demo's environments (scripts/demo-env.sh, the same script `npm run demo` uses), built on
 * the local control plane and judged by the bundled action run as the runner runs it. The
 * clean one is green with no findings; the broken one (the operator uninstalled before its
 * custom resources, a namespace force-finalized through /finalize, hook objects left by Helm)
 * fails the step, and its findings name the causes and link them.
 */
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import type { Finding } from '../../src/rules/findings.js';
import {
  adminApiForSuite,
  clusterEnv,
  createNamespace,
  deleteIfPresent,
  getOrUndefined,
  repoRoot,
  uniqueName,
  waitGone,
} from '../integration/support/cluster.js';
import { fileCommands, runStep, runnerFiles } from './support/runner.js';

const suiteApi = adminApiForSuite();

async function buildEnvironment(variant: 'clean' | 'broken', prefix: string) {
  const env = clusterEnv();
  const result = await execa('bash', ['scripts/demo-env.sh', variant, prefix], {
    cwd: repoRoot,
    env: { KUBECONFIG: env.kubeconfig, HELM: env.helm4, KUBECTL: env.kubectl },
    reject: false,
  });
  if (result.exitCode !== 0) throw new Error(`demo-env.sh ${variant}: ${result.stderr}\n${result.stdout}`);
}

async function runTeardown(prefix: string) {
  const files = runnerFiles();
  const step = await runStep('dist/index.js', {
    ...files,
    INPUT_MODE: 'teardown',
    INPUT_NAMESPACES: `${prefix}-*`,
    INPUT_KUBECONFIG: clusterEnv().kubeconfig,
    INPUT_HELM: clusterEnv().helm4,
    'INPUT_STAGE-TIMEOUT': '20s',
  });
  const outputs = fileCommands(files.GITHUB_OUTPUT);
  const report = JSON.parse(readFileSync(outputs['report-path']!, 'utf8')) as {
    verdict: string;
    findings: Finding[];
    teardown: { hookLeftovers: { kind: string; name: string }[] };
  };
  return { step, outputs, report, summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8') };
}

const mergePatch = (path: string, body: unknown) =>
  suiteApi().request({ method: 'PATCH', path, body, contentType: 'application/merge-patch+json' });

test('the clean demo environment: green verdict, no findings, everything gone', async () => {
  const api = suiteApi();
  const prefix = uniqueName('democ');
  try {
    await buildEnvironment('clean', prefix);
    const { step, outputs, report, summary } = await runTeardown(prefix);
    expect(step.exitCode).toBe(0);
    expect(outputs).toMatchObject({
      verdict: 'clean',
      findings: '0',
      'stuck-namespaces': '0',
      blockers: '0',
    });
    expect(report.findings).toEqual([]);
    expect(summary).toContain('## ✅ kube-sweep: clean');
    for (const ns of ['operator', 'app', 'extras'])
      expect(await getOrUndefined(api, `/api/v1/namespaces/${prefix}-${ns}`)).toBeUndefined();
    expect(
      await getOrUndefined(
        api,
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${prefix}.kube-sweep.test`,
      ),
    ).toBeUndefined();
  } finally {
    for (const ns of ['operator', 'app', 'extras'])
      await deleteIfPresent(api, `/api/v1/namespaces/${prefix}-${ns}`);
  }
}, 180_000);

test('the broken demo environment: the step fails, and the findings name the causes', async () => {
  const api = suiteApi();
  const prefix = uniqueName('demob');
  const group = `${prefix}.kube-sweep.test`;
  const crd = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;
  try {
    await buildEnvironment('broken', prefix);
    const { step, outputs, report, summary } = await runTeardown(prefix);
    expect(step.exitCode).toBe(1);
    expect(outputs.verdict).toBe('leftovers');
    // Error-severity findings that fail the step are error annotations, not warnings.
    expect(String(step.stdout)).toMatch(/^::error::OperatorGoneFinalizer: /m);
    expect(summary).toMatch(/^## ❌ kube-sweep: /m);

    const about = (code: string, kind: string, namespace: string | undefined, name: string) =>
      report.findings.find(
        (f) =>
          f.code === code &&
          f.object.kind === kind &&
          f.object.namespace === namespace &&
          f.object.name === name,
      );
    // The operator went first: its finalizer is on the Widgets for good...
    const operatorGone = about('OperatorGoneFinalizer', 'Widget', `${prefix}-app`, 'w1');
    expect(operatorGone).toBeDefined();
    expect(operatorGone!.evidence.join('\n')).toContain(`${group}/cleanup`);
    // ... which holds the CRD in Terminating and the app's namespace, both linked to it.
    const crdStuck = about('CRDStuckTerminating', 'CustomResourceDefinition', undefined, `widgets.${group}`);
    const nsBlocked = about('NamespaceBlockedByFinalizer', 'Namespace', undefined, `${prefix}-app`);
    expect(crdStuck?.causedBy).toContain(operatorGone!.key);
    expect(nsBlocked?.causedBy).toContain(operatorGone!.key);
    // The force-finalized namespace: its ConfigMap is stored in a namespace that does not exist.
    const orphan = about('OrphanInMissingNamespace', 'ConfigMap', `${prefix}-scratch`, 'settings');
    expect(orphan?.scope).toBe('environment');
    expect(orphan?.remediation.commands).toContain(`kubectl create namespace ${prefix}-scratch`);
    // Helm's hook objects are named as left behind.
    expect(report.teardown.hookLeftovers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'ClusterRole', name: `${prefix}-extras-hook-role` }),
      ]),
    );
    expect(Number(outputs['stuck-namespaces'])).toBeGreaterThanOrEqual(1);

    // The scheduled hygiene job over what is left: mode scan, scan-scope cluster, no scope input.
    const files = runnerFiles();
    const scanStep = await runStep('dist/index.js', {
      ...files,
      INPUT_MODE: 'scan',
      'INPUT_SCAN-SCOPE': 'cluster',
      // The CRD has been Terminating for about a minute: a short threshold calls it stuck.
      'INPUT_STUCK-AFTER': '20s',
      INPUT_KUBECONFIG: clusterEnv().kubeconfig,
    });
    const scanOutputs = fileCommands(files.GITHUB_OUTPUT);
    expect(scanStep.exitCode).toBe(1);
    expect(scanOutputs.verdict).toBe('leftovers');
    const scanReport = JSON.parse(readFileSync(scanOutputs['report-path']!, 'utf8')) as {
      findings: Finding[];
    };
    expect(
      scanReport.findings.filter((f) => f.object.namespace === `${prefix}-scratch`).map((f) => f.code),
    ).toEqual(expect.arrayContaining(['OrphanInMissingNamespace']));
    // Cluster scope: the finding is reported even though no input names the namespace.
    expect(
      scanReport.findings.some(
        (f) => f.code === 'CRDStuckTerminating' && f.object.name === `widgets.${group}`,
      ),
    ).toBe(true);
  } finally {
    // Undo the breakage so the shared control plane stays clean for other tests.
    for (const w of ['w1', 'w2'])
      await mergePatch(`/apis/${group}/v1/namespaces/${prefix}-app/widgets/${w}`, {
        metadata: { finalizers: null },
      }).catch(() => undefined);
    await createNamespace(api, `${prefix}-scratch`).catch(() => undefined);
    await mergePatch(`/api/v1/namespaces/${prefix}-scratch/configmaps/settings`, {
      metadata: { finalizers: null },
    }).catch(() => undefined);
    await deleteIfPresent(api, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${prefix}-extras-hook-role`);
    for (const ns of ['operator', 'app', 'extras', 'scratch'])
      await deleteIfPresent(api, `/api/v1/namespaces/${prefix}-${ns}`);
    await deleteIfPresent(api, crd);
    await waitGone(api, crd);
    await waitGone(api, `/api/v1/namespaces/${prefix}-app`);
  }
}, 240_000);
