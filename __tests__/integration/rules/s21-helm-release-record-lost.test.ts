/**
 * S21: `helm uninstall --wait` gives up on a finalizer, yet the release record is purged and the
 * objects stay. Built for real with Helm 4 and Helm 3: chart `stack` renders Namespace
 * `<id>-stack-ns` and ConfigMap `cfg` in it with finalizer `<id>.io/hold` (no controller removes
 * it). After the failed uninstall, Helm answers "not found"; the rules must report the lost
 * record (HelmReleaseRecordLost, about the held objects), caused by what holds them: the
 * finalizer (OperatorGoneFinalizer) and the namespace waiting on it (NamespaceBlockedByFinalizer).
 */
import { findingKey } from '../../../src/rules/findings.js';
import { recordLostSubject } from '../../../src/rules/helm-release-record-lost.js';
import { finalizerGroupSubject } from '../../../src/rules/stuck-finalizer.js';
import { clusterEnv, helm, uniqueName } from '../support/cluster.js';
import { chart as chartPath, helm4 } from '../support/widgets.js';
import { releaseStatus, summarize, writeChart } from './support/helm.js';
import {
  adminApiForSuite,
  deleteNamespaceAndWait,
  findingsAbout,
  findingsOf,
  recordFixture,
  removeFinalizers,
  snapshot,
  waitForCondition,
} from './support/scenario.js';

const suiteApi = adminApiForSuite();

const stackChart = () =>
  writeChart('stack', {
    'templates/objects.yaml': [
      'apiVersion: v1',
      'kind: Namespace',
      'metadata:',
      '  name: {{ .Values.ns }}',
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: cfg',
      '  namespace: {{ .Values.ns }}',
      '  finalizers: [{{ .Values.finalizer | quote }}]',
      '',
    ].join('\n'),
  });

test.each(['helm4', 'helm3'] as const)(
  'S21 (%s): the record is purged while the objects are held: HelmReleaseRecordLost, caused by the finalizer',
  async (binary) => {
    const api = suiteApi();
    const id = uniqueName(`rules-s21-${binary}`);
    const releaseNs = `${id}-rel`;
    const stackNs = `${id}-stack-ns`;
    const finalizer = `${id}.io/hold`;
    const release = id;
    const chart = stackChart();
    const run = (args: string[]) => (binary === 'helm4' ? helm4(args) : helm(clusterEnv().helm3, args));
    try {
      const install = await run([
        'install', release, chart.path, '-n', releaseNs, '--create-namespace',
        '--set-string', `ns=${stackNs}`, '--set-string', `finalizer=${finalizer}`,
      ]); // prettier-ignore
      expect(install.exitCode).toBe(0);
      const uninstall = await run(['uninstall', release, '-n', releaseNs, '--wait', '--timeout', '15s']);
      // The wait fails on the finalizer, and the record is purged all the same (helm/helm#12000):
      // both pinned versions exit 1 with "uninstallation completed with 1 error(s): ... context
      // deadline exceeded" (Helm 4 also names the objects that still exist), then "not found".
      expect(uninstall.exitCode).toBe(1);
      expect(String(uninstall.stderr)).toMatch(/^Error: uninstallation completed with 1 error\(s\): /);
      expect(String(uninstall.stderr)).toMatch(/context deadline exceeded/);
      expect(await releaseStatus(api, releaseNs, release)).toBeUndefined();
      const status = await run(['status', release, '-n', releaseNs]);
      expect(String(status.stderr)).toMatch(/release: not found/);
      await waitForCondition(api, `/api/v1/namespaces/${stackNs}`, 'NamespaceFinalizersRemaining');

      const inventory = await snapshot(api);
      recordFixture(`s21-helm-release-record-lost-${binary}`, inventory, {
        scenario: `S21 helm uninstall --wait (${binary}) purged the record while a finalizer holds the objects`,
        names: { release, releaseNamespace: releaseNs, namespace: stackNs, finalizer },
        environmentNamespaces: [releaseNs, stackNs],
        selection: { namespaces: [releaseNs, stackNs], clusterObjects: [] },
      });
      const mine = findingsAbout(findingsOf(inventory, [releaseNs, stackNs]), [id]);
      expect(summarize(mine)).toEqual(
        expect.arrayContaining([
          ['HelmReleaseRecordLost', 'warning', 'ConfigMap', `${stackNs}/cfg`, 'environment'],
          ['OperatorGoneFinalizer', 'error', 'ConfigMap', `${stackNs}/cfg`, 'environment'],
          ['NamespaceBlockedByFinalizer', 'error', 'Namespace', `/${stackNs}`, 'environment'],
        ]),
      );
      expect(mine.map((f) => f.code).filter((c) => c.startsWith('Helm'))).toEqual(['HelmReleaseRecordLost']);
      const lost = mine.find((f) => f.code === 'HelmReleaseRecordLost')!;
      expect(lost.key).toBe(findingKey('HelmReleaseRecordLost', recordLostSubject(releaseNs, release)));
      expect(lost.message).toMatch(
        new RegExp(
          `^Helm release ${releaseNs}/${release} has no record any more, but 2 objects of it have been held in ` +
            `deletion for up to \\d+s \\(finalizers ${finalizer.replace(/\./g, '\\.')}\\): Helm no longer tracks them`,
        ),
      );
      expect(lost.evidence).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(`^no release Secret or ConfigMap sh\\.helm\\.release\\.v1\\.${release}\\.v\\* `),
          ),
          expect.stringMatching(
            new RegExp(
              `^held: configmaps ${stackNs}/cfg \\(deletionTimestamp .*, finalizers ${finalizer.replace(/\./g, '\\.')}\\)$`,
            ),
          ),
          expect.stringMatching(new RegExp(`^held: namespaces ${stackNs} \\(deletionTimestamp `)),
        ]),
      );
      expect(lost.causedBy).toEqual(
        expect.arrayContaining([
          findingKey('OperatorGoneFinalizer', finalizerGroupSubject(stackNs, finalizer)),
          mine.find((f) => f.code === 'NamespaceBlockedByFinalizer')!.key,
        ]),
      );
      expect(lost.remediation.commands.at(-1)).toMatch(
        new RegExp(`^kubectl patch configmaps cfg -n ${stackNs} --type json`),
      );
    } finally {
      chart.remove();
      await removeFinalizers(api, `/api/v1/namespaces/${stackNs}/configmaps/cfg`);
      await deleteNamespaceAndWait(api, stackNs);
      await deleteNamespaceAndWait(api, releaseNs);
    }
  },
);

