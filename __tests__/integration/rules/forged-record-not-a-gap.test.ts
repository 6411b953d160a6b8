/**
 * A release record that does not decode, planted by a tenant in a namespace of its own (a Secret
 * whose release name holds a line break, and a configmap-driver ConfigMap that is not base64 of
 * gzip), built for real: each is a HelmReleaseRecordInvalid finding about that one object, never
 * a coverage gap (before, one such Secret anywhere made every run `partial` and silenced the rules
 * that read Secrets, found by a tester). A teardown of an unrelated, empty namespace is `clean`.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { runAction } from '../support/action.js';
import { recordOf } from '../support/release-records.js';
import { createNamespace, deleteIfPresent, getOrUndefined, uniqueName } from '../support/cluster.js';
import { adminApiForSuite, findingsAbout, findingsOf, recordFixture, snapshot } from './support/scenario.js';

const suiteApi = adminApiForSuite();
let api: ApiClient;
beforeAll(() => {
  api = suiteApi();
});

test('records that do not decode are findings about themselves, not gaps; an unrelated teardown is clean', async () => {
  const id = uniqueName('forgedrec');
  const tenant = `${id}-tenant`;
  const env = `${id}-env`;
  await createNamespace(api, tenant);
  await createNamespace(api, env);
  const labels = (name: string) => ({ owner: 'helm', name, status: 'deployed', version: '1' });
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${tenant}/secrets`,
    body: {
      type: 'helm.sh/release.v1',
      metadata: { name: 'sh.helm.release.v1.bad.v1', labels: labels('bad') },
      data: {
        release: recordOf({
          name: 'bad\n::error::x',
          namespace: tenant,
          version: 1,
          info: { status: 'deployed' },
        }),
      },
    },
  });
  await api.request({
    method: 'POST',
    path: `/api/v1/namespaces/${tenant}/configmaps`,
    body: {
      metadata: { name: 'sh.helm.release.v1.cm.v1', labels: labels('cm') },
      data: { release: '%%% not base64 of gzip %%%' },
    },
  });
  try {
    const inventory = await snapshot(api);
    recordFixture('helm-release-record-invalid', inventory, {
      scenario: 'release records that do not decode, planted by a tenant',
      names: { tenant, env },
      environmentNamespaces: [tenant],
      selection: { namespaces: [tenant, env], clusterObjects: [] },
    });
    expect(inventory.coverage.filter((g) => g.resource.includes(tenant))).toEqual([]);
    const found = findingsAbout(findingsOf(inventory, []), [tenant]);
    expect(found.map((f) => [f.code, f.object.kind, f.object.name]).sort()).toEqual([
      ['HelmReleaseRecordInvalid', 'ConfigMap', 'sh.helm.release.v1.cm.v1'],
      ['HelmReleaseRecordInvalid', 'Secret', 'sh.helm.release.v1.bad.v1'],
    ]);

    const { report, failures } = await runAction({
      mode: 'teardown',
      namespaces: env,
      'stage-timeout': '30s',
    });
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');
    expect(await getOrUndefined(api, `/api/v1/namespaces/${tenant}`)).toBeDefined();
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${tenant}`);
    await deleteIfPresent(api, `/api/v1/namespaces/${env}`);
  }
});
