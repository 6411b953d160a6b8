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
    failing: string[];
    teardown: { hookLeftovers: { kind: string; namespace?: string; name: string }[] };
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
    // The app release this teardown uninstalled lost its record because the uninstall succeeded:
    // not HelmReleaseRecordLost (its Widgets are explained by the operator's finalizer). The
    // operator release, uninstalled before the run, is.
    const lost = report.findings.filter((f) => f.code === 'HelmReleaseRecordLost').map((f) => f.message);
    expect(lost.some((m) => m.includes(`release ${prefix}-app/app `))).toBe(false);
    expect(lost).toEqual([expect.stringContaining(`Helm release ${prefix}-operator/operator has no record`)]);
    // Helm's hook objects are named as left behind.
    expect(report.teardown.hookLeftovers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'ClusterRole', name: `${prefix}-extras-hook-role` }),
        // Found before its namespace was deleted (which then removed it).
        expect.objectContaining({ kind: 'ConfigMap', namespace: `${prefix}-extras`, name: 'hook-cm' }),
      ]),
    );
    expect(Number(outputs['stuck-namespaces'])).toBeGreaterThanOrEqual(1);

    // The first screen (issue 15): the verdict, then one row per root cause with what it explains
    // and the first safe action; the counts agree with the report; expected notes come after.
    const lines = summary.split('\n');
    const first = lines.slice(0, 15);
    expect(first[0]).toBe('## ❌ kube-sweep: leftovers found');
    const heading = first.find((l) => l.startsWith('### '));
    // Counts agree: root causes + linked findings + notes = findings.
    const counts =
      /^### (\d+) root causes, (\d+) linked findings?(?:, (\d+) notes?)? \((\d+) findings, (?:all )?(\d+) over the fail-on policy\)$/.exec(
        heading ?? '',
      );
    expect(counts).not.toBeNull();
    const [roots, linked, notes, total, over] = counts!.slice(1).map((n) => Number(n ?? 0));
    expect(roots! + linked! + notes!).toBe(report.findings.length);
    expect(total).toBe(report.findings.length);
    // Over the policy: the error findings, and the warnings that explain a leftover of the
    // teardown (a leftover fails the run whatever its findings' severity).
    expect(over).toBe(report.failing.length);
    expect(over).toBeGreaterThanOrEqual(Number(outputs.errors));
    // Exactly the three root causes the demo breaks: the operator's finalizer and the orphan
    // (what the rules of releases whose record is gone find is linked to them), and the hook
    // ClusterRole Helm never deletes: an info finding, but a leftover of this teardown, so it
    // fails the run and is a cause to act on, not a note.
    expect(roots).toBe(3);
    // The two root causes the demo breaks come first (errors sort first).
    const rows = first.filter((l) => l.startsWith('| 🔴 '));
    expect(rows[0]).toContain('`OperatorGoneFinalizer`');
    expect(rows[1]).toContain('`OrphanInMissingNamespace`');
    const operatorRow = first.find((l) => l.includes('`OperatorGoneFinalizer`')) ?? '';
    expect(operatorRow).toMatch(
      new RegExp(`^\\| 🔴 \\| .*\\| \`Widget ${prefix}-app/w1\` \\| root cause of \\d+: `),
    );
    expect(operatorRow).toContain('`CRDStuckTerminating`');
    expect(operatorRow).toContain('`NamespaceBlockedByFinalizer`');
    // The remedy names the release that shipped the CRD (its Helm annotations).
    expect(operatorRow).toContain(`Run the controller of Helm release ${prefix}-operator/operator again`);
    const orphanRow = first.find((l) => l.includes('`OrphanInMissingNamespace`')) ?? '';
    expect(orphanRow).toContain(
      `\`ConfigMap ${prefix}-scratch/settings\` | root cause of 1: \`OperatorGoneFinalizer\``,
    );
    expect(orphanRow).toContain(`Recreate namespace ${prefix}-scratch and delete it normally`);
    const hookRow = first.find((l) => l.includes('`HelmLeftover`')) ?? '';
    expect(hookRow).toMatch(
      new RegExp(
        `^\\| 🔵 \\| \\*\\*\`HelmLeftover\`\\*\\* \\| \`ClusterRole ${prefix}-extras-hook-role\` \\|`,
      ),
    );
    // One object, one entry: the ConfigMap's two findings share one row and one remedy.
    expect(first.filter((l) => l.includes(`${prefix}-scratch/settings`))).toHaveLength(1);
    expect(summary).not.toContain('"finalizers":null');
    // The kept ConfigMap is a note after the root causes, saying what became of it.
    const kept = lines.findIndex((l) =>
      l.includes(
        `Kept on purpose (\`helm.sh/resource-policy: keep\`): \`ConfigMap ${prefix}-extras/state\`, then deleted with its namespace.`,
      ),
    );
    expect(kept).toBeGreaterThan(lines.indexOf(orphanRow));
    // Evidence in words, from structure first: the CRD's owner, and how it is gone.
    const owner = `Helm release ${prefix}-operator/operator, which shipped CRD widgets.${group} (its meta.helm.sh annotations)`;
    expect(operatorGone!.evidence).toEqual(
      expect.arrayContaining([
        expect.stringContaining(
          `no controller for it runs: its owner is ${owner}; uninstalled: ${owner}, has no Deployment, StatefulSet or DaemonSet left`,
        ),
        `CRD widgets.${group} was shipped by Helm release ${prefix}-operator/operator (its meta.helm.sh annotations)`,
      ]),
    );

    // The scheduled hygiene job over what is left: mode scan, scan-scope cluster, no scope input.
    const files = runnerFiles();
    const scanStep = await runStep('dist/index.js', {
      ...files,
      INPUT_MODE: 'scan',
      'INPUT_SCAN-SCOPE': 'cluster',
      // The CRD has been Terminating since the teardown (which did not wait on the hang it
      // foresaw): a threshold of 1 s calls it stuck.
      'INPUT_STUCK-AFTER': '1s',
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
