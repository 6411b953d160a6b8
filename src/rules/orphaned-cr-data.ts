import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { fullObjectsOf } from './kubernetes-objects.js';
import { command } from './kubectl.js';
import type { Rule } from './rule.js';

const rule = 'orphaned-cr-data';

/**
 * orphaned-cr-data: custom-resource data that etcd still stores under
 * `/registry/<group>/<plural>/` although no CRD defines that group and plural and the API server
 * serves no such resource (scenario S07: the CRD was force-finalized, removing
 * `customresourcecleanup.apiextensions.k8s.io`, so its instances were never purged). Nothing can
 * address them, and they come back, deletionTimestamp and finalizers included, when the CRD is
 * created again. Needs the optional etcd read (`etcd-endpoint`, src/inventory/etcd.ts); without
 * it the rule says nothing. One finding per (group, resource).
 */
export const orphanedCrDataRule: Rule = {
  name: rule,
  title: 'Custom-resource data stored in etcd that no CRD serves',
  codes: ['OrphanedCRDataInEtcd'],
  check(inventory, context) {
    if (!inventory.etcd) return [];
    const served = new Set(inventory.resources.map((r) => `${r.group}/${r.resource}`));
    for (const crd of fullObjectsOf(inventory, 'customresourcedefinitions'))
      served.add(`${crd.spec?.group ?? ''}/${crd.spec?.names?.plural ?? ''}`);
    // A group-version whose discovery failed may serve it: no conclusion about its group.
    const failedGroups = new Set(inventory.failedGroupVersions.map((f) => f.groupVersion.split('/')[0]));
    const findings: Finding[] = [];
    for (const p of inventory.etcd.prefixes) {
      if (served.has(`${p.group}/${p.resource}`) || failedGroups.has(p.group)) continue;
      const crdName = `${p.resource}.${p.group}`;
      const prefix = `/registry/${p.group}/${p.resource}/`;
      findings.push(
        buildFinding(
          rule,
          'OrphanedCRDataInEtcd',
          {
            object: {
              apiVersion: 'apiextensions.k8s.io/v1',
              kind: 'CustomResourceDefinition',
              name: crdName,
            },
            subject: `etcd prefix ${prefix}`,
            namespaces: p.namespaces,
            message:
              `etcd still stores ${p.count} object${p.count === 1 ? '' : 's'} of ${crdName} under ${prefix}, but no ` +
              'CRD defines it: they cannot be read or deleted through the API and return when the CRD is created again',
            evidence: [
              `etcd ${inventory.etcd.endpoint}: ${p.count} key${p.count === 1 ? '' : 's'} under ${prefix}`,
              `for example: ${p.samples.join(', ')}`,
              ...(p.namespaces.length ? [`in namespaces: ${p.namespaces.join(', ')}`] : []),
              `no CustomResourceDefinition ${crdName} and no served resource ${p.resource} in group ${p.group}`,
            ],
            remediation: {
              summary:
                `Create CRD ${crdName} again (the same group, plural and a served version; temporarily if it is not ` +
                'wanted), so the objects can be read; let their controller finish or remove their finalizers; ' +
                'delete them properly; then delete the CRD. A direct etcd delete is the documented last resort.',
              commands: [
                command('kubectl', 'apply', '-f', `<the CRD ${crdName}>`),
                command('kubectl', 'get', crdName, '-A'),
                command('kubectl', 'delete', crdName, '--all', '-A'),
                command('kubectl', 'delete', 'customresourcedefinition', crdName),
                '# WARNING: deleting keys in etcd bypasses the API server (no admission, no finalizers, no ' +
                  'watch events); only with the API server unable to serve them and a backup of etcd:',
                command('etcdctl', 'del', '--prefix', prefix),
              ],
            },
          },
          context,
        ),
      );
    }
    return findings;
  },
};
