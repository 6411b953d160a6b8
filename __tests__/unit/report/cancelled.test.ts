import { cancelledMessage, commandText, progressRecorder } from '../../../src/report/cancelled.js';
import type { ReleaseOutcome } from '../../../src/model/teardown-result.js';

const outcome = (release: string, status: ReleaseOutcome['status'], method: ReleaseOutcome['method']) =>
  ({ release, status, method, helmStatusBefore: 'deployed', durationMs: 1 }) as ReleaseOutcome;

test('the recorder keeps the running group, removed releases, accepted namespace deletions and stopped processes', async () => {
  let clock = 1000;
  const p = progressRecorder(() => clock++);
  const group = p.group(async (_title, fn) => fn());
  await group('Reading the cluster (inventory)', async () => {});
  await group('Stage 1/2: pr-1-app/app', async () => {
    p.releaseDone(outcome('pr-1-app/app', 'uninstalled', 'namespace'));
    p.releaseDone(outcome('pr-1-db/db', 'uninstalled', 'helm'));
    p.releaseDone(outcome('pr-1-x/x', 'failed', 'helm'));
    p.answered({ method: 'DELETE', path: '/api/v1/namespaces/pr-1-app' });
    p.answered({ method: 'DELETE', path: '/api/v1/namespaces/pr-1-app/configmaps/x' });
    p.answered({ method: 'GET', path: '/api/v1/namespaces/pr-1-db' });
    p.stopped('/usr/bin/helm', [
      'uninstall',
      'x',
      '--namespace',
      'pr-1-x',
      '--timeout',
      '60s',
      '--kubeconfig',
      '/t/k.yaml',
    ]);
  });
  // A group entered after the signal (the run unwinding) is not where it was cancelled.
  clock = 20_000;
  await group('Deleting namespaces: pr-1-app', async () => {});
  const run = p.cancelled({ signal: 'SIGINT', at: 12_345 }, 10_000);
  expect(run).toEqual({
    signal: 'SIGINT',
    afterMs: 2345,
    during: 'Stage 1/2: pr-1-app/app',
    releasesRemoved: ['pr-1-app/app (with its namespace)', 'pr-1-db/db (helm uninstall)'],
    namespacesDeleted: ['pr-1-app'],
    processesStopped: ['helm uninstall x --namespace pr-1-x --timeout 60s'],
  });
  expect(cancelledMessage(run, 'teardown')).toBe(
    "cancelled after 2.3 s by SIGINT, during 'Stage 1/2: pr-1-app/app'. Done before that: 2 release(s) removed " +
      '(pr-1-app/app (with its namespace), pr-1-db/db (helm uninstall)); deletion of 1 namespace(s) requested (pr-1-app). ' +
      "Stopped while running: helm uninstall x --namespace pr-1-x --timeout 60s (a release stopped while uninstalling may be left 'uninstalling'). " +
      'Not done: the rest of the teardown and the scan for leftovers; run it again to finish.',
  );
});

test('a run cancelled before anything was deleted says so', () => {
  expect(
    cancelledMessage(
      {
        signal: 'SIGTERM',
        afterMs: 400,
        during: '',
        releasesRemoved: [],
        namespacesDeleted: [],
        processesStopped: [],
      },
      'scan',
    ),
  ).toBe(
    'cancelled after 0.4 s by SIGTERM, before any step began. Done before that: nothing deleted. Not done: the rest of the scan; run it again to finish.',
  );
  expect(commandText('kind', ['delete', 'cluster'])).toBe('kind delete cluster');
});

test('a stopped helm of a configmap-driver release is shown with HELM_DRIVER=configmap; Helm’s default driver is not shown', () => {
  const args = ['uninstall', '--namespace', 'pr-1', '--kubeconfig', '/tmp/k', '--', 'web'];
  expect(commandText('/usr/bin/helm', args, { HELM_DRIVER: 'configmap' })).toBe(
    'HELM_DRIVER=configmap helm uninstall --namespace pr-1 -- web',
  );
  expect(commandText('/usr/bin/helm', args, { HELM_DRIVER: 'secret' })).toBe(
    'helm uninstall --namespace pr-1 -- web',
  );
});
