import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { fullObjectsOf, refOfWhole } from './kubernetes-objects.js';
import { command } from './kubectl.js';
import type { Rule } from './rule.js';
import { ageSeconds, formatDuration, wasListed } from './snapshot-views.js';

const rule = 'storage-leftover';

/**
 * storage-leftover: a PersistentVolume (core/v1) in phase Released or Failed whose
 * `spec.claimRef` names a claim that no longer exists (scenario S13). kube-controller-manager's
 * persistentvolume-binder (pkg/controller/volume/persistentvolume) leaves a Retain volume
 * Released with its claimRef on purpose: the data may still matter, and no new claim can bind
 * it. Retain volumes are reported at once; Delete and Recycle volumes only once their phase is
 * older than `stuckAfterSeconds` (their reclaim may still be running). Not judged when
 * PersistentVolumeClaims or Namespaces could not be listed.
 */
export const storageLeftoverRule: Rule = {
  name: rule,
  title: 'PersistentVolumes left Released by a claim that is gone',
  codes: ['ReleasedPersistentVolume'],
  check(inventory, context) {
    if (!wasListed(inventory, '', 'persistentvolumeclaims') || !wasListed(inventory, '', 'namespaces'))
      return [];
    const claims = new Set(
      fullObjectsOf(inventory, 'persistentvolumeclaims').map(
        (c) => `${c.metadata?.namespace}/${c.metadata?.name}`,
      ),
    );
    const findings: Finding[] = [];
    for (const pv of fullObjectsOf(inventory, 'persistentvolumes')) {
      const phase = pv.status?.phase ?? '';
      const claim = pv.spec?.claimRef;
      if ((phase !== 'Released' && phase !== 'Failed') || !claim?.name) continue;
      const claimPath = `${claim.namespace ?? ''}/${claim.name}`;
      if (claims.has(claimPath)) continue;
      const policy = pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
      const age = ageSeconds(pv.status?.lastPhaseTransitionTime, context.now);
      if (policy !== 'Retain' && (age === undefined || age < context.stuckAfterSeconds)) continue;
      const name = pv.metadata?.name ?? '';
      const namespaceGone = !inventory.namespaceNames.has(claim.namespace ?? '');
      findings.push(
        buildFinding(
          rule,
          'ReleasedPersistentVolume',
          {
            object: refOfWhole('v1', 'PersistentVolume', pv.metadata),
            namespaces: [claim.namespace],
            message:
              `PersistentVolume ${name} is ${phase}${age !== undefined ? ` since ${formatDuration(age)}` : ''}: ` +
              `its claim ${claimPath} no longer exists${namespaceGone ? ' (nor does its namespace)' : ''}, and ` +
              `with reclaimPolicy ${policy} no new claim can bind it`,
            evidence: [
              `status.phase: ${phase}${pv.status?.lastPhaseTransitionTime ? ` (since ${pv.status.lastPhaseTransitionTime})` : ''}`,
              `spec.claimRef: ${claimPath} (uid ${claim.uid ?? ''}): ${namespaceGone ? `namespace ${claim.namespace ?? ''} does not exist` : 'claim does not exist'}`,
              `spec.persistentVolumeReclaimPolicy: ${policy}`,
              ...(pv.spec?.capacity?.storage ? [`capacity: ${pv.spec.capacity.storage}`] : []),
              `storageClassName: ${pv.spec?.storageClassName || '(none)'}`,
            ],
            remediation: {
              summary:
                `Delete PersistentVolume ${name} once you know its data is not needed (with Retain the backing ` +
                'storage stays and must be freed where it lives). To reuse the volume with its data, remove ' +
                'spec.claimRef so that a new claim can bind it.',
              commands: [
                command('kubectl', 'get', 'persistentvolume', name, '-o', 'yaml'),
                command('kubectl', 'delete', 'persistentvolume', name),
                '# WARNING: the next claim that binds this volume gets the old data; only if that is intended:',
                command(
                  'kubectl',
                  'patch',
                  'persistentvolume',
                  name,
                  '--type',
                  'json',
                  '-p',
                  JSON.stringify([{ op: 'remove', path: '/spec/claimRef' }]),
                ),
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
