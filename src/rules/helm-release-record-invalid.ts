/**
 * helm-release-record-invalid: Helm release Secrets in scope whose record kube-sweep refused to
 * use (src/helm/release-storage.ts `decodeRelease`: not decodable, a gzip bomb, a release name
 * Helm would not allow, a namespace other than the Secret's, a manifest that is not YAML
 * objects). The records come from the rule context (plan, dry run and teardown decode the
 * records in scope) and from the snapshot (`undecodableHelmRecords`: the records of any namespace
 * read whole by inventory/helm-records.ts, Secrets and ConfigMaps). One warning per record.
 */
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command } from './kubectl.js';
import type { InvalidReleaseRecord, Rule } from './rule.js';

const rule = 'helm-release-record-invalid';

export const helmReleaseRecordInvalidRule: Rule = {
  name: rule,
  title: 'Helm release Secrets whose record is not a valid release',
  codes: ['HelmReleaseRecordInvalid'],
  check(inventory, context): Finding[] {
    const fromSnapshot = (inventory.undecodableHelmRecords ?? []).map((r): InvalidReleaseRecord => ({
      kind: r.kind,
      namespace: r.namespace,
      secret: r.name,
      reason: r.reason,
    }));
    const byPlace = new Map<string, InvalidReleaseRecord>();
    for (const r of [...(context.invalidReleaseRecords ?? []), ...fromSnapshot])
      byPlace.set(JSON.stringify([r.kind ?? 'Secret', r.namespace, r.secret]), r);
    return [...byPlace.values()].map((r) => invalidRecordFinding(r, context));
  },
};

/** Pure: the finding of one record kube-sweep refused to use. */
function invalidRecordFinding(r: InvalidReleaseRecord, context: Parameters<Rule['check']>[1]): Finding {
  const kind = r.kind ?? 'Secret';
  const resource = kind === 'Secret' ? 'secret' : 'configmap';
  return buildFinding(
    rule,
    'HelmReleaseRecordInvalid',
    {
      object: { apiVersion: 'v1', kind, namespace: r.namespace, name: r.secret },
      message:
        `${kind} ${r.namespace}/${r.secret} is labelled as a Helm release record, but its record is not a ` +
        'valid release: kube-sweep did not use it (no helm command, no manifest read)',
      evidence: [r.reason],
      remediation: {
        summary:
          `Check who wrote the ${kind} (the API server audit log names the user): someone who can write ${kind}s ` +
          'in this namespace forged it, or a real record was damaged. If it was a real release, delete what it ' +
          `installed by hand; then delete the ${kind}.`,
        commands: [
          command('kubectl', 'get', resource, r.secret, '-n', r.namespace, '--show-labels'),
          '# WARNING: if this was the last record of a real release, Helm no longer knows that release:',
          command('kubectl', 'delete', resource, r.secret, '-n', r.namespace),
        ],
      },
    },
    context,
  );
}
