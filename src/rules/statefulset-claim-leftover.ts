import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { isInstalled, releaseHistories } from './helm-releases.js';
import { command, getYaml } from './kubectl.js';
import { fullObjectsOf, type PersistentVolumeClaimObject } from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import { objectsOf, refOf, wasListed } from './snapshot-views.js';

const rule = 'statefulset-claim-leftover';

/** Labels through which charts name the release of a claim's StatefulSet (Helm's recommended, older charts'). */
const releaseLabels = ['app.kubernetes.io/instance', 'release'];

/** A claim name split as the StatefulSet controller builds it: `<template>-<statefulset>-<ordinal>`. */
export interface ClaimNameParts {
  readonly template: string;
  readonly statefulSet: string;
  readonly ordinal: number;
}

/**
 * Pure: every way to read `name` as `<template>-<statefulset>-<ordinal>`
 * (pkg/controller/statefulset/stateful_set_utils.go getPersistentVolumeClaimName), shortest
 * template first. Empty when the name does not end in `-<ordinal>` after two non-empty parts.
 */
export function claimNameParts(name: string): ClaimNameParts[] {
  const match = /^(.+)-(\d+)$/.exec(name);
  if (!match) return [];
  const prefix = match[1]!;
  const ordinal = Number(match[2]);
  const parts: ClaimNameParts[] = [];
  for (let i = prefix.indexOf('-'); i > 0; i = prefix.indexOf('-', i + 1))
    if (i < prefix.length - 1)
      parts.push({ template: prefix.slice(0, i), statefulSet: prefix.slice(i + 1), ordinal });
  return parts;
}

