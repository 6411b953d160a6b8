import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import {
  helmDriverPrefix,
  hookAnnotation,
  recordResource,
  releaseHistories,
  releaseNameAnnotation,
  releaseNamespaceAnnotation,
  type ReleaseHistory,
} from './helm-releases.js';
import { command, deleteObject, getYaml } from './kubectl.js';
import type { Rule, RuleContext } from './rule.js';
import { ageSeconds, capLines, describeObject, formatDuration, refOf } from './snapshot-views.js';

const rule = 'helm-release-stuck';

const pendingStatuses = new Set(['pending-install', 'pending-upgrade', 'pending-rollback']);

/** Statuses an operation leaves behind when it does not finish; `failed` is terminal. */
function isStuckStatus(status: string): boolean {
  return pendingStatuses.has(status) || status === 'uninstalling' || status === 'failed';
}

/** The key subject of the finding about a release (stable across its revisions). */
export function releaseSubject(namespace: string, name: string): string {
  return `helm release ${namespace}/${name}`;
}

/** When Helm last wrote the current revision: the `modifiedAt` label, else the record's creation. */
function lastModified(history: ReleaseHistory, now: number): { line: string; age: number | undefined } {
  const { current } = history;
  if (current.modifiedAt !== undefined) {
    const age = Math.max(0, Math.floor((now - current.modifiedAt) / 1000));
    return {
      line: `last modified by Helm: ${new Date(current.modifiedAt).toISOString()} (${formatDuration(age)} ago, modifiedAt label)`,
      age,
    };
  }
  const created = current.record.creationTimestamp;
  const age = ageSeconds(created, now);
  return {
    line:
      `release ${current.storage} created: ${created ?? 'unknown'}` +
      `${age !== undefined ? ` (${formatDuration(age)} ago)` : ''}, no modifiedAt label`,
    age,
  };
}

/** The highest earlier revision that was deployed (status deployed or superseded), for a rollback. */
function lastDeployedRevision(history: ReleaseHistory): number | undefined {
  return [...history.revisions]
    .reverse()
    .find(
      (r) => r.revision < history.current.revision && (r.status === 'deployed' || r.status === 'superseded'),
    )?.revision;
}

/**
 * Hook objects in the release namespace. Helm puts no release marker on hook objects (the
 * pinned Helm 4.3.1 and 3.22.0 set only `helm.sh/hook` and `helm.sh/hook-delete-policy`), so
 * they can be tied to the namespace only, not to one release.
 */
function hookObjects(inventory: Inventory, namespace: string): ObjectMetadata[] {
  return (inventory.byNamespace.get(namespace) ?? []).filter((o) => o.annotations?.[hookAnnotation]);
}

/** Objects that name the release in Helm's annotations. */
function releaseObjects(inventory: Inventory, history: ReleaseHistory): ObjectMetadata[] {
  return inventory.objects.filter(
    (o) =>
      o.annotations?.[releaseNameAnnotation] === history.name &&
      o.annotations?.[releaseNamespaceAnnotation] === history.namespace,
  );
}

/**
 * Why a release is left in `status`, in words. For `uninstalling`, a pre-delete hook is named
 * as the likely cause only when `hooks` (hook objects in its namespace) holds one: a release
 * with none was most likely left by a helm process that was stopped (a deadline, a cancel).
 */
function describeStatus(status: string, hooks: readonly ObjectMetadata[]): string {
  if (pendingStatuses.has(status))
    return (
      'only the helm client that started the operation moves a release out of pending-*; if that client ' +
      'was killed (CI cancel, SIGKILL, timeout of the runner), every further install, upgrade and rollback ' +
      'fails with "another operation (install/upgrade/rollback) is in progress"'
    );
  if (status === 'uninstalling')
    return hooks.length > 0
      ? 'an uninstall stopped half-way, typically because a pre-delete hook failed or timed out: Helm saves ' +
          'the status before running the hooks and returns before deleting the objects and purging the record'
      : 'an uninstall stopped half-way: Helm saves the status before running the hooks, and the helm process ' +
          'ended (stopped at a deadline, cancelled or killed; or a pre-delete hook failed) before it deleted the ' +
          'objects and purged the record';
  return 'its last install, upgrade or rollback failed; the next upgrade diffs against this revision';
}

function commandsFor(history: ReleaseHistory, hooks: readonly ObjectMetadata[]): string[] {
  const { namespace: ns, name, current } = history;
  // A release of the configmap driver is found by helm only with HELM_DRIVER=configmap.
  const helm = (...args: string[]) => helmDriverPrefix(history) + command('helm', ...args);
  const rollbackTo = current.revision > 1 ? lastDeployedRevision(history) : undefined;
  const inspect = [
    helm('history', '-n', ns, '--', name),
    command(
      'kubectl',
      'get',
      recordResource(current.storage),
      '-n',
      ns,
      '-l',
      `owner=helm,name=${name}`,
      '--show-labels',
    ),
  ];
  const rollback =
    rollbackTo !== undefined
      ? [
          `# or, to keep the release, roll back to the last deployed revision ${rollbackTo}:`,
          helm('rollback', '-n', ns, '--', name, String(rollbackTo)),
        ]
      : [];
  if (current.status === 'uninstalling')
    return [
      ...inspect,
      ...hooks.map(getYaml),
      ...(hooks.length
        ? [
            '# fix what the hook waits for, or delete the hook object so that it is created afresh:',
            ...hooks.map((o) => deleteObject(o)),
          ]
        : []),
      '# then run the uninstall again:',
      helm('uninstall', '-n', ns, '--', name),
      '# WARNING: --no-hooks skips the pre-delete and post-delete hooks: the cleanup they do (external ' +
        'resources, data) does not happen; only after confirming it is not needed:',
      helm('uninstall', '-n', ns, '--no-hooks', '--', name),
    ];
  if (current.status === 'failed')
    return [...inspect, '# to tear it down:', helm('uninstall', '-n', ns, '--', name), ...rollback];
  return [
    ...inspect,
    '# once no helm client works on it any more, to tear it down (helm uninstall works on pending releases):',
    helm('uninstall', '-n', ns, '--', name),
    ...rollback,
  ];
}