test('clean: no HelmReleaseRecordLost while the record exists, nor for objects of a gone release that nothing holds', async () => {
  const api = suiteApi();
  const id = uniqueName('rules-s21-clean');
  const releaseNs = `${id}-rel`;
  const stackNs = `${id}-stack-ns`;
  const keptNs = `${id}-kept`;
  const finalizer = `${id}.io/hold`;
  const chart = stackChart();
  try {
    // 1. The record is there (deployed) while its ConfigMap is held in deletion by a finalizer:
    //    a stuck deletion, not a lost record.
    const install = await helm4([
      'install', id, chart.path, '-n', releaseNs, '--create-namespace',
      '--set-string', `ns=${stackNs}`, '--set-string', `finalizer=${finalizer}`,
    ]); // prettier-ignore
    expect(install.exitCode).toBe(0);
    await api.request({ method: 'DELETE', path: `/api/v1/namespaces/${stackNs}/configmaps/cfg` });
    // 2. A release uninstalled cleanly whose kept ConfigMap stays, not being deleted: a
    //    HelmLeftover (kept), and no lost record, since nothing of it is held in deletion.
    expect(
      (await helm4(['install', 'keepy', chartPath('keepy'), '-n', keptNs, '--create-namespace'])).exitCode,
    ).toBe(0);
    expect((await helm4(['uninstall', 'keepy', '-n', keptNs])).exitCode).toBe(0);
    expect(await releaseStatus(api, keptNs, 'keepy')).toBeUndefined();

    const inventory = await snapshot(api);
    const held = inventory.objects.find((o) => o.namespace === stackNs && o.name === 'cfg');
    expect(held?.deletionTimestamp).toBeDefined();
    expect(inventory.objects.some((o) => o.namespace === keptNs && o.name === 'state')).toBe(true);
    // Stuck at once (threshold 0): only the record decides.
    const mine = findingsAbout(findingsOf(inventory, [releaseNs, stackNs, keptNs]), [id]);
    expect(mine.filter((f) => f.code === 'HelmReleaseRecordLost')).toEqual([]);
    expect(summarize(mine.filter((f) => f.code === 'HelmLeftover'))).toEqual([
      ['HelmLeftover', 'info', 'ConfigMap', `${keptNs}/state`, 'environment'],
    ]);
  } finally {
    chart.remove();
    await removeFinalizers(api, `/api/v1/namespaces/${stackNs}/configmaps/cfg`);
    await helm4(['uninstall', id, '-n', releaseNs]);
    await deleteNamespaceAndWait(api, stackNs);
    await deleteNamespaceAndWait(api, releaseNs);
    await deleteNamespaceAndWait(api, keptNs);
  }
});
