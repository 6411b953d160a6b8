/**
 * S16: `helm uninstall` of a chart whose pre-delete hook Job can never run (no node matches)
 * times out and leaves the release uninstalling. Built for real with Helm 4: the rules must
 * report HelmReleaseStuck with the hook Job and the objects that remain. Then `helm uninstall
 * --no-hooks` removes the release and leaves the hook Job behind; Helm puts no release marker
 * on hook objects, so it is reported as an unattributed hook (info).
 */
import { uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import { helm4Ok, helmFindings, releaseStatus, summarize } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S16: a pre-delete hook that never completes leaves the release uninstalling, then the hook Job behind', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s16');
  try {
    await helm4Ok(['install', 'hooked', chart('hooked'), '-n', ns, '--create-namespace']);
    const first = await helm4(['uninstall', 'hooked', '-n', ns, '--timeout', '5s']);
    expect(first.exitCode).not.toBe(0);
    expect(await releaseStatus(api, ns, 'hooked')).toBe('uninstalling');

    const stuck = await snapshot(api);
    recordFixture('s16-helm-uninstalling', stuck, {
      scenario: 'S16 Release stuck uninstalling after a pre-delete hook timed out',
      names: { namespace: ns, release: 'hooked', hookJob: 'cleanup', remaining: 'cfg' },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = helmFindings(findingsAbout(findingsOf(stuck, [ns]), [ns]));
    expect(summarize(mine)).toEqual([
      ['HelmReleaseStuck', 'error', 'Secret', `${ns}/sh.helm.release.v1.hooked.v1`, 'environment'],
    ]);
    const [f] = mine;
    expect(f!.message).toMatch(new RegExp(`^Helm release ${ns}/hooked is uninstalling \\(revision 1,`));
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        'status: uninstalling (label of Secret sh.helm.release.v1.hooked.v1)',
        expect.stringMatching(
          new RegExp(`^hook jobs\\.batch ${ns}/cleanup \\(helm\\.sh/hook: pre-delete\\)`),
        ),
        `1 object annotated with this release remain: configmaps ${ns}/cfg`,
      ]),
    );
    expect(f!.remediation.commands.slice(-2)).toEqual([
      expect.stringMatching(/^# WARNING: --no-hooks skips/),
      `helm uninstall -n ${ns} --no-hooks -- hooked`,
    ]);

    // Skipping the hooks removes the release; the hook Job stays, with no release marker.
    await helm4Ok(['uninstall', '-n', ns, '--no-hooks', '--', 'hooked']);
    expect(await releaseStatus(api, ns, 'hooked')).toBeUndefined();
    const after = await snapshot(api);
    const job = after.objects.find(
      (o) => o.namespace === ns && o.resource === 'jobs' && o.name === 'cleanup',
    );
    expect(job?.annotations).toEqual({
      'helm.sh/hook': 'pre-delete',
      'helm.sh/hook-delete-policy': 'before-hook-creation',
    });
    recordFixture('s16-helm-hook-leftover', after, {
      scenario: 'S16 (continued) uninstall --no-hooks leaves the pre-delete hook Job',
      names: { namespace: ns, hookJob: 'cleanup' },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const left = helmFindings(findingsAbout(findingsOf(after, [ns]), [ns]));
    expect(summarize(left)).toEqual([['HelmLeftover', 'info', 'Job', `${ns}/cleanup`, 'environment']]);
    expect(left[0]!.message).toMatch(
      /^Helm leftover \(hook\): jobs\.batch .*\/cleanup is a Helm hook \(helm\.sh\/hook: pre-delete\)/,
    );
    expect(left[0]!.evidence).toContain('subtype: hook');
  } finally {
    await helm4(['uninstall', 'hooked', '-n', ns, '--no-hooks']);
    await deleteNamespaceAndWait(api, ns);
  }
});
