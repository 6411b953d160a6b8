/**
 * S15: `helm install --wait` of a chart that never becomes ready, killed with SIGKILL: the
 * release Secret stays pending-install. Built for real with Helm 4; the rules must report
 * HelmReleaseStuck from the Secret's labels, and no HelmLeftover (the release exists).
 */
import { execa } from 'execa';
import { waitFor } from '../../../src/util/wait.js';
import { clusterEnv, uniqueName } from '../support/cluster.js';
import { chart, helm4 } from '../support/widgets.js';
import { helmFindings, releaseStatus, summarize } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  snapshot,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

test('S15: a killed helm install leaves the release pending-install; HelmReleaseStuck names it', async () => {
  const api = suiteApi();
  const ns = uniqueName('rules-s15');
  const env = clusterEnv();
  const install = execa(
    env.helm4,
    ['install', 'slow', chart('slow'), '-n', ns, '--create-namespace', '--wait', '--timeout', '10m'].concat([
      '--kubeconfig',
      env.kubeconfig,
    ]),
    { reject: false },
  );
  try {
    await waitFor(
      async () => {
        const status = await releaseStatus(api, ns, 'slow');
        return { done: status !== undefined, value: status };
      },
      { timeoutMs: 30_000, description: 'the release Secret to be written' },
    );
    install.kill('SIGKILL');
    await install;
    expect(await releaseStatus(api, ns, 'slow')).toBe('pending-install');
    const upgrade = await helm4(['upgrade', 'slow', chart('slow'), '-n', ns]);
    expect(String(upgrade.stderr)).toContain('another operation (install/upgrade/rollback) is in progress');

    const inventory = await snapshot(api);
    recordFixture('s15-helm-pending-install', inventory, {
      scenario: 'S15 Release stuck pending-install (helm killed)',
      names: { namespace: ns, release: 'slow' },
      environmentNamespaces: [ns],
      selection: { namespaces: [ns], clusterObjects: [] },
    });
    const mine = helmFindings(findingsAbout(findingsOf(inventory, [ns]), [ns]));
    expect(summarize(mine)).toEqual([
      ['HelmReleaseStuck', 'error', 'Secret', `${ns}/sh.helm.release.v1.slow.v1`, 'environment'],
    ]);
    const [f] = mine;
    expect(f!.message).toMatch(
      new RegExp(`^Helm release ${ns}/slow is pending-install \\(revision 1, last modified \\d+s ago\\)`),
    );
    expect(f!.evidence).toEqual(
      expect.arrayContaining([
        `release: ${ns}/slow`,
        'status: pending-install (label of Secret sh.helm.release.v1.slow.v1)',
        'revision: 1 (revisions stored: v1 pending-install)',
        // Helm writes modifiedAt only when it updates a release Secret, not when it creates one.
        expect.stringMatching(/^release Secret created: \d{4}-.* ago\), no modifiedAt label$/),
      ]),
    );
    expect(f!.remediation.commands).toContain(`helm uninstall -n ${ns} -- slow`);
    expect(f!.remediation.commands.join('\n')).not.toContain('helm rollback');
  } finally {
    install.kill('SIGKILL');
    await helm4(['uninstall', 'slow', '-n', ns]);
    await deleteNamespaceAndWait(api, ns);
  }
});