function summaryFor(history: ReleaseHistory): string {
  const status = history.current.status;
  if (pendingStatuses.has(status))
    return (
      'Make sure no helm client (CI job, GitOps controller) still works on the release. To tear it down, ' +
      '`helm uninstall` works on a pending release; to keep it, roll back to the last deployed revision ' +
      '(when the pending one is not the first).'
    );
  if (status === 'uninstalling')
    return (
      'Fix the hook that stopped the uninstall (or delete the hook object) and run the uninstall again. Only ' +
      'if the hook cleanup is not needed, uninstall with --no-hooks.'
    );
  return 'Read why it failed (`helm history`), then roll back to the last deployed revision, upgrade again with a fix, or uninstall it.';
}

function findingOf(inventory: Inventory, history: ReleaseHistory, context: RuleContext): Finding | undefined {
  const { namespace: ns, name, current } = history;
  if (!isStuckStatus(current.status)) return undefined;
  const modified = lastModified(history, context.now);
  if (current.status !== 'failed' && modified.age !== undefined && modified.age < context.stuckAfterSeconds)
    return undefined;
  const hooks = current.status === 'uninstalling' ? hookObjects(inventory, ns) : [];
  const remaining = current.status === 'uninstalling' ? releaseObjects(inventory, history) : [];
  const rollbackTo = lastDeployedRevision(history);
  return buildFinding(
    rule,
    'HelmReleaseStuck',
    {
      object: refOf(current.record),
      subject: releaseSubject(ns, name),
      namespaces: [ns],
      severity: current.status === 'failed' ? 'warning' : 'error',
      message:
        `Helm release ${ns}/${name} is ${current.status} (revision ${current.revision}` +
        `${modified.age !== undefined ? `, last modified ${formatDuration(modified.age)} ago` : ''}): ` +
        describeStatus(current.status, hooks),
      evidence: [
        `release: ${ns}/${name}`,
        `status: ${current.status} (label of ${current.storage} ${current.record.name})`,
        `revision: ${current.revision} (revisions stored: ${history.revisions.map((r) => `v${r.revision} ${r.status}`).join(', ')})`,
        modified.line,
        ...(current.revision > 1
          ? [
              rollbackTo !== undefined
                ? `last deployed revision: ${rollbackTo}`
                : 'no earlier revision is stored as deployed or superseded',
            ]
          : []),
        ...(pendingStatuses.has(current.status)
          ? [
              'Helm keeps no lock or heartbeat in the cluster: whether a helm client still works on this release cannot be told from the snapshot',
            ]
          : []),
        ...capLines(
          hooks.map(
            (o) =>
              `hook ${describeObject(o)} (helm.sh/hook: ${o.annotations?.[hookAnnotation] ?? ''}` +
              `${o.deletionTimestamp ? `, deletionTimestamp ${o.deletionTimestamp}` : ''}): Helm records no release on hook objects, so it may belong to another release of namespace ${ns}`,
          ),
          10,
        ),
        ...(current.status === 'uninstalling'
          ? [
              remaining.length
                ? `${remaining.length} object${remaining.length === 1 ? '' : 's'} annotated with this release remain: ${capLines(remaining.map(describeObject), 10).join(', ')}`
                : 'no object annotated with this release remains',
            ]
          : []),
      ],
      remediation: { summary: summaryFor(history), commands: commandsFor(history, hooks) },
    },
    context,
  );
}

/**
 * helm-release-stuck: a Helm release whose current revision (the highest `version` label among
 * its release records: Secrets, or ConfigMaps of the configmap driver, whose helm commands get HELM_DRIVER=configmap) is pending-install, pending-upgrade, pending-rollback or uninstalling
 * (error), or failed (warning). Read from the labels of the records only; their data
 * (the release body) is not in the snapshot. Pending and uninstalling releases are reported once
 * Helm's last modification (`modifiedAt` label, else the record's creationTimestamp) is at least
 * `stuckAfterSeconds` old: an operation in progress looks the same (scenarios S15, S16).
 */
export const helmReleaseStuckRule: Rule = {
  name: rule,
  title: 'Helm releases left pending, uninstalling or failed',
  codes: ['HelmReleaseStuck'],
  check(inventory, context) {
    return releaseHistories(inventory).flatMap((h) => findingOf(inventory, h, context) ?? []);
  },
};