function claimFinding(
  meta: ObjectMetadata,
  claim: PersistentVolumeClaimObject,
  parts: ClaimNameParts,
  releaseLine: string | undefined,
  inventory: Inventory,
  context: RuleContext,
): Finding {
  const ns = meta.namespace ?? '';
  const size = claim.status?.capacity?.storage ?? claim.spec?.resources?.requests?.storage ?? 'unknown';
  const phase = claim.status?.phase ?? 'unknown';
  const volumeName = claim.spec?.volumeName;
  const volume = volumeName
    ? fullObjectsOf(inventory, 'persistentvolumes').find((pv) => pv.metadata?.name === volumeName)
    : undefined;
  const reclaim = volume?.spec?.persistentVolumeReclaimPolicy;
  const labels = Object.entries(meta.labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  return buildFinding(
    rule,
    'StatefulSetClaimLeftover',
    {
      object: refOf(meta),
      message:
        `PersistentVolumeClaim ${ns}/${meta.name} (${size}, ${phase}${volumeName ? `, volume ${volumeName}` : ''}) ` +
        `is named like claim template ${parts.template} of StatefulSet ${parts.statefulSet}, ordinal ` +
        `${parts.ordinal}, and no such StatefulSet exists: data left by a removed workload, which the next ` +
        `StatefulSet ${parts.statefulSet} in ${ns} mounts again`,
      evidence: [
        `name: <template>-<statefulset>-<ordinal> = ${parts.template}-${parts.statefulSet}-${parts.ordinal}; no StatefulSet ${parts.statefulSet} (nor any other name this one splits into) in namespace ${ns}`,
        'no ownerReferences: the StatefulSet had no persistentVolumeClaimRetentionPolicy.whenDeleted: Delete, so neither Helm nor the garbage collector removes it',
        `size: ${size}; phase: ${phase}; volume: ${volumeName ? `${volumeName}${reclaim ? ` (reclaimPolicy ${reclaim})` : ''}` : '(none bound)'}`,
        `labels: ${labels.join(', ')}`,
        ...(releaseLine ? [releaseLine] : []),
        ...(meta.creationTimestamp ? [`creationTimestamp: ${meta.creationTimestamp}`] : []),
      ],
      remediation: {
        summary:
          `Decide whether the data of claim ${ns}/${meta.name} is still needed before anything reuses it: it is ` +
          'never deleted by default. Reinstalling the same release mounts it ' +
          'again (old passwords, old schema). A teardown that deletes the namespace removes it. For ephemeral ' +
          'environments, set persistentVolumeClaimRetentionPolicy.whenDeleted: Delete on the StatefulSet so its ' +
          'claims go with it.',
        commands: [
          getYaml(meta),
          ...(volumeName ? [command('kubectl', 'get', 'persistentvolume', volumeName, '-o', 'yaml')] : []),
          `# WARNING: deleting the claim loses its data${reclaim === 'Delete' ? ` (volume ${volumeName} has reclaimPolicy Delete: the disk is deleted too)` : ''}; only after confirming it is not needed:`,
          command('kubectl', 'delete', 'persistentvolumeclaim', meta.name, '-n', ns),
        ],
      },
    },
    context,
  );
}

/**
 * The `StatefulSetClaimsRetained` note of a StatefulSet of the environment whose claims carry no
 * ownerReference to it: its retention policy keeps them (`whenDeleted: Retain`, the default; with
 * `Delete` the StatefulSet controller makes itself their owner, pkg/controller/statefulset
 * stateful_pod_control.go), so they outlive `helm uninstall` and the StatefulSet.
 */
function retainedFinding(
  set: ObjectMetadata,
  claims: readonly ObjectMetadata[],
  context: RuleContext,
): Finding {
  const ns = set.namespace ?? '';
  const names = claims.map((c) => c.name).sort();
  return buildFinding(
    rule,
    'StatefulSetClaimsRetained',
    {
      object: refOf(set),
      message:
        `StatefulSet ${ns}/${set.name} keeps its claim${names.length === 1 ? '' : 's'} ${names.join(', ')} when it ` +
        'is deleted (persistentVolumeClaimRetentionPolicy.whenDeleted is not Delete): helm uninstall leaves ' +
        `${names.length === 1 ? 'it' : 'them'} and the data, and only deleting namespace ${ns} removes ` +
        `${names.length === 1 ? 'it' : 'them'}`,
      evidence: [
        ...claims.map(
          (c) =>
            `claim ${c.name}: no ownerReference to StatefulSet ${set.name} (whenDeleted: Delete would set one)`,
        ),
      ],
      remediation: {
        summary:
          `Set persistentVolumeClaimRetentionPolicy.whenDeleted: Delete on StatefulSet ${ns}/${set.name} if its ` +
          'data is not needed after the environment is gone. Otherwise the claims stay after the uninstall ' +
          '(reported then as StatefulSetClaimLeftover) until their namespace is deleted.',
        commands: [
          getYaml(set),
          command(
            'kubectl',
            'patch',
            'statefulset',
            set.name,
            '-n',
            ns,
            '--type',
            'merge',
            '-p',
            JSON.stringify({ spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' } } }),
          ),
        ],
      },
    },
    context,
  );
}

/**
 * Pure: the claims of each live StatefulSet of the environment that its retention policy keeps
 * (named `<template>-<statefulset>-<ordinal>`, labelled, not being deleted, with no
 * ownerReference to the StatefulSet), as `StatefulSetClaimsRetained` notes.
 */
function retainedClaims(inventory: Inventory, context: RuleContext): Finding[] {
  const sets = objectsOf(inventory, 'apps', 'statefulsets').filter(
    (s) =>
      s.namespace !== undefined && context.environmentNamespaces.has(s.namespace) && !s.deletionTimestamp,
  );
  return sets.flatMap((set) => {
    const claims = objectsOf(inventory, '', 'persistentvolumeclaims').filter(
      (c) =>
        c.namespace === set.namespace &&
        !c.deletionTimestamp &&
        c.labels &&
        claimNameParts(c.name).some((p) => p.statefulSet === set.name) &&
        !(c.ownerReferences ?? []).some((o) => o.kind === 'StatefulSet' && o.name === set.name),
    );
    return claims.length ? [retainedFinding(set, claims, context)] : [];
  });
}

/**
 * statefulset-claim-leftover (scenario S22): a PersistentVolumeClaim named
 * `<template>-<statefulset>-<ordinal>` (`claimNameParts`) that carries labels (the StatefulSet
 * controller copies its selector's labels onto the claims it makes), has no ownerReferences and
 * is not being deleted, while no StatefulSet of any name it splits into exists in its namespace.
 * The StatefulSet controller creates these claims, not Helm: they carry no Helm annotations, and
 * unless `persistentVolumeClaimRetentionPolicy.whenDeleted: Delete` they outlive the StatefulSet
 * (helm/charts#19867, bitnami/charts#5199). Evidence: size, phase, bound volume and its reclaim
 * policy, and whether the release its `app.kubernetes.io/instance` (or `release`) label names
 * is installed. Not judged unless claims and StatefulSets were listed. Before a teardown (a
 * plan, a dry run, a scan of a live environment), each StatefulSet of the environment whose
 * claims its retention policy keeps gets an info note, `StatefulSetClaimsRetained`, so the user
 * knows before the uninstall that the claims will stay.
 */
export const statefulSetClaimLeftoverRule: Rule = {
  name: rule,
  title: 'Claims left by StatefulSets that no longer exist',
  codes: ['StatefulSetClaimLeftover', 'StatefulSetClaimsRetained'],
  check(inventory, context) {
    if (!wasListed(inventory, '', 'persistentvolumeclaims') || !wasListed(inventory, 'apps', 'statefulsets'))
      return [];
    const sets = new Set(objectsOf(inventory, 'apps', 'statefulsets').map((s) => `${s.namespace}/${s.name}`));
    const installed = new Set(
      wasListed(inventory, '', 'secrets')
        ? releaseHistories(inventory)
            .filter(isInstalled)
            .map((h) => `${h.namespace}/${h.name}`)
        : [],
    );
    const findings: Finding[] = retainedClaims(inventory, context);
    for (const claim of fullObjectsOf(inventory, 'persistentvolumeclaims')) {
      const meta = inventory.byUid.get(claim.metadata?.uid ?? '');
      if (!meta || meta.deletionTimestamp || meta.ownerReferences?.length || !meta.labels) continue;
      const parts = claimNameParts(meta.name);
      if (parts.length === 0 || parts.some((p) => sets.has(`${meta.namespace}/${p.statefulSet}`))) continue;
      const label = releaseLabels.find((l) => meta.labels?.[l]);
      const release = label ? meta.labels[label] : undefined;
      const releaseLine =
        release === undefined
          ? undefined
          : !wasListed(inventory, '', 'secrets')
            ? `label ${label}=${release}: whether that release is installed is unknown (Secrets not listed)`
            : installed.has(`${meta.namespace}/${release}`)
              ? `label ${label}=${release}: release ${meta.namespace}/${release} is installed, but it has no StatefulSet ${parts[0]!.statefulSet} any more`
              : `label ${label}=${release}: no release ${release} is installed in namespace ${meta.namespace}`;
      findings.push(claimFinding(meta, claim, parts[0]!, releaseLine, inventory, context));
    }
    return findings;
  },
};
