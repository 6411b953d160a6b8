/**
 * helm-release-record-invalid: Helm release Secrets in scope whose record kube-sweep refused to
 * use (src/helm/release-storage.ts `decodeRelease`: not decodable, a gzip bomb, a release name
 * Helm would not allow, a namespace other than the Secret's, a manifest that is not YAML
 * objects). The records come from the rule context (plan, dry run and teardown decode them; the
 * snapshot holds Secrets' metadata only). One warning per Secret.
 */
import type { Finding } from './findings.js';
import { buildFinding } from './finding-builder.js';
import { command } from './kubectl.js';
import type { Rule } from './rule.js';

const rule = 'helm-release-record-invalid';

export const helmReleaseRecordInvalidRule: Rule = {
  name: rule,
  title: 'Helm release Secrets whose record is not a valid release',
  codes: ['HelmReleaseRecordInvalid'],
  check(_inventory, context): Finding[] {
    return (context.invalidReleaseRecords ?? []).map((r) =>
      buildFinding(
        rule,
        'HelmReleaseRecordInvalid',
        {
          object: { apiVersion: 'v1', kind: 'Secret', namespace: r.namespace, name: r.secret },
          message:
            `Secret ${r.namespace}/${r.secret} is labelled as a Helm release record, but its record is not a ` +
            'valid release: kube-sweep did not use it (no helm command, no manifest read)',
          evidence: [r.reason],
          remediation: {
            summary:
              'Check who wrote the Secret (the API server audit log names the user): someone who can write Secrets ' +
              'in this namespace forged it, or a real record was damaged. If it was a real release, delete what it ' +
              'installed by hand; then delete the Secret.',
            commands: [
              command('kubectl', 'get', 'secret', r.secret, '-n', r.namespace, '--show-labels'),
              '# WARNING: if this was the last record of a real release, Helm no longer knows that release:',
              command('kubectl', 'delete', 'secret', r.secret, '-n', r.namespace),
            ],
          },
        },
        context,
      ),
    );
  },
};
